"""``python -m simlab``: the ``simlab`` command line, for when the script is not on PATH."""

import sys

from simlab.cli import main

if __name__ == "__main__":
    sys.exit(main())
