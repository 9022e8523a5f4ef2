"""The context handed to an agent: recall's best memories for a prompt, marked where they are
disputed, tiered and fenced inside a hard token budget (engine/context.py renders it)."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from .. import selectors
from ..engine.context import FORMATS, ContextMemory, build_context
from ..models import Kind, Memory, MemoryType
from .recall import MAX_RECALL_LIMIT, Recalled, recall, record_retrieval

# Kinds that go to the critical tier while recent, and kinds that are background:
# conventions and preferences an agent should keep in mind (the living-memory tiers).
CRITICAL_KINDS = (Kind.ERROR, Kind.DECISION)


CRITICAL_WINDOW = timedelta(days=14)


BACKGROUND_KINDS = (Kind.PREFERENCE, Kind.INSTRUCTION, Kind.WORKFLOW, Kind.PATTERN)


MAX_CONTEXT_TOKENS = 32_000


@dataclass
class AssembledContext:
    context: str
    tokens_used: int
    truncated: bool
    used: list[Recalled]  # in the order they appear: used[i] is "[i + 1]" in the text
    tiers: dict[str, int]


UNREVIEWED = "Unreviewed insight: machine-written, not yet approved by a person."


def reviewed_for_agents(hits: list) -> tuple[list, set]:
    """The recalled `hits` an agent may be handed, and the ids of the unreviewed insights
    among them (to be labelled): with ENGRAM_INSIGHTS_NEED_APPROVAL, none are kept."""
    unreviewed = selectors.unreviewed_insights(hit.memory for hit in hits)
    if settings.ENGRAM_INSIGHTS_NEED_APPROVAL:
        hits = [hit for hit in hits if hit.memory.pk not in unreviewed]
    return hits, unreviewed


def _annotated(memory: Memory, contradiction, now: datetime, unreviewed: bool,
               readable: set) -> str:
    """The memory's text, with what an agent must know before trusting it: an open
    dispute, an insight no person has approved, or (only when history was asked for)
    that it no longer holds, and what superseded it if that is among the `readable`."""
    notes = [UNREVIEWED] if unreviewed else []
    if contradiction is not None:
        other = (contradiction.memory_b_id if contradiction.memory_a_id == memory.pk
                 else contradiction.memory_a_id)
        notes.append(f"Disputed: contradicts memory {selectors.handle_of(other)}; "
                     "not yet resolved.")
    if memory.superseded_by_id is not None:
        by = (f" by memory {selectors.handle_of(memory.superseded_by_id)}"
              if memory.superseded_by_id in readable else "")
        when = f" on {memory.valid_to:%Y-%m-%d}" if memory.valid_to else ""
        notes.append(f"Superseded{by}{when}; no longer true.")
    elif memory.valid_to is not None and memory.valid_to <= now:
        notes.append(f"No longer true since {memory.valid_to:%Y-%m-%d}.")
    if memory.expires_at is not None and memory.expires_at <= now:
        notes.append(f"Expired on {memory.expires_at:%Y-%m-%d}.")
    if memory.valid_from > now:
        notes.append(f"Not true before {memory.valid_from:%Y-%m-%d}.")
    return "\n".join([memory.content, *(f"({note})" for note in notes)])


def _dated(memory: Memory) -> bool:
    """A date helps where the memory is an event or holds only for a while; for the rest
    it is tokens spent on nothing."""
    return (memory.kind == Kind.EPISODE or memory.memory_type == MemoryType.EPISODIC
            or memory.valid_to is not None or memory.expires_at is not None)


def _tier(hit: Recalled, position: int, shown: int, now: datetime, contested: bool) -> str:
    if contested:  # an open contradiction: the agent must know both sides are in doubt
        return "critical"
    if position >= shown:
        return "index"
    if hit.memory.kind in CRITICAL_KINDS and now - hit.memory.created_at <= CRITICAL_WINDOW:
        return "critical"
    if hit.memory.kind in BACKGROUND_KINDS:
        return "background"
    return "relevant"


def assemble_context(*, owner, query: str, max_tokens: int = 500, fmt: str = "markdown",
                     session_id: str = "", agent_id: str = "",
                     filters: selectors.RecallFilters | None = None,
                     min_score: float | None = None, track: bool = True,
                     now: datetime | None = None,
                     reach: selectors.Reach = selectors.EVERYWHERE) -> AssembledContext:
    """What an agent should know right now, inside a hard token budget.

    Skips memories this session has already seen; injects nothing whose match is below
    min_score (an unrelated prompt gets an empty context, not filler); fences the
    result as data. Large budgets are split into the critical / relevant / background /
    index tiers; a memory in an open contradiction is marked as disputed and, with
    tiers, goes to the critical tier. An insight no person has approved is labelled as
    unreviewed, or left out with ENGRAM_INSIGHTS_NEED_APPROVAL. What is injected counts
    as retrieved for the session, unless `track` is off (a person previewing what an agent would see).
    A superseded memory names its successor only when the owner reads it within `reach`
    (the caller's key), as the API's `superseded_by` does.
    """
    errors = {}
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) \
            or not 1 <= max_tokens <= MAX_CONTEXT_TOKENS:
        errors["max_tokens"] = [(f"max_tokens must be a whole number from 1 to "
                                 f"{MAX_CONTEXT_TOKENS}.")]
    if fmt not in FORMATS:
        errors["format"] = [f"Unknown format {fmt!r}: use one of {', '.join(FORMATS)}."]
    if errors:
        raise ValidationError(errors)
    now = now or timezone.now()
    min_score = settings.ENGRAM_CONTEXT_MIN_SCORE if min_score is None else min_score
    # Enough candidates to fill the budget at ~40 tokens a memory, within recall's limit.
    limit = max(10, min(MAX_RECALL_LIMIT, max_tokens // 40))
    hits = [hit for hit in recall(owner=owner, query=query, limit=limit, filters=filters,
                                  exclude_ids=selectors.surfaced_in_session(owner, session_id), now=now)
            if hit.breakdown.match >= min_score]
    hits, unreviewed = reviewed_for_agents(hits)
    tiered = max_tokens >= settings.ENGRAM_TIER_THRESHOLD
    shown = max(1, (len(hits) * 2) // 3) if tiered else len(hits)
    disputes = selectors.open_contradictions_for(owner, [hit.memory.pk for hit in hits])
    # a successor made private or moved to another project since is not theirs to know of
    readable = selectors.readable_ids(owner, [hit.memory.superseded_by_id for hit in hits],
                                      reach=reach)
    built = build_context(
        [ContextMemory(id=str(hit.memory.pk),
                       date=hit.memory.created_at if _dated(hit.memory) else None,
                       content=_annotated(hit.memory, disputes.get(hit.memory.pk), now,
                                          hit.memory.pk in unreviewed, readable),
                       score=round(hit.score, 4),
                       tier=_tier(hit, i, shown, now, hit.memory.pk in disputes)
                       if tiered else None)
         for i, hit in enumerate(hits)],
        budget=max_tokens, fmt=fmt, now=now, tier_threshold=settings.ENGRAM_TIER_THRESHOLD,
    )
    by_id = {str(hit.memory.pk): hit for hit in hits}
    used = [by_id[memory_id] for memory_id in built.memories_used]
    if track:
        record_retrieval(owner=owner, memories=[hit.memory for hit in used],
                         agent_id=agent_id, session_id=session_id,
                         scores=[hit.score for hit in used], now=now)
    return AssembledContext(context=built.context, tokens_used=built.tokens_used,
                            truncated=built.truncated, used=used, tiers=dict(built.tiers))
