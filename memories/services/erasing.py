"""Erase: a memory removed for good with every copy of its text, for a leaked secret or a
person's request, where a soft delete (restorable, purged 30 days later) is not enough.

What goes, and how each copy is found:

- the memory row (its embedding, its search vector and, by the BM25 triggers, its
  postings) and, by cascade, its versions (every old text), usage rows, links, entity
  links, contradictions it is part of, its waiting contradiction check;
- the judge's cached verdicts on pairs with it (`JudgedPair`, keyed by a hash of the two
  texts: found by hashing every text it ever had with every text of its owner's);
- entities only it mentioned (their names came from its text) and relationships only it
  stated; other relationships forget it as a source;
- where it came from: the chunks whose `memory_ids` name it (and the chunk its
  `metadata` points at). An observation that gave nothing else is deleted whole. One
  that gave other memories too keeps them and their provenance (ids), but loses the raw
  text of the messages or tool calls behind that chunk, and every chunk that repeated
  that text (chunks overlap) loses its text: the other memories keep their own text;
- its text quoted verbatim in another memory (a consolidation summary, an insight) or
  in a job's result (the forgetting pass lists examples) is replaced by "[erased]"; such
  a memory is re-embedded from what is left, and one that held nothing else is deleted;
- BM25 document counts left at zero, whose term may be a word of the secret;
- the work log's copies (`signals.source_erased`): the tool calls behind the removed raw
  text lose their input, command and error (their tool, outcome and files stay), the
  error fixes learned from those errors go, and prompts, replies, search patterns and
  context-window summaries quoting its text or the removed messages become "[erased]".

What it cites stays and is told: insights citing it are flagged (the `evidence_changed`
signal; reflection's receiver answers with their ids) and consolidation summaries made
from it are marked for rewrite in their metadata. A `PurgeRecord` (reason "erase") keeps
that it happened, by id only; the receipt lists what was removed, counts and ids, never
content.
"""

import logging
import re
import uuid
from datetime import datetime
from json import dumps

from django.db import transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from .. import queue, selectors, signals
from ..engine.chunking import chunk_messages
from ..engine.contradiction import pair_key
from ..engine.dedup import content_hash
from ..models import (
    Contradiction,
    Entity,
    Job,
    JudgedPair,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryVersion,
    ModelCall,
    Observation,
    ObservationChunk,
    PendingCheck,
    PurgeRecord,
    Relationship,
    Status,
    TermDocuments,
    UsageEvent,
    VersionChange,
    readable_by,
)

log = logging.getLogger(__name__)

ERASED = "[erased]"
ERASE_REASON = "erase"
# A piece of an erased text shorter than this is not searched for elsewhere: it would
# match common words in other memories.
MIN_QUOTE = 20
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_LEFT = re.compile(r"[\W_]+")  # what is no text of its own: spaces, punctuation


def _texts_of(memory: Memory) -> set[str]:
    """Every text the memory ever had: its levels now and each version's."""
    texts = {memory.content, memory.summary, memory.compressed}
    for before, after in memory.versions.values_list("before", "after"):
        for state in (before, after):
            if isinstance(state, dict):
                texts.update(v for k, v in state.items()
                             if k in ("content", "summary", "compressed") and isinstance(v, str))
    return {t for t in texts if t and t.strip()}


def _quotes(texts: set[str]) -> list[str]:
    """What counts as a quote of the erased memory: each of its texts whole, and each
    sentence long enough not to be common words; longest first."""
    found = set()
    for text in texts:
        stripped = text.strip()
        if len(stripped) >= MIN_QUOTE:
            found.add(stripped)
        found.update(s.strip() for s in _SENTENCE.split(text) if len(s.strip()) >= MIN_QUOTE)
    return sorted(found, key=len, reverse=True)


_QUOTED = re.compile(r'"([^"\n]+)"|\u201c([^\u201d\n]+)\u201d')


def _quoted_by_derived(memory: Memory, texts: set[str]) -> set[str]:
    """Pieces of its text that what was made from it (the insights citing it, the
    summaries it was consolidated into) quote in quotation marks: a clause, a cause cut
    at "because", a start cut with "…", which no split into sentences finds."""
    derived = Q(links_out__to_memory_id=memory.pk, links_out__relation=LinkRelation.CITES) \
        | Q(links_in__from_memory_id=memory.pk,
            links_in__relation=LinkRelation.CONSOLIDATED_INTO) \
        | Q(metadata__consolidated_from__contains=[str(memory.pk)])
    whole = [" ".join(t.split()) for t in texts]
    found = set()
    for content in Memory.objects.filter(derived, owner_id=memory.owner_id).values_list(
            "content", flat=True).distinct():
        for match in _QUOTED.finditer(content):
            piece = (match.group(1) or match.group(2)).rstrip("\u2026").strip()
            if len(piece) >= MIN_QUOTE and any(piece in text for text in whole):
                found.add(piece)
    return found


def _redact(value, quotes: list[str], texts: set[str]):
    """`value` (text, or JSON) with every quote replaced; a string that is a cut-off
    start of an erased text (a job's example) goes whole. Returns (value, changed)."""
    if isinstance(value, str):
        cut = value.rstrip("…").strip()
        if len(cut) >= MIN_QUOTE and any(t.strip().startswith(cut) for t in texts):
            return ERASED, True
        redacted = value
        for quote in quotes:
            redacted = redacted.replace(quote, ERASED)
        return redacted, redacted != value
    if isinstance(value, dict):
        changed = False
        out = {}
        for key, item in value.items():
            out[key], hit = _redact(item, quotes, texts)
            changed |= hit
        return out, changed
    if isinstance(value, list):
        pairs = [_redact(item, quotes, texts) for item in value]
        return [p[0] for p in pairs], any(p[1] for p in pairs)
    return value, False


def _needles(quotes: list[str], texts: set[str]) -> list[str]:
    """Substrings a row must contain to hold a quote, or a cut-off start of a text."""
    starts = {t.strip()[:MIN_QUOTE] for t in texts if len(t.strip()) >= MIN_QUOTE}
    return sorted(set(quotes) | starts, key=len)


def _scrub(rows, needles, quotes, texts, *, text=(), json=(), now=None) -> set:
    """Replace the quotes in these text and JSON columns of `rows`; the ids changed.
    The database finds the candidates (JSON columns as their text, with the needles as
    JSON would escape them), Python rewrites them."""
    casts = {f"_as_text_{name}": Cast(name, TextField()) for name in json}
    found = Q()
    for needle in needles:
        escaped = dumps(needle, ensure_ascii=False)[1:-1]
        for name in text:
            found |= Q(**{f"{name}__contains": needle})
        for name in casts:
            found |= Q(**{f"{name}__contains": escaped})
    changed = set()
    for row in rows.annotate(**casts).filter(found).only("pk", *text, *json):
        changes = {}
        for name in (*text, *json):
            value, hit = _redact(getattr(row, name), quotes, texts)
            if hit:
                changes[name] = value
        if changes:
            if now is not None:  # a memory: update(), not update_memory (a version would
                changes["updated_at"] = now  # keep the text)
            type(row).objects.filter(pk=row.pk).update(**changes)
            changed.add(row.pk)
    return changed


def _follow_scrubbed(memory_ids: set, by, now: datetime) -> set:
    """The memories that quoted the erased one: their hash and vector follow the text left
    (the vector still encoded the erased words, and ranked them by it), re-embedded once
    the erase commits; one left with nothing but "[erased]" is deleted, with a version,
    so no agent is handed an empty memory. Returns those deleted."""
    emptied = set()
    for memory in Memory.objects.filter(pk__in=memory_ids).only("pk", "content", "status"):
        fields = {"content_hash": content_hash(memory.content), "embedding": None,
                  "embedding_model": ""}
        if not _LEFT.sub("", memory.content.replace(ERASED, "")) \
                and memory.status != Status.DELETED:
            fields["status"] = Status.DELETED
            MemoryVersion.objects.create(
                memory_id=memory.pk, changed_by=by, changed_at=now, change=VersionChange.STATUS,
                before={"status": memory.status}, after={"status": Status.DELETED})
            emptied.add(memory.pk)
        Memory.objects.filter(pk=memory.pk).update(**fields)
    if memory_ids:
        queue.embed_memories(memory_ids)
    return emptied


def _entry(ids) -> dict:
    ids = sorted(str(i) for i in ids)
    return {"count": len(ids), "ids": ids}


def _sources(memory: Memory):
    """The chunks it was extracted from (or strengthened by), by their memory_ids and by
    the observation its metadata names."""
    found = Q(memory_ids__contains=[memory.pk])
    meta = memory.metadata if isinstance(memory.metadata, dict) else {}
    if meta.get("source") == "observation" and meta.get("observation"):
        try:
            found |= Q(observation_id=uuid.UUID(str(meta["observation"])),
                       position=int(meta.get("chunk", -1)))
        except (ValueError, TypeError):
            pass
    return ObservationChunk.objects.filter(found, observation__owner_id=memory.owner_id)


def _chunk_sources(observation: Observation) -> list[tuple[str, int, int]]:
    """Per chunk position, what raw text it was cut from, as chunking.cut_into_chunks
    made it: ("messages", start, stop), or ("tool", index into tool_events, 0)."""
    pieces = [("messages", c.start, c.stop) for c in chunk_messages(
        [(m.get("role", ""), m.get("text", "")) for m in observation.messages])]
    pieces += [("tool", i, 0) for i, e in enumerate(observation.tool_events)
               if not e.get("success", True)]
    return pieces


def _behind(observation: Observation, positions: set[int] | None) -> tuple[set, set]:
    """The indexes of the messages and tool events behind the chunks at `positions`
    (None: all of them, the observation goes whole)."""
    if positions is None:
        return set(range(len(observation.messages))), set(range(len(observation.tool_events)))
    sources = _chunk_sources(observation)
    gone_messages, gone_events = set(), set()
    for position in positions:
        if position < len(sources):
            kind, start, stop = sources[position]
            if kind == "messages":
                gone_messages.update(range(start, stop))
            else:
                gone_events.add(start)
    return gone_messages, gone_events


def _scrub_observation(observation: Observation, positions: set[int], erased_id,
                       report: dict) -> None:
    """Remove the raw text behind the chunks at `positions`, and the text of every chunk
    that repeats it; the chunks stay, with the other memories' ids."""
    sources = _chunk_sources(observation)
    messages, events = list(observation.messages), list(observation.tool_events)
    gone_messages, gone_events = _behind(observation, positions)
    for index in gone_messages:
        messages[index] = {**messages[index], "text": ERASED}
    for index in gone_events:
        events[index] = {**events[index], "input": ERASED, "response": ERASED}
    Observation.objects.filter(pk=observation.pk).update(messages=messages,
                                                         tool_events=events)
    touched = set(positions)
    for position, (kind, start, stop) in enumerate(sources):
        if kind == "messages" and gone_messages.intersection(range(start, stop)) or kind == "tool" and start in gone_events:
            touched.add(position)
    for chunk in observation.chunks.filter(position__in=touched):
        chunk.text = ""
        chunk.last_error = ""
        chunk.memory_ids = [i for i in chunk.memory_ids if i != erased_id]
        chunk.save(update_fields=["text", "last_error", "memory_ids"])
        report["observation_chunks"].add(chunk.pk)
    report["observations"].add(observation.pk)


def _tell_copy_keepers(owner_id, by_observation: dict, whole: dict, texts: set[str],
                       removed: dict, scrubbed: dict) -> None:
    """The apps that keep their own copy of the raw text (the work log: prompts, replies,
    tool calls) let it go (signals.source_erased), told before the observations change;
    what they answer joins the receipt."""
    behind = {o.pk: _behind(o, None if whole[o.pk] else positions)
              for o, positions in by_observation.values()}
    raw = {o.messages[i].get("text", "") for o, _ in by_observation.values()
           for i in behind[o.pk][0]}
    raw = {t for t in raw if isinstance(t, str) and t.strip()} | texts
    quotes = _quotes(raw)
    needles = _needles(quotes, raw)
    answers = signals.source_erased.send(
        sender=Memory, owner_id=owner_id,
        tool_events={o: sorted(events) for o, (_, events) in behind.items() if events},
        scrub=lambda rows, **columns: _scrub(rows, needles, quotes, raw, **columns)
        if needles else set())
    for _, answer in answers:
        for part, tables in (answer or {}).items():
            for name, ids in tables.items():
                (removed if part == "removed" else scrubbed).setdefault(name, set()).update(ids)


def erase_memory(memory: Memory, *, by=None, now: datetime | None = None) -> dict:
    """Erase `memory` and every copy of its text (see the module's docstring); returns
    the receipt: what was removed, scrubbed and flagged, counts and ids, no content."""
    selectors.require_erasable(memory, by)
    now = now or timezone.now()
    with transaction.atomic():
        memory = Memory.objects.select_for_update().get(pk=memory.pk)
        pk, owner_id = memory.pk, memory.owner_id
        texts = _texts_of(memory)
        quotes = sorted(set(_quotes(texts)) | _quoted_by_derived(memory, texts),
                        key=len, reverse=True)
        removed = {name: set() for name in (
            "memories", "versions", "usage_events", "links", "entity_links", "entities",
            "relationships", "contradictions", "judged_pairs", "pending_checks",
            "observations", "observation_chunks")}
        scrubbed = {name: set() for name in (
            "observations", "observation_chunks", "memories", "versions", "relationships",
            "jobs")}
        flagged = {"summaries": set(), "insights": set(), "emptied": set()}

        removed["versions"] = set(memory.versions.values_list("pk", flat=True))
        removed["usage_events"] = set(UsageEvent.objects.filter(memory_id=pk)
                                      .values_list("pk", flat=True))
        links = MemoryLink.objects.filter(Q(from_memory_id=pk) | Q(to_memory_id=pk))
        if by is not None:  # the receipt names only what the eraser reads
            links = links.filter(readable_by(by, "from_memory__"), readable_by(by, "to_memory__"))
        removed["links"] = set(links.values_list("pk", flat=True))
        removed["contradictions"] = set(Contradiction.objects.filter(
            Q(memory_a_id=pk) | Q(memory_b_id=pk)).values_list("pk", flat=True))
        removed["pending_checks"] = set(PendingCheck.objects.filter(memory_id=pk)
                                        .values_list("pk", flat=True))

        # The judge's cached verdicts: keyed by the pair of content hashes.
        hashes = {content_hash(t) for t in texts}
        others = set(Memory.objects.filter(owner_id=owner_id)
                     .values_list("content_hash", flat=True)) | hashes
        keys = {pair_key(mine, other) for mine in hashes for other in others}
        pairs = JudgedPair.objects.filter(owner_id=owner_id, pair_key__in=keys)
        removed["judged_pairs"] = set(pairs.values_list("pk", flat=True))
        pairs.delete()

        # Entities and relationships that came from it.
        links = MemoryEntity.objects.filter(memory_id=pk)
        removed["entity_links"] = set(links.values_list("pk", flat=True))
        entity_ids = set(links.values_list("entity_id", flat=True))
        shared = MemoryEntity.objects.filter(entity_id__in=entity_ids).exclude(memory_id=pk)
        only_here = entity_ids - set(shared.values_list("entity_id", flat=True))
        for edge in Relationship.objects.filter(owner_id=owner_id,
                                                source_memories__contains=[pk]):
            rest = [i for i in edge.source_memories if i != pk]
            if not rest or edge.source_id in only_here or edge.target_id in only_here:
                removed["relationships"].add(edge.pk)
            else:
                Relationship.objects.filter(pk=edge.pk).update(source_memories=rest)
                scrubbed["relationships"].add(edge.pk)
        removed["relationships"] |= set(Relationship.objects.filter(
            Q(source_id__in=only_here) | Q(target_id__in=only_here))
            .values_list("pk", flat=True))
        Relationship.objects.filter(pk__in=removed["relationships"]).delete()

        # Where it came from.
        chunks = list(_sources(memory).select_related("observation"))
        by_observation: dict = {}
        for chunk in chunks:
            by_observation.setdefault(chunk.observation_id, (chunk.observation, set()))[1].add(
                chunk.position)
        whole = {}
        for observation, positions in by_observation.values():
            gave = {i for ids in observation.chunks.values_list("memory_ids", flat=True)
                    for i in ids} - {pk}
            whole[observation.pk] = not gave
        _tell_copy_keepers(owner_id, by_observation, whole, texts, removed, scrubbed)
        for observation, positions in by_observation.values():
            if whole[observation.pk]:
                removed["observation_chunks"] |= set(observation.chunks.values_list(
                    "pk", flat=True))
                removed["observations"].add(observation.pk)
                observation.delete()
            else:
                _scrub_observation(observation, positions, pk, scrubbed)

        # What superseded memories were ended by stays ended (not brought back to life).
        Memory.objects.filter(superseded_by_id=pk, valid_to__isnull=True).update(
            valid_to=now)
        only_here_rows = Entity.objects.filter(pk__in=only_here)
        removed["entities"] = set(only_here)
        removed["memories"] = {pk}
        memory.delete()
        only_here_rows.delete()

        # Quotes of it elsewhere: other memories (summaries, insights) and their
        # versions, observations that repeat it, contradictions' reasons, model call
        # errors, and the results of jobs (the forgetting pass lists examples).
        needles = _needles(quotes, texts)
        if needles:
            mine = Q(owner_id=owner_id)
            scrubbed["memories"] |= _scrub(Memory.objects.filter(mine), needles, quotes,
                                           texts, now=now, text=("content", "summary",
                                                                 "compressed"))
            flagged["emptied"] = _follow_scrubbed(scrubbed["memories"], by, now)
            scrubbed["versions"] |= _scrub(
                MemoryVersion.objects.filter(memory__owner_id=owner_id), needles, quotes,
                texts, json=("before", "after"))
            scrubbed["observations"] |= _scrub(
                Observation.objects.filter(mine), needles, quotes, texts,
                json=("messages", "tool_events"))
            scrubbed["observation_chunks"] |= _scrub(
                ObservationChunk.objects.filter(observation__owner_id=owner_id), needles,
                quotes, texts, text=("text", "last_error"))
            scrubbed["contradictions"] = _scrub(Contradiction.objects.filter(mine), needles,
                                                quotes, texts, text=("reason", "note"))
            scrubbed["judged_pairs"] = _scrub(JudgedPair.objects.filter(mine), needles,
                                              quotes, texts, text=("reason",))
            scrubbed["model_calls"] = _scrub(ModelCall.objects.filter(mine), needles,
                                             quotes, texts, text=("error",))
            scrubbed["jobs"] |= _scrub(
                Job.objects.filter(Q(owner_id=owner_id) | Q(owner__isnull=True)), needles,
                quotes, texts, json=("result", "params"), text=("error",))
        summaries = Memory.objects.filter(owner_id=owner_id,
                                          metadata__consolidated_from__contains=[str(pk)])
        for summary in summaries.only("id", "metadata"):
            summary.metadata = {**summary.metadata, "needs_rewrite":
                                f"it summarises memory {pk}, which was erased"}
            Memory.objects.filter(pk=summary.pk).update(metadata=summary.metadata)
            flagged["summaries"].add(summary.pk)

        # BM25 counts of terms no memory holds any more: the term may be a word of it.
        TermDocuments.objects.filter(owner_id=owner_id, documents__lte=0).delete()

        # What cites it is told (reflection flags its insights and answers with their
        # ids); the memories that quoted it are told too, as edited evidence.
        for _, answer in signals.evidence_changed.send(
                sender=Memory, memory_ids=[pk, *scrubbed["memories"]],
                reason=f"cited memory {pk} was erased", seen_by=by):
            if isinstance(answer, dict):
                flagged["insights"] |= set(answer.get("insights_flagged", ()))

        record = PurgeRecord.objects.create(
            memory_id=pk, owner_id=owner_id, purged_at=now, reason=ERASE_REASON,
            forgotten_at=memory.updated_at if memory.status == "deleted" else None)
    log.info("Erased memory %s of owner %s (record %s)", pk, owner_id, record.pk)
    return {
        "memory_id": str(pk), "erased_at": now.isoformat(), "record": record.pk,
        "erased_by": getattr(by, "pk", None),
        "removed": {name: _entry(ids) for name, ids in removed.items()},
        "scrubbed": {name: _entry(ids) for name, ids in scrubbed.items()},
        "flagged": {name: _entry(ids) for name, ids in flagged.items()},
    }
