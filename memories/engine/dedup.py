"""Delta ingestion with semantic deduplication: decide whether new content is new.

Cosine similarity of unit vectors is their dot product. At or above the threshold the
existing memory is strengthened instead of storing a near-copy.
"""

import hashlib
import re
from dataclasses import dataclass

import numpy as np

_SPACE = re.compile(r"\s+")


def content_hash(content: str) -> str:
    """Hash of the content with whitespace folded and case ignored (exact duplicates)."""
    normalised = _SPACE.sub(" ", content).strip().casefold()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class DedupDecision:
    duplicate_of: int | None  # index into the candidates, or None for "new"
    similarity: float | None


def decide(similarities: list[float], threshold: float) -> DedupDecision:
    """Pick the most similar candidate at or above threshold, if any."""
    if not similarities:
        return DedupDecision(None, None)
    best = max(range(len(similarities)), key=similarities.__getitem__)
    if similarities[best] >= threshold:
        return DedupDecision(best, similarities[best])
    return DedupDecision(None, similarities[best])


def first_duplicate_in_batch(vectors: np.ndarray, threshold: float) -> list[int | None]:
    """For each row, the earlier row it duplicates (at threshold), else None.

    Bulk imports must not store two near-copies that arrive in the same batch.
    """
    if len(vectors) == 0:
        return []
    sims = vectors @ vectors.T
    result: list[int | None] = []
    for i in range(len(vectors)):
        earlier = sims[i, :i]
        j = int(np.argmax(earlier)) if i else -1
        if i and earlier[j] >= threshold:
            # Point at the earliest original, not at another duplicate.
            result.append(result[j] if result[j] is not None else j)
        else:
            result.append(None)
    return result
