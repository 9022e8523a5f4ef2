"""Retrieval metrics on ranked lists of ids; pure functions, no database."""

from collections.abc import Callable, Hashable, Iterable, Sequence

from memories.engine.context import count_tokens


def estimate_tokens(text: str) -> int:
    """The engine's token count, the one /context budgets with."""
    return count_tokens(text)


def recall_at_k(ranked: Sequence[Hashable], evidence: Sequence[Hashable], k: int) -> float:
    """Fraction of the evidence items whose id is among the first k of `ranked`.

    `evidence` holds one id per evidence turn; two turns merged into one memory both
    count as found when that memory is returned.
    """
    if not evidence:
        raise ValueError("recall@k needs at least one evidence item")
    top = set(ranked[:k])
    return sum(1 for item in evidence if item in top) / len(evidence)


def fits_in_budget(ranked: Sequence[Hashable], evidence: Iterable[Hashable],
                   tokens_of: Callable[[Hashable], int], budget: int = 500) -> bool:
    """True when every evidence item is in the context built from `ranked` in order.

    The context takes memories best first while the running token count stays within
    the budget and stops at the first one that would overflow it (no skipping ahead).
    """
    needed = set(evidence)
    used = 0
    for item in ranked:
        used += tokens_of(item)
        if used > budget:
            break
        needed.discard(item)
        if not needed:
            return True
    return not needed


def hit_at_k(ranked: Sequence[Hashable], target: Hashable, k: int) -> float:
    return 1.0 if target in ranked[:k] else 0.0


def reciprocal_rank(ranked: Sequence[Hashable], target: Hashable, k: int = 10) -> float:
    """1/rank of the target within the first k, else 0 (MRR@k once averaged)."""
    for rank, item in enumerate(ranked[:k], start=1):
        if item == target:
            return 1.0 / rank
    return 0.0


def rrf(rankings: Sequence[Sequence[Hashable]], k: int = 60,
        limit: int | None = None) -> list[Hashable]:
    """Reciprocal rank fusion: score(d) = sum over lists of 1 / (k + rank), rank from 1.

    Ties keep the order in which items were first seen (earlier lists, better ranks).
    """
    scores: dict[Hashable, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    fused = sorted(scores, key=lambda item: -scores[item])  # stable: first-seen order
    return fused if limit is None else fused[:limit]


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
