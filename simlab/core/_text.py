"""Text helpers: untrusted text made inert for display (control characters shown as
escapes), and text without its diacritics."""

from __future__ import annotations

import re
import unicodedata

# C0 and C1 controls but tab and newline (layout, which each renderer handles), DEL,
# lone surrogates (no UTF-8 for them), U+FFFE/U+FFFF (not characters; XML refuses them)
# and the bidirectional controls that make text display in another order than it reads.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def _escape_control(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """Untrusted text with every control character shown as a Python-style escape.

    Ids, error messages and imported task ids can carry terminal escape
    sequences (``ESC [31m``, an OSC title ended by BEL, an 8-bit CSI): written
    raw they recolour or retitle the reader's terminal and hide text. Shown as
    ``\\x1b``, ``\\x07``, ``\\x9b`` they are visible and inert, the same in the
    terminal, markdown, HTML and JUnit. Bidirectional overrides (``\\u202e``),
    which show text in another order than it reads, are escaped too. Tab and
    newline are left as they are.

    Args:
        text: Text from a record, a log or a user file.

    Returns:
        The text with no control character but tab and newline; idempotent.
    """
    return _CONTROL.sub(_escape_control, text)


def strip_diacritics(text: str) -> str:
    """Text as typed without accents: ``tiếng Việt`` becomes ``tieng Viet``.

    Each character is mapped once to itself without its combining marks (NFD, marks
    dropped; ``đ`` as ``d``) and the result recomposed (NFC): the same text as
    decomposing, filtering and recomposing the whole string, without a Python loop
    over its characters (the scripted user and the readers strip every message).
    """
    if text.isascii():
        return text
    if len(_BARE) > _MAX_BARE:
        _BARE.clear()
    return unicodedata.normalize("NFC", text.translate(_BARE))


class _BareCharacters(dict[int, str]):
    """Code point -> the character without its combining marks, filled on first use."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        if ch in "đĐ":
            bare = "d" if ch == "đ" else "D"
        else:
            decomposed = unicodedata.normalize("NFD", ch)
            bare = "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
        self[code] = bare
        return bare


_BARE = _BareCharacters()
_MAX_BARE = 65_536  # distinct characters kept (untrusted text may hold many)
