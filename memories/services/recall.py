"""Recall: the owner's memories that matter most for a query, and the record of what was
handed out (access counts, recency, usage events)."""

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from .. import selectors
from ..engine import dates, dense_query, ranker
from ..engine.ranking import Candidate, Ranked, ScoreBreakdown, rank
from ..models import Kind, Memory, MemoryType, UsageEvent, UsageKind
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError

log = logging.getLogger(__name__)


MAX_RECALL_LIMIT = 100


@dataclass
class Recalled:
    """A recalled memory and why it ranks where it does."""

    memory: Memory
    breakdown: ScoreBreakdown

    @property
    def similarity(self) -> float | None:  # cosine; None when not found by meaning
        return self.breakdown.similarity

    @property
    def keyword_rank(self) -> int | None:
        return self.breakdown.keyword_rank

    @property
    def score(self) -> float:
        return self.breakdown.final


def recall(*, owner, query: str, limit: int = 10,
           filters: selectors.RecallFilters | None = None,
           exclude_ids: Sequence = (), track: bool = False, agent_id: str = "",
           session_id: str = "", now: datetime | None = None) -> list[Recalled]:
    """The owner's memories that matter most for `query`, best first.

    Hybrid retrieval: dense, keyword (BM25) and graph candidates from one query, then
    the engine's fusion and three-factor re-rank (recency, importance with feedback,
    relevance). When the embedding provider is down the dense list is simply absent,
    so recall degrades to keywords instead of failing. With `track`, the returned
    memories count as retrieved (access count, recency, a usage event).
    """
    errors = {}
    if not isinstance(query, str) or not query.strip():
        errors["query"] = ["The query is empty."]
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL_LIMIT:
        errors["limit"] = [f"limit must be a whole number from 1 to {MAX_RECALL_LIMIT}."]
    filters = filters or selectors.RecallFilters()
    for name, values, allowed in (("memory_types", filters.memory_types, MemoryType.values),
                                  ("kinds", filters.kinds, Kind.values)):
        unknown = [v for v in values if v not in allowed]
        if unknown:
            errors[name] = [(f"Unknown {name}: {', '.join(map(str, unknown))}; use "
                             f"{', '.join(allowed)}.")]
    if errors:
        raise ValidationError(errors)

    now = now or timezone.now()
    ranked, rows, keyword_scale = _ranked_candidates(owner, query, limit=limit,
                                                     filters=filters,
                                                     exclude_ids=exclude_ids, now=now)
    if settings.ENGRAM_RANKER == "learned":
        features = _features(ranked, rows, query, keyword_scale=keyword_scale, now=now)
        ranked = ranker.rerank(ranked, features, _coefficients(),
                               settings.ENGRAM_RANK_WEIGHTS, limit)
    results = [Recalled(rows[r.id].memory(), r.breakdown) for r in ranked[:limit]]
    if track:
        record_retrieval(owner=owner, memories=[r.memory for r in results],
                         agent_id=agent_id, session_id=session_id,
                         scores=[r.score for r in results], now=now)
    return results


def _ranked_candidates(owner, query: str, *, limit: int, filters: selectors.RecallFilters,
                       exclude_ids: Sequence, now: datetime,
                       ) -> tuple[list[Ranked], dict, float | None]:
    """Every candidate of the hybrid query, in the hand-set fusion's order, their rows by
    id, and the query's keyword scale (the BM25 score of a memory holding every query
    term)."""
    provider = get_provider()
    reader = selectors.Reader.of(owner)
    common = dense_query.common_words(query, selectors.common_terms(
        reader, share=dense_query.COMMON_SHARE, minimum=dense_query.COMMON_MINIMUM))
    try:
        vector = provider.embed_query(dense_query.dense_query(query, common))
    except ProviderError as exc:
        log.warning("recall falls back to keyword search: %s", exc)
        vector = None
    pool = max(3 * limit, settings.ENGRAM_CANDIDATES)
    selectors.ensure_vector_index_once(provider.model_id, provider.dimensions)
    found = selectors.hybrid_candidates(
        owner, query=query, vector=vector, model_id=provider.model_id,
        dimensions=provider.dimensions, filters=filters, exclude_ids=exclude_ids,
        dense_k=pool, keyword_k=pool, now=now, reader=reader,
    )
    keyword_scale = found[0].keyword_max if found else None
    ranked = rank(
        [Candidate(id=c.pk, similarity=c.similarity, keyword_score=c.keyword_score,
                   dense_rank=c.dense_rank, keyword_rank=c.keyword_rank,
                   graph_hop=c.graph_hop, graph_from=c.graph_from,
                   linked=tuple(c.graph_linked or ()), importance=c.importance,
                   helpful=c.helpful_count, harmful=c.harmful_count,
                   last_accessed_at=c.last_accessed_at) for c in found],
        now=now, weights=settings.ENGRAM_RANK_WEIGHTS, fusion=settings.ENGRAM_FUSION,
        alpha=settings.ENGRAM_FUSION_ALPHA, cos_floor=settings.ENGRAM_COSINE_FLOOR,
        keyword_gate=settings.ENGRAM_KEYWORD_GATE,
        keyword_gate_full=settings.ENGRAM_KEYWORD_GATE_FULL,
        graph_decay=settings.ENGRAM_GRAPH_DECAY,
        keyword_scale=keyword_scale,
    )
    return ranked, {c.pk: c for c in found}, keyword_scale


def _features(ranked: Sequence[Ranked], rows: dict, query: str, *,
              keyword_scale: float | None, now: datetime) -> np.ndarray:
    """What the learned ranker knows of each candidate (engine/ranker.py's FEATURES, a
    row each), from the candidates' `rows` (selectors.CandidateRow by id)."""
    said = [rows[r.id] for r in ranked]
    matches, own_matches = _date_matches(said, query, now)
    return ranker.describe(ranked, cos_floor=settings.ENGRAM_COSINE_FLOOR,
                           keyword_scale=keyword_scale,
                           texts=[row.content for row in said],
                           dates=matches, own_dates=own_matches,
                           sessions=[row.session_id for row in said], query=query)


def _date_matches(said: Sequence[selectors.CandidateRow], query: str,
                  now: datetime) -> tuple[list[float] | None, list[float] | None]:
    """For a query that names a date, how well each candidate's own date, or a date its
    text names (relative ones resolved against its own date), matches it, and how well
    its own date does where its text names no matching date: a date kept only as the
    memory's `valid_from` that no keyword of the text can show. (None, None) for every
    other query (most: the texts are then not searched for dates at all)."""
    if not said or not dates.names_a_date(query):
        return None, None
    asked = dates.periods_named(query, now.date())
    if not asked:
        return None, None
    matches, own_matches = [], []
    for row in said:
        own = row.valid_from.date()
        by_text = dates.date_match(asked, dates.periods_named(row.content, own))
        by_own = dates.date_match(asked, [dates.day(own)])
        matches.append(max(by_text, by_own))
        own_matches.append(0.0 if by_text else by_own)
    return matches, own_matches


def candidate_features(*, owner, query: str, limit: int = 10,
                       now: datetime | None = None) -> tuple[list, np.ndarray]:
    """The ids of every candidate recall weighs for `query` and their features, for
    training the ranker on what recall really sees (memories/evaluation/ranker_training)."""
    now = now or timezone.now()
    ranked, rows, keyword_scale = _ranked_candidates(owner, query, limit=limit,
                                                     filters=selectors.RecallFilters(),
                                                     exclude_ids=(), now=now)
    return [r.id for r in ranked], _features(ranked, rows, query,
                                             keyword_scale=keyword_scale, now=now)


_loaded: list[ranker.Coefficients] = []


def _coefficients() -> ranker.Coefficients:
    """The committed coefficients, read once per process."""
    if not _loaded:
        _loaded.append(ranker.load())
    return _loaded[0]


def record_retrieval(*, owner, memories: Sequence[Memory], agent_id: str = "",
                     session_id: str = "", scores: Sequence[float | None] = (),
                     now: datetime | None = None) -> None:
    """Returning memories refreshes their recency and counts, and logs a usage event each.

    This runs on every recall, so it is one round trip (the update and the inserts in
    one statement) that does not wait for the disk: usage counts are statistics, and
    losing the last instant of them in a crash harms nothing, while a synchronous commit
    would add a flush to every request. Outside a transaction the two statements sent
    together form one implicit transaction, which SET LOCAL is confined to.
    """
    if not memories:
        return
    now = now or timezone.now()
    scores = list(scores) or [None] * len(memories)
    if len(scores) != len(memories):
        raise ValueError("record_retrieval needs one score per memory, or none.")
    ids = [m.pk for m in memories]
    with connection.cursor() as cursor:
        cursor.execute(_RECORD_RETRIEVAL_SQL, [now, ids, owner.pk, UsageKind.RETRIEVED,
                                               agent_id, session_id, now, ids, scores])


_RECORD_RETRIEVAL_SQL = f"""
    SET LOCAL synchronous_commit TO OFF;
    WITH touched AS (
        UPDATE {Memory._meta.db_table}
        SET access_count = access_count + 1, last_accessed_at = %s
        WHERE id = ANY(%s::uuid[]) RETURNING id)
    INSERT INTO {UsageEvent._meta.db_table}
        (memory_id, owner_id, kind, agent_id, session_id, score, created_at)
    SELECT u.id, %s, %s, %s, %s, u.score, %s
    FROM unnest(%s::uuid[], %s::float8[]) AS u(id, score)
    WHERE u.id IN (SELECT id FROM touched)
"""
