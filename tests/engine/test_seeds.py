import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from simlab.core import SessionKey, derive_seed
from simlab.core._seeds import _plain_json
from simlab.engine import session_seed


def test_seed_is_sha256_of_canonical_json() -> None:
    # hand-computed: int.from_bytes(sha256(b'[1,"a"]').digest()[:8], "big") >> 1
    assert derive_seed(1, "a") == 1155254847670415180


def test_session_seed_depends_on_every_key_part() -> None:
    base = SessionKey(persona="p", goal="g", mode="full", rep=0)
    seeds = {
        session_seed(1, base),
        session_seed(2, base),
        session_seed(1, base.model_copy(update={"persona": "q"})),
        session_seed(1, base.model_copy(update={"goal": "h"})),
        session_seed(1, base.model_copy(update={"mode": "sharded"})),
        session_seed(1, base.model_copy(update={"rep": 1})),
        session_seed(1, base.model_copy(update={"perturbations": ("typo",)})),
    }
    assert len(seeds) == 7
    assert all(0 <= s < 2**63 for s in seeds)


def _reference_seed(*parts: object) -> int:
    """The definition: sha256 of ``json.dumps`` of the parts, tuples as lists."""
    canonical = json.dumps(
        [list(p) if isinstance(p, tuple) else p for p in parts],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return int.from_bytes(hashlib.sha256(canonical.encode()).digest()[:8], "big") >> 1


_TEXT = st.text(alphabet=st.characters(max_codepoint=0x130), max_size=8)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(min_value=-(2**70), max_value=2**70),
            _TEXT,
            st.lists(_TEXT, max_size=3),
            st.lists(_TEXT, max_size=3).map(tuple),
            st.booleans(),
            st.none(),
        ),
        max_size=6,
    )
)
def test_fast_canonical_json_is_json_dumps(parts: list[object]) -> None:
    # the shortcut for ints, plain strings and lists of them writes what json.dumps writes
    assert derive_seed(*parts) == _reference_seed(*parts)  # type: ignore[arg-type]


def test_perturbation_lists_take_the_shortcut() -> None:
    # a session key's seed has its perturbation list among the parts
    assert _plain_json((7, "p", ["typo", "pushback"], ())) == '[7,"p",["typo","pushback"],[]]'
    assert _plain_json((7, ['say "hi"'])) is None
