"""The reference agent's reader finds a message's literal words in one pass over its
tokens (``LiteralWords``), tries only the phrasings and openings holding them all,
folds each distinct sentence once and reads a phrasing whose matches hold no sentence
end once per distinct sentence; what
it reads is what trying every phrasing on the whole text reads: a word inside a longer
token, overlapping phrasings, another slot's longer statement, the domain's order for
the language, an opening or a value across two sentences, es/en/vi phrasings."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.agents.reference import DomainSkill, _domain_skill
from simlab.agents.reference._domain_skill import fold
from simlab.agents.reference._literal_words import LiteralWords
from simlab.core import strip_diacritics
from simlab.guards import _checks, is_explicit_yes
from simlab.guards._checks import plain
from simlab.spec import Domain, load_domain

DOMAIN = """
id: trips
title: Trips
description: A hand-built domain whose phrasings overlap.
languages:
  en:
    confirm_cues: ["shall i"]
    phrases: {mind_change: ["Sorry."], answer_yes: ["Yes."], answer_none: ["-"],
              reassert: ["-"], nothing_to_add: ["-"], done: ["-"], gave_up: ["-"]}
  es:
    confirm_cues: ["lo hago"]
    phrases: {mind_change: ["Perdón."], answer_yes: ["Sí."], answer_none: ["-"],
              reassert: ["-"], nothing_to_add: ["-"], done: ["-"], gave_up: ["-"]}
  vi:
    confirm_cues: ["đồng ý không"]
    phrases: {mind_change: ["Xin lỗi."], answer_yes: ["Vâng."], answer_none: ["-"],
              reassert: ["-"], nothing_to_add: ["-"], done: ["-"], gave_up: ["-"]}
slots:
  - name: city
    type: enum
    description: Where from.
    values:
      - {value: HAN, say: {en: hanoi, es: hanói, vi: hà nội}}
      - {value: LON, say: {en: london, es: londres, vi: luân đôn}}
      - {value: STL, say: {en: st. louis, es: san luis, vi: st. louis}}
    say:
      en: {state: ["I fly from {value}.", "from {value}"], ask: ["from where"]}
      es: {state: ["Vuelo desde {value}."], ask: ["desde dónde"]}
      vi: {state: ["Tôi bay từ {value}."], ask: ["bay từ đâu"]}
  - name: back
    type: date
    description: The day back.
    say:
      en: {state: ["I'm back on {day}/{month}."], ask: ["the day back"]}
      es: {state: ["Vuelvo el {day}/{month}."], ask: ["el día de vuelta"]}
      vi: {state: ["Ngày về là {day}/{month}."], ask: ["ngày về"]}
  - name: leave
    type: date
    description: The day out.
    say:
      en: {state: ["on {day}/{month}"], ask: ["the day out"]}
      es: {state: ["salgo el {day}/{month}"], ask: ["el día de ida"]}
      vi: {state: ["đi ngày {day}/{month}"], ask: ["ngày đi"]}
  - name: bags
    type: integer
    description: Bags.
    say:
      en: {state: ["{value} bags"], ask: ["how many bags"]}
      es: {state: ["{value} maletas"], ask: ["cuántas maletas"]}
      vi: {state: ["{value} kiện"], ask: ["mấy kiện"]}
intents:
  - tool: book
    description: Book a trip.
    openings:
      en: {neutral: ["Hi. I need a ticket."], terse: ["Ticket."]}
      es: {neutral: ["Necesito un billete."]}
      vi: {neutral: ["Tôi cần vé."]}
tools:
  - name: book
    description: Book a trip.
    effect: write
    parameters:
      type: object
      properties:
        city: {type: string}
        leave: {type: string, format: date}
      required: [city, leave]
    returns: {ref: string}
    fixtures:
      - {when: {city: HAN}, result: {ref: T1}}
"""


@pytest.fixture(scope="module")
def trips(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    folder: Path = tmp_path_factory.mktemp("trips")
    (folder / "domain.yaml").write_text(DOMAIN, encoding="utf-8")
    return load_domain(folder)


def read(domain: Domain, text: str) -> tuple[dict[str, object], str | None, str | None]:
    got = DomainSkill(domain).read(text, ())
    return got.slots, got.intent, got.language


def test_the_words_of_a_text_are_those_it_holds_as_substrings() -> None:
    words = ["on", "back", ",", "/", "từ", "i'm", "bags"]
    literal = LiteralWords(words)
    texts = [
        "",
        "the moon 3/1",  # "on" inside a longer token, "/" inside "3/1"
        "london, on\u00a0time\tback\nagain",  # other whitespace splits tokens too
        "i'm back on 27/12, i'm back",  # a token twice
        "bay từ hà nội",
        "nothing here",
    ]
    for text in texts:
        held = literal.held(text)
        assert held == literal.mask(w for w in words if w in text), text
        assert literal.held(text) == held  # the second time from the tokens remembered
    with pytest.raises(ValueError, match="no whitespace"):
        LiteralWords(["two words"])


def test_a_word_inside_a_longer_token_still_lets_its_phrasing_match(trips: Domain) -> None:
    # the pattern has no word boundaries: "on 3/1" inside "moon 3/1" is a date
    assert read(trips, "Over the moon 3/1.")[0] == {"leave": "2026-01-03"}


def test_overlapping_phrasings_read_as_when_each_is_tried_on_the_whole_text(
    trips: Domain,
) -> None:
    # two phrasings of one slot overlap ("i fly from hanoi" holds "from hanoi")
    assert read(trips, "I fly from Hanoi.") == ({"city": "HAN"}, None, "en")
    # another slot's longer statement holds "on 27/12": it is the day back only
    slots, _, _ = read(trips, "I'm back on 27/12. We leave on 20/12.")
    assert slots == {"back": "2026-12-27", "leave": "2026-12-20"}
    # the latest statement of a slot wins
    assert read(trips, "From London, no, from Hanoi.")[0] == {"city": "HAN"}
    # a phrasing starting with its value
    assert read(trips, "2 bags from london")[0] == {"bags": 2, "city": "LON"}


def test_languages_and_openings_across_sentences(trips: Domain) -> None:
    assert read(trips, "Vuelo desde Londres.") == ({"city": "LON"}, None, "es")
    assert read(trips, "Tôi bay từ Hà Nội.") == ({"city": "HAN"}, None, "vi")
    assert read(trips, "Toi bay tu Ha Noi.") == ({"city": "HAN"}, None, "vi")
    # an opening of two sentences, its language before the phrasings'
    assert read(trips, "Hi. I need a ticket. Vuelo desde Hanói.") == ({"city": "HAN"}, "book", "en")
    assert read(trips, "Hi. I need a ticket") == ({}, None, None)  # not the whole opening
    assert read(trips, "Necesito un billete. I fly from Hanoi.")[1:] == ("book", "es")


def test_sentences_read_once_add_up_to_the_message(trips: Domain) -> None:
    skill = DomainSkill(trips)
    # the same sentences at other places: the latest statement still wins
    assert skill.read("From London. From Hanoi.", ()).slots == {"city": "HAN"}
    assert skill.read("From Hanoi. From London.", ()).slots == {"city": "LON"}
    assert skill.read("Sure! 3 bags. I'm back on 2/1? On 5/1.", ()).slots == {
        "bags": 3,
        "back": "2026-01-02",
        "leave": "2026-01-05",
    }
    # a number's "." is not a sentence's end; a text holding the cut marker is not cut
    assert skill.read("We have 2.5 bags. Ok.", ()).slots == {"bags": "2.5"}
    assert skill.read("From Hanoi.\0 2 bags.", ()).slots == {"city": "HAN", "bags": 2}


def test_a_value_across_a_sentence_end_is_read_on_the_whole_message(trips: Domain) -> None:
    # "st. louis" holds ". ": its phrasings are read on the whole text, not per sentence
    assert read(trips, "I fly from St. Louis.") == ({"city": "STL"}, None, "en")
    assert read(trips, "Thanks. From St. Louis, 2 bags.")[0] == {"city": "STL", "bags": 2}


def test_each_sentence_is_folded_once_the_message_never(
    trips: Domain, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = DomainSkill(trips)
    skill.read("Hi.", ())  # the domain's phrasings folded, its yes pattern made
    stripped: list[str] = []

    def noted(text: str) -> str:
        if not text.isascii():
            stripped.append(text)
        return strip_diacritics(text)

    monkeypatch.setattr(_domain_skill, "strip_diacritics", noted)
    monkeypatch.setattr(_checks, "strip_diacritics", noted)  # the yes reads the folded text
    assert skill.read("Tôi bay từ Luân Đôn. 7 kiện.", ()).slots == {"city": "LON", "bags": 7}
    assert skill.read("Tôi bay từ Luân Đôn. 8 kiện. Vâng.", ()).yes
    assert stripped == ["Tôi bay từ Luân Đôn.", " 7 kiện.", " 8 kiện.", " Vâng."]


def test_a_sentence_end_folding_shows_is_a_sentence_end(trips: Domain) -> None:
    # a mark between "." and its space: the raw text is not cut there, the folded one is
    skill = DomainSkill(trips)
    assert skill.read("From London.\u0301 From Hanoi.", ()).slots == {"city": "HAN"}
    assert skill.read("I'm back on 2/1.\u0301 On 5/1.", ()).slots == {
        "back": "2026-01-02",
        "leave": "2026-01-05",
    }


def test_the_plain_form_of_a_folded_text_is_the_texts() -> None:
    # the reader hands the yes check its folded text: it must read as the message
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    for i in range(0, len(every), 1000):
        chunk = every[i : i + 1000]  # neighbours too: marks after letters, final sigma
        assert plain(fold(chunk)) == plain(chunk), f"from U+{ord(chunk[0]):04X}"


_PIECES = [
    "yes", "Yes", "no", "wait", "Actually,", "sure", "ok", "Sí", "Vâng", "có", "don't",
    "go ahead", "book", "Sorry", "I'm not good", "3/1", ".", "!", "?", ";", "...", ",",
    " ", "  ", "\u00a0", "\t", "\n", "\u0301", "\0", "Σ", "Yes. ", "Wait. ", "Ok! ", "Sure? ",
]  # fmt: skip


@given(st.lists(st.sampled_from(_PIECES), max_size=14))
@settings(max_examples=400, deadline=None)
def test_the_go_ahead_read_per_sentence_is_the_messages(trips: Domain, pieces: list[str]) -> None:
    # each folded sentence's yes verdicts are worked out once, then joined: the
    # message reads as ``is_explicit_yes`` reads it whole
    text = "".join(pieces)
    domain = trips
    assert DomainSkill(domain).read(text, ()).yes is is_explicit_yes(text, domain)
    for text, yes in [
        ("Yes, go ahead. Sorry, I'm not good with computers.", True),
        ("Yes. Actually, wait.", False),
        ("Actually, wait. Yes.", True),
        ("No. Yes!", True),
        ("Yes. I fly from Hanoi. Wait, no.", False),
    ]:
        assert DomainSkill(domain).read(text, ()).yes is yes, text


def _read_whole(domain: Domain, text: str) -> tuple[dict[str, object], str | None, str | None]:
    """Every phrasing tried on the whole folded text, every match against every other:
    the reading the reader's shortcuts must give."""
    reader = _domain_skill.DomainReader(domain)
    t = fold(text)
    found = [
        (i, m.start(), m.end(), p.slot.name, m.groups())
        for i, p in enumerate(reader._phrasings)
        for m in p.pattern.finditer(t)
    ]
    latest: dict[str, tuple[int, object]] = {}
    languages: list[str] = []
    for i, start, end, name, groups in found:
        if any(
            s <= start and end <= e and e - s > end - start and other != name
            for _, s, e, other, _ in found
        ):
            continue
        value = reader._value(reader._phrasings[i], groups)
        if value is not None and (name not in latest or start >= latest[name][0]):
            latest[name] = (start, value)
            languages.append(reader._phrasings[i].language)
    intent = None
    for _, opening, tool, lang in reader._openings:
        if opening in t:
            intent = tool
            languages.insert(0, lang)
            break
    slots = {name: value for name, (_, value) in latest.items()}
    return slots, intent, languages[0] if languages else None


_SAID = [
    "I fly from", "from", "Hanoi", "London", "St. Louis", "st.", "Louis", "I'm back on",
    "back on", "on", "27/12", "3/1", "2", "bags", "Vuelo desde", "Londres", "Tôi bay từ",
    "Hà Nội", "Hi.", "I need a ticket.", "Ticket.", "Yes.", ".", "!", "?", ",", " ", "  ",
]  # fmt: skip


_REF = """
  - name: ref
    type: identifier
    pattern: "[a-z]+ [0-9]+ bags"
    description: A reference that holds a number of bags.
    say:
      en: {state: ["ref {value}"], ask: ["the ref"]}
      es: {state: ["referencia {value}"], ask: ["la referencia"]}
      vi: {state: ["mã {value}"], ask: ["mã"]}
"""


@pytest.fixture(scope="module")
def trips_ref(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    # a phrasing read on the whole text (an identifier's own pattern) whose matches can
    # hold another slot's statement read per sentence ("ref abc 2 bags" holds "2 bags")
    folder: Path = tmp_path_factory.mktemp("trips_ref")
    (folder / "domain.yaml").write_text(DOMAIN.replace("intents:", _REF + "intents:", 1))
    return load_domain(folder)


@given(st.lists(st.sampled_from([*_SAID, "ref", "abc", "ref abc 2 bags"]), max_size=16))
@settings(max_examples=400, deadline=None)
def test_a_message_reads_as_every_phrasing_tried_on_the_whole_text(
    trips: Domain, trips_ref: Domain, said: list[str]
) -> None:
    # sentences read once each (their matches, those inside another slot's longer
    # statement), whole-text phrasings by the words they need: the whole text's reading
    text = " ".join(said)
    assert read(trips, text) == _read_whole(trips, text)
    assert read(trips_ref, text) == _read_whole(trips_ref, text)
    assert read(trips_ref, "I have ref abc 2 bags.")[0] == {"ref": "ABC 2 BAGS"}
