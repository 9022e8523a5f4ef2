"""Recall: the owner's memories that matter most for a query, and the record of what was
handed out (access counts, recency, usage events)."""

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from .. import selectors
from ..engine.ranking import Candidate, ScoreBreakdown, rank
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
    provider = get_provider()
    try:
        vector = provider.embed_query(query)
    except ProviderError as exc:
        log.warning("recall falls back to keyword search: %s", exc)
        vector = None
    pool = max(3 * limit, settings.ENGRAM_CANDIDATES)
    selectors.ensure_vector_index_once(provider.model_id, provider.dimensions)
    found = selectors.hybrid_candidates(
        owner, query=query, vector=vector, model_id=provider.model_id,
        dimensions=provider.dimensions, filters=filters, exclude_ids=exclude_ids,
        dense_k=pool, keyword_k=pool, now=now,
    )
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
        keyword_scale=found[0].keyword_max if found else None,
    )[:limit]
    # By id, not by position: a memory deleted since the candidate query is skipped
    # without shifting every other memory's score breakdown.
    breakdowns = {r.id: r.breakdown for r in ranked}
    results = [Recalled(memory, breakdowns[memory.pk])
               for memory in selectors.memories_in_order([r.id for r in ranked])]
    if track:
        record_retrieval(owner=owner, memories=[r.memory for r in results],
                         agent_id=agent_id, session_id=session_id,
                         scores=[r.score for r in results], now=now)
    return results


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
