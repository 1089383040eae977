"""strip_diacritics: the same text as decomposing, dropping the marks, recomposing."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.core import strip_diacritics


def by_the_book(text: str) -> str:
    """The definition, one character at a time over the whole string."""
    text = text.replace("đ", "d").replace("Đ", "D")
    decomposed = unicodedata.normalize("NFD", text)
    kept = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return unicodedata.normalize("NFC", kept)


def test_vietnamese_loses_its_marks_and_keeps_its_letters() -> None:
    assert strip_diacritics("Tôi muốn bay từ Hà Nội đến Đà Nẵng") == (
        "Toi muon bay tu Ha Noi den Da Nang"
    )
    assert strip_diacritics("plain ascii stays") == "plain ascii stays"


@settings(max_examples=2000)
@given(
    st.text(
        alphabet=st.characters(
            # Latin with accents, combining marks, Vietnamese, Hangul jamo and syllables
            # (jamo recompose across characters), Devanagari (marks of other classes)
            categories=("Lu", "Ll", "Lo", "Mn", "Mc", "Nd", "Zs", "Po"),
            max_codepoint=0xD7A3,
        ),
        max_size=24,
    )
)
def test_equals_the_definition_on_any_text(text: str) -> None:
    assert strip_diacritics(text) == by_the_book(text)
