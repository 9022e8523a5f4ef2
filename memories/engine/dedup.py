"""Delta ingestion with semantic deduplication: decide whether new content is new.

Cosine similarity of unit vectors is their dot product. At or above the threshold the
existing memory is strengthened instead of storing a near-copy, when (strict) the two
say the same details in the same arrangement: the same content words, the same modal
verbs ("must" is not "may"), the same words after each preposition ("from us-east-1 to
eu-west-1" is not "from eu-west-1 to us-east-1", "billing depends on auth" is not "auth
depends on billing") and the rest in the same order ("billing calls auth" is not "auth
calls billing"). A fronted phrase keeps its preposition's object, so "for tests, use
pytest" still merges with "use pytest for tests".
"""

import hashlib
import re
from dataclasses import dataclass

import numpy as np

_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"[\w][\w.\-/]*[\w]|[\w]", re.UNICODE)
# Function words whose presence never changes what a note says. Negations and
# quantifiers ("not", "never", "always", "all") are deliberately absent.
_FUNCTION_WORDS = frozenset("""
a an the this that these those it its is are was were be been being am do does did has have
had having of in on at to for from by with as and or but so then than there here we i you
he she they our my your their his her me us them will would shall should can could may might
must also just very really please ok okay yes
""".split())
_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "es", "s", "ly")
# Function words that still change what a statement commits to.
MODALS = frozenset({"must", "may", "might", "should", "shall", "can", "could", "will",
                    "would"})
# A preposition's object keeps its role wherever the phrase stands in the sentence.
PREPOSITIONS = frozenset({"from", "to", "into", "onto", "on", "over", "than", "via",
                          "through", "toward", "towards", "by", "before", "after",
                          "against", "above", "below", "under", "behind", "of", "in", "at",
                          "for", "with", "about", "between", "within", "without", "across",
                          "per"})


def content_hash(content: str) -> str:
    """Hash of the content with whitespace folded and case ignored (exact duplicates)."""
    normalised = _SPACE.sub(" ", content).strip().casefold()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def details(content: str) -> frozenset[str]:
    """The stemmed content words of a text: what it says, without how it says it."""
    words = (w.casefold() for w in _TOKEN.findall(content))
    return frozenset(_stem(w) for w in words if w not in _FUNCTION_WORDS)


_PHRASE_END = re.compile(r"[,;:!?()]|\.(?=\s|$)")
_WORD_OR_BREAK = re.compile(f"{_TOKEN.pattern}|{_PHRASE_END.pattern}", re.UNICODE)


@dataclass(frozen=True)
class Arrangement:
    """How a text's details are put together: what decides who does what to whom."""

    modals: frozenset[str]  # must, may, should, ...
    slots: dict[str, str]  # content stem -> the preposition of its phrase, or "" outside
    order: tuple[str, ...]  # the stems outside phrases, in order


def arrangement(content: str) -> Arrangement:
    """A prepositional phrase runs from its preposition to the next preposition or
    punctuation mark ("for the unit tests, use pytest"); a word keeps the slot of its
    first use."""
    modals, slots, order = set(), {}, []
    preposition = ""
    for token in _WORD_OR_BREAK.findall(content):
        word = token.casefold()
        if _PHRASE_END.fullmatch(word) or word in PREPOSITIONS:
            preposition = word if word in PREPOSITIONS else ""
            continue
        if word in MODALS:
            modals.add(word)
        if word in _FUNCTION_WORDS:
            continue
        stem = _stem(word)
        slots.setdefault(stem, preposition)
        if not preposition:
            order.append(stem)
    return Arrangement(frozenset(modals), slots, tuple(order))


def conflicting_arrangement(a: str, b: str, *, modals: bool = True, order: bool = True) -> bool:
    """Whether two texts arrange their shared words into another fact: another modal verb,
    two words that exchange their slots ("from A to B" / "from B to A"; "billing depends
    on auth" / "auth depends on billing"), or the words outside phrases in another order
    ("billing calls auth" / "auth calls billing"). A phrase moved whole, or a word that
    only moves into or out of a phrase, changes nothing."""
    first, second = arrangement(a), arrangement(b)
    if modals and first.modals != second.modals:
        return True
    moved = {(first.slots[w], second.slots[w]) for w in first.slots.keys() & second.slots.keys()
             if first.slots[w] != second.slots[w]}
    if any((there, here) in moved for here, there in moved):
        return True
    if not order:
        return False
    shared = set(first.order) & set(second.order)
    return ([w for w in first.order if w in shared]
            != [w for w in second.order if w in shared])


def same_details(a: str, b: str, details_of=details) -> bool:
    """True when two texts differ only in wording: function words, inflection, punctuation,
    where a prepositional phrase stands.

    MiniLM puts distinct facts of one shape above 0.90 cosine ("the Redis cluster is in
    us-east-2 with 5 replicas" / "... eu-west-1 with 3 replicas"; "must enable 2FA" /
    "may enable 2FA" at 0.977; a replication's direction swapped at 0.997); merging those
    would bury the newer fact, which is a contradiction to surface, not a repeat.
    """
    return details_of(a) == details_of(b) and not conflicting_arrangement(a, b)


@dataclass(frozen=True)
class DedupDecision:
    duplicate_of: int | None  # index into the candidates, or None for "new"
    similarity: float | None


def decide(content: str, candidates: list[tuple[str, float]], threshold: float, *,
           strict: bool = True, details_of=details) -> DedupDecision:
    """Pick the most similar candidate that duplicates `content`, if any.

    A duplicate is at or above the cosine threshold and, when `strict`, says the same
    details (see same_details). Candidates are (content, similarity) pairs.
    """
    ranked = sorted(range(len(candidates)), key=lambda i: -candidates[i][1])
    for i in ranked:
        text, similarity = candidates[i]
        if similarity < threshold:
            break
        if not strict or same_details(content, text, details_of):
            return DedupDecision(i, similarity)
    return DedupDecision(None, candidates[ranked[0]][1] if ranked else None)


def first_duplicate_in_batch(contents: list[str], vectors: np.ndarray, threshold: float, *,
                             strict: bool = True) -> list[int | None]:
    """For each item, the earlier item of the batch it duplicates, else None.

    Bulk imports must not store two near-copies that arrive in the same batch. A
    duplicate always points at the earliest original, never at another duplicate.
    """
    if len(vectors) == 0:
        return []
    sims = vectors @ vectors.T
    # each text's details read once: a batch of near-copies compares every pair above the
    # threshold, and reading a long text's details again for each pair took minutes
    known = {}

    def details_of(text: str) -> frozenset[str]:
        if text not in known:
            known[text] = details(text)
        return known[text]

    result: list[int | None] = []
    for i in range(len(vectors)):
        originals = [j for j in range(i) if result[j] is None and sims[i, j] >= threshold]
        found = decide(contents[i], [(contents[j], float(sims[i, j])) for j in originals],
                       threshold, strict=strict, details_of=details_of)
        result.append(None if found.duplicate_of is None else originals[found.duplicate_of])
    return result
