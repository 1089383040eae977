"""An error raised somewhere simlab cannot see its frames: a worker process, a remote agent."""

from __future__ import annotations


class ReportedError(Exception):
    """An exception reported by another process, carrying what it said of itself.

    The session record stores ``type_name``, the message and the ``traceback`` the
    other side sent, not this wrapper's own.

    Attributes:
        type_name: The reported exception's class name (``ValueError``).
        message: Its message.
        traceback: The reported traceback's text, or None when none was sent.
    """

    def __init__(self, type_name: str, message: str, traceback: str | None = None) -> None:
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.message = message
        self.traceback = traceback
