"""``python -m simlab.testing``: the same as ``simlab fake-provider``."""

import sys

from simlab.testing import cli_main

sys.exit(cli_main())
