"""What each MCP tool does, synchronously, for one owner: validate the arguments with the
REST API's own serializers, call the same services and selectors, and answer in compact
text an agent can cite. Every memory is shown with its handle (the last 8 hex digits of
its id, accepted back wherever an id is asked for) and its full id.

An argument the API would refuse raises `Refused` with the API's message; the server
turns it into an MCP tool error.
"""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from rest_framework import serializers

from codegraph import api as code_api
from codegraph import selectors as code_selectors
from codegraph import services as code_services
from engram_site.db.replicas import replica_reads
from memories import selectors
from memories.api.errors import as_api_validation_error, flatten
from memories.api.maintenance import ContradictionResolve
from memories.api.observe import Observe
from memories.api.views import (
    MemoryContext,
    MemoryFeedback,
    MemoryListCreate,
    MemoryRelated,
    MemorySearch,
    RecallFiltersInput,
    scope_field,
    shared_with,
)
from memories.capture.observe import observe as observe_service
from memories.jobs import JobAlreadyActive, start_job
from memories.maintenance.contradictions import ResolutionError, resolve_contradiction
from memories.models import ContradictionStatus, JobKind, Memory, Scope
from memories.selectors import (
    EVERYWHERE,
    NoSuchProject,
    NotAllowed,
    OutOfProject,
    Reach,
    handle_of,
)
from memories.services.context import UNREVIEWED, assemble_context
from memories.services.editing import FeedbackTooSoon, delete_memory, give_feedback
from memories.services.recall import recall
from memories.services.remembering import DuplicateMemory, remember
from reflection.api import Reflect

SNIPPET_CHARS = 240
ECHOED_CHARS = 80
INDEX_SIZE = 30
CONTRADICTIONS_SHOWN = 20


class Refused(Exception):
    """A call the API would refuse too; the message says why and what to send instead."""


def _every_field(detail) -> str:
    message, fields = flatten(detail)
    if not fields:
        return message
    return "; ".join(f"{name}: {' '.join(messages)}" for name, messages in fields.items())


def refusals(work):
    """Run `work()`, turning every refusal the API knows into `Refused` with its message."""
    try:
        return work()
    except DjangoValidationError as exc:
        raise Refused(_every_field(as_api_validation_error(exc).detail)) from None
    except serializers.ValidationError as exc:
        raise Refused(_every_field(exc.detail)) from None
    except (DuplicateMemory, JobAlreadyActive, ResolutionError, FeedbackTooSoon,
            OutOfProject, NotAllowed, NoSuchProject) as exc:
        raise Refused(str(exc)) from None
    except (OperationalError, InterfaceError):
        raise Refused("The database is unavailable; retry shortly.") from None


def _validated(serializer_class, arguments: dict) -> dict:
    data = serializer_class(data=arguments)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


def _echoed(reference: str) -> str:
    """`reference` quoted, as a refusal gives it back: its first ECHOED_CHARS characters,
    so a megabyte sent is not a megabyte answered and logged."""
    return repr(reference[:ECHOED_CHARS]) + ("…" if len(reference) > ECHOED_CHARS else "")


def _one(rows, reference: str, what: str):
    found = selectors.by_reference(rows, str(reference))
    if not found:
        raise Refused(f"No {what} {_echoed(reference)} for this owner: send its full id or "
                      "its 8-character handle.")
    if len(found) > 1:
        raise Refused(f"The handle {_echoed(reference)} names more than one {what}: send the "
                      "full id.")
    return found[0]


def _readable_memory(owner, reference: str, reach: Reach) -> Memory:
    """Among the memories `owner` reads (their own, their projects', system ones); the
    services refuse a change their role does not allow. Deleted ones too, as in the REST
    API: deleting again or giving feedback is harmless."""
    return _one(reach.memories(Memory.objects.readable_by(owner).defer("embedding",
                                                                       "search_vector")),
                reference, "memory")


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS - 1] + "…"


def _unreviewed_label(memory: Memory, unreviewed: set) -> list[str]:
    return [UNREVIEWED] if memory.pk in unreviewed else []


def describe(memory: Memory, *details: str) -> str:
    """Two lines: the handle and the text, then what it is and its full id."""
    facts = [memory.kind, *([f"project {memory.project}"] if memory.project else []),
             *([f"shared ({memory.scope})"] if memory.scope != Scope.PRIVATE else []),
             f"importance {memory.importance:g}", *details, f"id {memory.pk}"]
    if memory.tags:
        facts.insert(-1, "tags " + ",".join(memory.tags))
    return f"[{handle_of(memory.pk)}] {_snippet(memory.content)}\n    " + " · ".join(facts)


def _numbered(lines: list[str]) -> str:
    return "\n".join(f"{n}. {line}" for n, line in enumerate(lines, 1))


# The recall filters memory_search offers (its agent_id and session_id say who asks).
SEARCH_FILTERS = ("project", "tags", "kinds", "memory_types", "min_importance",
                  "include_superseded")


@replica_reads()  # a streaming replica may answer (docs/SCALING.md)
def search(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(MemorySearch.SearchInput, {
        **{k: v for k, v in arguments.items() if k not in SEARCH_FILTERS},
        "filters": {k: v for k, v in arguments.items() if k in SEARCH_FILTERS}})
    hits = recall(owner=owner, query=given["query"], limit=given["limit"],
                  filters=reach.recall(RecallFiltersInput.to_filters(given.get("filters", {}))),
                  track=True,
                  agent_id=given["agent_id"], session_id=given["session_id"])
    if not hits:
        return f"No memory matches {given['query']!r}."
    unreviewed = selectors.unreviewed_insights(hit.memory for hit in hits)
    return f"{len(hits)} memories for {given['query']!r}, best first:\n" + _numbered(
        [describe(hit.memory, f"score {hit.score:.2f}",
                  *_unreviewed_label(hit.memory, unreviewed)) for hit in hits])


@replica_reads()
def context(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(MemoryContext.ContextInput, arguments)
    built = assemble_context(
        owner=owner, query=given["query"], max_tokens=given["max_tokens"], fmt=given["format"],
        session_id=given["session_id"], agent_id=given["agent_id"],
        filters=reach.recall(selectors.RecallFilters(
            project=given.get("project"), valid_at=given.get("valid_at"),
            include_superseded=given["include_superseded"])),
        min_score=given.get("min_score"), reach=reach)
    # The text names memories by reference; the tools take a handle or an id.
    cited = ", ".join(f"[{ref}] = {handle_of(hit.memory.pk)}"
                      for ref, hit in enumerate(built.used, 1))
    return (f"{built.context}\n\n({len(built.used)} memories, {built.tokens_used} tokens"
            f"{', truncated' if built.truncated else ''}; handles: {cited or 'none'})")


def remember_memory(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(MemoryListCreate.CreateInput, arguments)
    reject = given.pop("on_duplicate") == "reject"
    given["project"] = reach.project_for(given["project"]) or ""
    given["shared_with"] = shared_with(owner, given["scope"], given["project"],
                                       given.pop("project_creator", None))
    result = remember(owner=owner, reject_duplicates=reject, **given)
    if result.created:
        return "Remembered:\n" + describe(result.memory)
    return (f"Strengthened an existing memory (similarity {result.similarity:.2f}) instead "
            "of storing a near-duplicate:\n" + describe(result.memory))


def observe(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(Observe.ObserveInput, arguments)
    given["project"] = reach.project_for(given["project"]) or ""
    observed = observe_service(owner=owner, **given)
    observation = observed.observation
    if not observed.created:
        return (f"Already observed as job {observation.pk} ({observation.status}); "
                "nothing new was stored.")
    return (f"Observation job {observation.pk} queued ({len(given['messages'])} messages, "
            f"{len(given['tool_events'])} tool events): memories are extracted in the "
            "background.")


def feedback(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    memory = _readable_memory(owner, arguments.pop("memory"), reach)
    given = _validated(MemoryFeedback.FeedbackInput, arguments)
    memory = give_feedback(memory, by=owner, **given)
    return (f"Noted {given['signal']} for [{handle_of(memory.pk)}] (helpful "
            f"{memory.helpful_count}, harmful {memory.harmful_count}).")


class ForgetInput(serializers.Serializer):
    """What memory_forget takes beside the memory (the REST delete takes no agent id)."""

    agent_id = scope_field()


def forget(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    memory = _readable_memory(owner, arguments.pop("memory"), reach)
    memory = delete_memory(memory, by=owner, **_validated(ForgetInput, arguments))
    return (f"Deleted [{handle_of(memory.pk)}] {memory.pk}; it no longer comes up in "
            "recall and can be restored from the dashboard.")


def related(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    memory = _readable_memory(owner, arguments.pop("memory"), reach)
    rows = selectors.related_memories(memory, reader=owner, reach=reach, **_validated(
        MemoryRelated.RelatedInput, arguments))
    if not rows:
        return f"Nothing is linked to [{handle_of(memory.pk)}]."
    unreviewed = selectors.unreviewed_insights(other for other, _, _ in rows)
    return f"{len(rows)} memories linked to [{handle_of(memory.pk)}], nearest first:\n" + \
        _numbered([describe(other, f"{hop} hop{'s' if hop > 1 else ''}",
                            relation or "linked", *_unreviewed_label(other, unreviewed))
                   for other, hop, relation in rows])


def reflect(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    reach.refuse_unscoped("reflection")
    given = _validated(Reflect.ReflectInput, arguments)
    job = start_job(JobKind.REFLECT, owner=owner, dry_run=given["dry_run"])
    return (f"Reflection job {job.pk} queued{' (dry run)' if job.dry_run else ''}: its "
            "insights appear on the dashboard's reflection screen when it is done.")


def _describe_contradiction(contradiction) -> str:
    return (f"[{handle_of(contradiction.pk)}] {_snippet(contradiction.reason)} "
            f"(confidence {contradiction.confidence:.2f}, id {contradiction.pk})\n"
            f"   A: {describe(contradiction.memory_a)}\n"
            f"   B: {describe(contradiction.memory_b)}")


def contradictions(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    queue = reach.contradictions(
        selectors.contradiction_queue(owner, status=ContradictionStatus.OPEN))
    shown = list(queue[:CONTRADICTIONS_SHOWN])
    if not shown:
        return "No open contradictions."
    total = queue.count() if len(shown) == CONTRADICTIONS_SHOWN else len(shown)
    return (f"{total} open contradictions, oldest first; resolve one with memory_resolve "
            "(a_wins, b_wins, both_valid or merged):\n" +
            _numbered([_describe_contradiction(c) for c in shown]))


def resolve(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    contradiction = _one(reach.contradictions(selectors.contradictions_of(owner)),
                         arguments.pop("contradiction"), "contradiction")
    resolved = resolve_contradiction(contradiction, by=owner,
                                     **_validated(ContradictionResolve.ResolveInput,
                                                  arguments))
    merged = f"; merged into [{handle_of(resolved.merged_into_id)}] {resolved.merged_into_id}" \
        if resolved.merged_into_id else ""
    return f"Resolved [{handle_of(resolved.pk)}] as {resolved.resolution}{merged}."


def projects(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    found = selectors.with_members(selectors.projects_of(owner))
    if reach.restricted:
        found = found.filter(name=reach.project)
    found = list(found)
    if not found:
        return "You are a member of no project: every memory you write is private."
    return (f"{len(found)} projects; owners and editors write their memories (memory_remember "
            "with scope project), readers read them:\n" + _numbered([
                f"{p.name} (created by {p.creator_name}): you are {p.role}; members "
                + ", ".join(f"{m.user.username} ({m.role})" for m in p.members)
                for p in found]))


def index(owner, project: str, *, reach: Reach = EVERYWHERE) -> str:
    project = reach.project_for(project)  # a restricted key's own when none is named
    memories = selectors.project_index(owner, project, limit=INDEX_SIZE)
    if not memories:
        return f"No memories in project {project!r} yet."
    unreviewed = selectors.unreviewed_insights(memories)
    return (f"Project {project!r}: its {len(memories)} most important memories\n" +
            _numbered([describe(memory, *(["pinned"] if memory.pinned else []),
                                *_unreviewed_label(memory, unreviewed))
                       for memory in memories]))


# -- The code graph (codegraph/): the /api/v1/code/ endpoints' serializers and selectors.

def _code_given(serializer_class, arguments: dict, reach: Reach) -> dict:
    given = _validated(serializer_class, arguments)
    given["project"] = reach.project_for(given.get("project"))
    if not given["project"]:
        raise Refused("project: name the project.")
    return given


def _code_file(owner, given: dict):
    found = code_selectors.file_at(owner, given["project"], given["path"])
    if found is None:
        raise Refused(f"{given['path']!r} is not indexed in project {given['project']!r}.")
    return found


def code_definitions(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _code_given(code_api.SymbolInput, arguments, reach)
    found = list(code_selectors.definitions(owner, given["project"], given["symbol"])
                 [:given["limit"]])
    if not found:
        return f"No function or class {given['symbol']!r} in project {given['project']!r}."
    return _numbered([f"{d.file.path}:{d.line} {d.kind} {d.qualified_name}"
                      + (f" — {d.signature}" if d.signature else "") for d in found])


def code_callers(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _code_given(code_api.SymbolInput, arguments, reach)
    found = list(code_selectors.callers(owner, given["project"], given["symbol"])
                 [:given["limit"]])
    if not found:
        return f"No calls to {given['symbol']!r} in project {given['project']!r}."
    return _numbered([
        f"{e.file.path}:{e.line} in {e.source.qualified_name if e.source else '(top level)'}: "
        f"{e.target_text}() " + (f"→ {e.target.file.path}:{e.target.qualified_name}"
                                 if e.target else "(matched by name only)") for e in found])


def _first(found, line, indent: str = "", offset: int | None = None) -> list[str]:
    """The lines of MAX_RESULTS of a listing from `offset`, and how many more there are: a
    generated file's 50,000 symbols were a 2 MB answer, and a module imported by 800
    files read as imported by 500. With an `offset` (a tool that pages), the last line
    says where the next page starts."""
    start = offset or 0
    shown = list(found[start:start + code_api.MAX_RESULTS])
    more = (found.count() - start - len(shown)) if len(shown) == code_api.MAX_RESULTS else 0
    after = f" (offset {start + len(shown)} for the next)" if offset is not None else ""
    return [indent + line(item) for item in shown] + ([f"{indent}… and {more} more{after}"]
                                                      if more else [])


def code_file(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _code_given(code_api.FileContentsInput, arguments, reach)
    found = _code_file(owner, given)
    return f"{found.path} ({found.language}, {found.lines} lines):\n" + "\n".join(_first(
        code_selectors.file_contents(found), lambda s: f"{s.line}: {s.kind} {s.qualified_name}"
        + (f" — {s.signature}" if s.signature and s.kind != "import" else ""), "  ",
        offset=given["offset"]))


def code_dependencies(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _code_given(code_api.PathInput, arguments, reach)
    found = code_selectors.dependencies(owner, given["project"], _code_file(owner, given))
    lines = _first(found, lambda e: f"{e.line}: {e.target_text} → "
                   f"{e.target_file.path if e.target_file else '(outside the project)'}")
    return f"{given['path']} imports:\n" + "\n".join(lines) if lines else \
        f"{given['path']} imports nothing."


def code_dependents(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _code_given(code_api.PathInput, arguments, reach)
    found = code_selectors.dependents(owner, given["project"], _code_file(owner, given))
    lines = _first(found, lambda e: f"{e.file.path}:{e.line} ({e.target_text})")
    return "Imported by:\n" + "\n".join(lines) if lines else \
        f"No indexed file imports {given['path']}."


def code_reindex(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _code_given(code_api.ReindexInput, arguments, reach)
    report = code_services.index_sources(owner, given["project"], [
        code_services.SourceFile(f["path"], None if f["deleted"]
                                 else f["content"].encode("utf-8", "surrogatepass"))
        for f in given["files"]], complete=False)
    skipped = "".join(f"; skipped {path}: {why}" for path, why in report.skipped.items())
    return (f"Re-indexed: {report.parsed} parsed, {report.unchanged} unchanged, "
            f"{report.deleted} removed{skipped}. Project {given['project']!r} now has "
            f"{report.counts()}.")
