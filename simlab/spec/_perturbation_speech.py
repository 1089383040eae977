"""What a perturbation says in a persona's language: the domain's words first, then the file's.

A perturbation file says what a perturbation does; what the user says when it
lands belongs to the goal's domain, per language: ``languages.LANG.perturbations``
(by kind) and each slot's ``say.LANG.vague`` (for ``ambiguity``). A perturbation
file's own ``phrasings``/``vague`` are the fallback (the shipped files carry
English and Vietnamese ones), so a domain in another language brings its own, and
``simlab validate`` says where one is missing before any session runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from simlab.spec._domain import Domain
from simlab.spec._models import Language
from simlab.spec._perturbation import PHRASED_KINDS, Perturbation


def perturbation_phrasings(p: Perturbation, domain: Domain, language: Language) -> tuple[str, ...]:
    """What ``p`` says when it lands for a persona speaking ``language`` (empty: nothing).

    The domain's phrasings for ``p``'s kind in that language, else the file's own.
    Kinds that say nothing (typos, stripped diacritics, ambiguity) have none.
    """
    if p.kind not in PHRASED_KINDS:
        return ()
    speech = domain.languages.get(language)
    own = speech.perturbations.get(p.kind) if speech is not None else None
    return tuple(own or p.phrasings.get(language) or ())


def vague_phrasings(
    p: Perturbation, domain: Domain, language: Language
) -> dict[str, tuple[str, ...]]:
    """Per slot, how an ambiguity ``p`` states a fact vaguely in ``language``.

    A slot's own ``say.LANG.vague`` in the domain, else the file's ``vague`` for
    that slot; a slot with neither is never blurred.
    """
    if p.kind != "ambiguity":
        return {}
    out = {
        s.name: tuple(s.say[language].vague)
        for s in domain.slots
        if language in s.say and s.say[language].vague
    }
    for slot, phrasings in p.vague.get(language, {}).items():
        out.setdefault(slot, tuple(phrasings))
    return out


def unspoken(
    p: Perturbation, domain: Domain, language: Language, where: str = "the perturbation's file"
) -> str | None:
    """Why ``p`` cannot be said in ``language`` in ``domain``, with the fix; None when it can.

    A kind that speaks needs phrasings in the language. An ambiguity needs vague
    statements in the language when the domain or the file has some in another
    one (with none anywhere it never lands, in every language alike). ``where``
    names the perturbation's file in the fix.
    """
    if p.kind in PHRASED_KINDS and not perturbation_phrasings(p, domain, language):
        return (
            f"perturbation {p.id!r} ({p.kind}) has no {language!r} phrasings and domain "
            f"{domain.id!r} gives none for {p.kind}: add `perturbations: {{{p.kind}: "
            f"[...]}}` under `languages.{language}` in {domain.folder or 'the domain'} "
            f"(or `phrasings: {{{language}: [...]}}` to {where})"
        )
    if p.kind == "ambiguity" and not vague_phrasings(p, domain, language):
        others = sorted(
            {lang for lang in domain.languages if vague_phrasings(p, domain, lang)}
            | {lang for lang, by_slot in p.vague.items() if by_slot}
        )
        if others:
            return (
                f"perturbation {p.id!r} (ambiguity) has no vague statement in {language!r} "
                f"(it has some in {', '.join(others)}): add `vague: [...]` under "
                f"`say.{language}` of the slots to blur in {domain.folder or 'the domain'}"
            )
    return None


def unspoken_perturbations(
    library: Mapping[str, Perturbation],
    domain: Domain,
    language: Language,
    folder: str = "the perturbations folder",
) -> list[str]:
    """``unspoken`` for each perturbation of ``library`` (read from ``folder``) that
    cannot be said, in id order."""
    found = (
        unspoken(library[pid], domain, language, f"its file in {folder}") for pid in sorted(library)
    )
    return [why for why in found if why is not None]
