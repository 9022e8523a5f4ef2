"""Hybrid retrieval scoring: fuse dense, keyword and graph hits, then re-rank.

Relevance comes from one of two fusions. "convex" (the default) mixes normalised scores,
alpha * cosine + (1 - alpha) * keyword: rank fusion throws away how far apart the scores
are, and a convex combination of normalised scores beats it (Bruch et al. 2023, "An
Analysis of Fusion Functions for Hybrid Retrieval"). "rrf" is reciprocal rank fusion over
the dense, keyword and graph rank lists. The final score is the three-factor re-rank of
Generative Agents: recency, importance (with feedback) and relevance, each min-max
normalised over the candidates, then a weighted mean.
"""

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from memories.engine.importance import effective_importance

FUSIONS = ("convex", "rrf")


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """One memory found by retrieval, with what each retriever said about it.

    A graph candidate was reached over `graph_hop` links from the memory `graph_from`
    (itself a candidate); with no score of its own it inherits a decayed relevance.
    """

    id: Hashable
    similarity: float | None = None  # cosine similarity to the query, dense retrieval
    keyword_score: float | None = None  # full-text rank score, higher is better
    dense_rank: int | None = None  # 1-based position in the dense list
    keyword_rank: int | None = None  # 1-based position in the keyword list
    graph_hop: int | None = None
    graph_from: Hashable | None = None
    # Candidates one link away (the graph walk's view); each may pass on its relevance.
    linked: tuple[Hashable, ...] = ()
    importance: float
    helpful: int = 0
    harmful: int = 0
    last_accessed_at: datetime


@dataclass(frozen=True, slots=True)
class Weights:
    recency: float = 1.0
    importance: float = 1.0
    relevance: float = 1.0

    def __post_init__(self):
        parts = (self.recency, self.importance, self.relevance)
        if any(w < 0 for w in parts):
            raise ValueError("Ranking weights must not be negative.")
        if sum(parts) == 0:
            raise ValueError("At least one ranking weight must be above zero.")


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """Why a candidate ranks where it does; recency, importance, relevance are 0..1."""

    dense_rank: int | None
    keyword_rank: int | None
    graph_hop: int | None
    similarity: float | None
    keyword_score: float | None
    recency: float
    importance: float
    relevance: float
    final: float
    # Relevance before normalisation over the candidates (convex fusion: 0..1), so it
    # says how well a memory matches at all, not only whether it matches best.
    match: float = 0.0


@dataclass(frozen=True, slots=True)
class Ranked:
    candidate: Candidate
    breakdown: ScoreBreakdown = field(repr=False)

    @property
    def id(self) -> Hashable:
        return self.candidate.id

    @property
    def score(self) -> float:
        return self.breakdown.final


def rrf(ranks: Iterable[int | None], k: int = 60) -> float:
    """Reciprocal rank fusion: the sum of 1 / (k + rank); a list without the item adds 0."""
    _check_k(k)
    total = 0.0
    for rank in ranks:
        if rank is None:
            continue
        if rank < 1:
            raise ValueError(f"Ranks start at 1, got {rank}.")
        total += 1.0 / (k + rank)
    return total


def recency(last_accessed_at: datetime, now: datetime, decay: float = 0.995) -> float:
    """decay ** hours since the last access; an access in the future counts as now."""
    hours = max(0.0, (now - last_accessed_at).total_seconds() / 3600)
    return decay**hours


def min_max(values: Sequence[float], tolerance: float = 0.0) -> list[float]:
    """Scale to 0..1 over the set; when all are equal nothing tells them apart: 0.5 each.

    Values that differ by no more than `tolerance` count as equal: memories written a
    minute apart must not be spread from 0 to 1 on recency alone.
    """
    if not values:
        return []
    low, high = min(values), max(values)
    if high - low <= tolerance:
        return [0.5] * len(values)
    return [(v - low) / (high - low) for v in values]


def normalised_cosine(similarity: float | None, cos_floor: float = 0.0) -> float:
    """Cosine mapped from [cos_floor, 1] to [0, 1] and clipped; no similarity is 0."""
    if similarity is None:
        return 0.0
    return min(1.0, max(0.0, (similarity - cos_floor) / (1.0 - cos_floor)))


def convex_relevance(candidates: Sequence[Candidate], *, alpha: float = 0.7,
                     cos_floor: float = 0.0, graph_decay: float = 0.5,
                     keyword_scale: float | None = None, keyword_gate: float = 0.0,
                     keyword_gate_full: float | None = None) -> list[float]:
    """alpha * norm(cosine) + (1 - alpha) * norm(keyword), graph hits inheriting.

    Keyword scores are divided by `keyword_scale`, the score a memory matching every
    query term once would get (theoretical min-max), clipped to 1: a query that shares
    only a common word with every memory then adds little, instead of its best weak hit
    being blown up to 1. Without a scale they are divided by the best among the
    candidates. When no candidate covers at least `keyword_gate` of that scale, the
    query was asked in other words than the memories use, and relevance is the cosine
    alone (alpha = 1): a stray shared word must not outrank a paraphrase. With
    `keyword_gate_full`, the keyword weight instead grows linearly from nothing at
    `keyword_gate` coverage to the full 1 - alpha at `keyword_gate_full` (a per-query
    weighting: the better the best keyword match, the more keywords count). A candidate
    reached over links gets graph_decay per link times the relevance of the memory it
    came from (graph_decay ** hop when it came straight from a seed).
    """
    _check_fraction("alpha", alpha)
    _check_fraction("graph_decay", graph_decay)
    if cos_floor >= 1:
        raise ValueError("cos_floor must be below 1, the highest cosine similarity.")
    best_keyword = keyword_scale or max((c.keyword_score for c in candidates
                                         if c.keyword_score is not None), default=0.0)
    keywords = ([min(1.0, max(0.0, c.keyword_score or 0.0) / best_keyword)
                 for c in candidates] if best_keyword > 0 else [0.0] * len(candidates))
    coverage = max(keywords, default=0.0)
    if keyword_gate_full is not None and keyword_gate_full > keyword_gate:
        share = min(1.0, max(0.0, (coverage - keyword_gate) / (keyword_gate_full - keyword_gate)))
        alpha = 1.0 - share * (1.0 - alpha)
    elif coverage < keyword_gate:
        alpha = 1.0

    index = {c.id: i for i, c in enumerate(candidates)}
    # Who passes relevance to whom, and at what factor: every linked candidate at one
    # link; without that list, the memory it was reached from, at graph_decay per link
    # between their hops.
    sources: list[list[tuple[int, float]]] = []
    for c in candidates:
        if c.linked:
            sources.append([(index[p], graph_decay) for p in c.linked
                            if p in index and p != c.id])
        elif c.graph_hop is not None and c.graph_from in index and c.graph_from != c.id:
            parent = candidates[index[c.graph_from]]
            links = max(1, c.graph_hop - (parent.graph_hop or 0))
            sources.append([(index[c.graph_from], graph_decay**links)])
        else:
            sources.append([])
    values = [alpha * normalised_cosine(c.similarity, cos_floor) + (1 - alpha) * keyword
              for c, keyword in zip(candidates, keywords)]
    # A weak match of its own must not hide a strong link: each candidate keeps the best
    # of its own relevance and what its links pass on, until nothing changes (values only
    # grow and are bounded, so this ends; cycles cannot feed themselves with decay < 1).
    fed = [i for i, passed in enumerate(sources) if passed]  # most candidates: none
    for _ in range(len(candidates) if fed else 0):
        updated = values.copy()
        for i in fed:
            updated[i] = max([values[i]] + [factor * values[j] for j, factor in sources[i]])
        if updated == values:
            break
        values = updated
    return values


def rrf_relevance(candidates: Sequence[Candidate], *, k: int = 60) -> list[float]:
    """RRF over the dense, keyword and graph lists.

    The graph list is ordered by hop; candidates at the same hop share a rank (1 plus
    the number of graph candidates strictly closer), so the order of arrival does not
    matter.
    """
    hops = [c.graph_hop for c in candidates if c.graph_hop is not None]

    def graph_rank(c: Candidate) -> int | None:
        if c.graph_hop is None:
            return None
        return 1 + sum(1 for h in hops if h < c.graph_hop)

    return [rrf((c.dense_rank, c.keyword_rank, graph_rank(c)), k) for c in candidates]


def rank(candidates: Sequence[Candidate], *, now: datetime, weights: Weights = Weights(),
         fusion: str = "convex", alpha: float = 0.7, k: int = 60, cos_floor: float = 0.0,
         graph_decay: float = 0.5, recency_decay: float = 0.995,
         keyword_scale: float | None = None, keyword_gate: float = 0.0,
         keyword_gate_full: float | None = None,
         recency_tolerance: float = 0.01) -> list[Ranked]:
    """Score and sort the candidates, best first.

    Ties on the final score are broken by relevance, then by id as text, so the same
    input always gives the same order.
    """
    _check_k(k)
    _check_fraction("alpha", alpha)
    _check_fraction("graph_decay", graph_decay)
    if fusion not in FUSIONS:
        raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}, got {fusion!r}.")
    ids = [c.id for c in candidates]
    if len(set(ids)) != len(ids):
        raise ValueError("Each candidate must appear once; merge duplicates before ranking.")
    if not candidates:
        return []

    if fusion == "convex":
        raw_relevance = convex_relevance(candidates, alpha=alpha, cos_floor=cos_floor,
                                         graph_decay=graph_decay, keyword_scale=keyword_scale,
                                         keyword_gate=keyword_gate,
                                         keyword_gate_full=keyword_gate_full)
    else:
        raw_relevance = rrf_relevance(candidates, k=k)
    # 0.01 of recency is two hours at 0.995 an hour: closer than that is "equally recent".
    recencies = min_max([recency(c.last_accessed_at, now, recency_decay) for c in candidates],
                        recency_tolerance)
    importances = min_max([effective_importance(c.importance, c.helpful, c.harmful)
                           for c in candidates])
    relevances = min_max(raw_relevance)

    total_weight = weights.recency + weights.importance + weights.relevance
    ranked = []
    for c, rec, imp, rel, raw in zip(candidates, recencies, importances, relevances,
                                     raw_relevance, strict=True):
        final = (weights.recency * rec + weights.importance * imp
                 + weights.relevance * rel) / total_weight
        ranked.append(Ranked(c, ScoreBreakdown(
            dense_rank=c.dense_rank, keyword_rank=c.keyword_rank, graph_hop=c.graph_hop,
            similarity=c.similarity, keyword_score=c.keyword_score,
            recency=rec, importance=imp, relevance=rel, final=final, match=raw)))
    # UUIDs order as their text does, by their number, without writing out every one.
    as_text = _number if all(isinstance(i, UUID) for i in ids) else str
    ranked.sort(key=lambda r: (-r.breakdown.final, -r.breakdown.relevance, as_text(r.id)))
    return ranked


def _number(pk: UUID) -> int:
    return pk.int


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"The RRF constant k must be at least 1, got {k}.")


def _check_fraction(name: str, value: float) -> None:
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be between 0 and 1, got {value}.")
