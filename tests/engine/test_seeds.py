from simlab.core import SessionKey, derive_seed
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
