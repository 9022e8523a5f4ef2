"""What each work-log MCP tool does, synchronously, for one owner: validate with the REST
API's own serializers, call the same selectors, answer in compact text. Refusals raise
`memories.mcp.operations.Refused` through the server's `refusals`."""

from django.utils import timezone

from memories.mcp.operations import _validated
from memories.selectors import EVERYWHERE, Reach

from . import selectors, services
from .api import (
    CoEdits,
    ErrorFixes,
    FileHistory,
    OpenTasks,
    PlanDecompose,
    PlanDeviation,
    PlanNextAction,
    PredictContext,
    ToolSuccessRates,
)


def _project(given: dict, reach: Reach) -> str | None:
    return reach.project_for(given.get("project"))


def file_history(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(FileHistory.Filters, arguments)
    found = selectors.file_history(owner, _project(given, reach), given["path"], given["limit"])
    if not found:
        return f"No work on {given['path']} in the log."
    return "\n".join(
        f"{t.created_at:%Y-%m-%d %H:%M} {t.operation} {t.path}"
        + (f" lines {t.line_start}-{t.line_end}" if t.line_start else "")
        + ("" if t.success else " (failed)")
        + (f" in task: {t.task.description[:120]}" if t.task and t.task.description else "")
        for t in found)


def co_edits(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(CoEdits.Filters, arguments)
    pairs = selectors.co_edits(owner, _project(given, reach), path=given.get("path"),
                               min_count=given["min_count"],
                               window_seconds=given["window_seconds"])
    if not pairs:
        return "No files edited together that often."
    return "\n".join(f"{p.file_a} + {p.file_b}: {p.count} tasks" for p in pairs)


def tool_success_rates(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(ToolSuccessRates.Filters, arguments)
    rates = selectors.tool_success_rates(owner, _project(given, reach), now=timezone.now(),
                                         days=given["days"])
    if not rates:
        return f"No tool runs in the last {given['days']} days."
    return "\n".join(f"{r['tool_name']}: {r['successes']}/{r['total']} succeeded "
                     f"({r['success_rate']:.0%})" for r in rates)


def open_tasks(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(OpenTasks.Filters, arguments)
    tasks = selectors.open_tasks(owner, _project(given, reach),
                                 session_id=given.get("session_id"))
    if not tasks:
        return "Nothing active or paused."
    return "\n".join(f"[{t.status}] {t.started_at:%Y-%m-%d %H:%M} "
                     f"{t.description[:200] or '(no prompt yet)'}"
                     + (f" (files: {', '.join(t.files_touched[:8])})" if t.files_touched else "")
                     for t in tasks)


def error_fixes(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(ErrorFixes.Filters, arguments)
    found = selectors.error_fix_patterns(owner, _project(given, reach),
                                         error_text=given.get("error_text", ""))
    if not found:
        return "No error -> fix pattern like that."
    return "\n".join(f"{services.pattern_text(p)} (seen {p.observed_count}x, confidence "
                     f"{p.confidence:.2f})" for p in found)


def predict(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(PredictContext.PredictInput, arguments)
    found = PredictContext.predict(owner, given, reach)
    if not found.items:
        return "Nothing predicted from these signals."
    return f"{found.context}\n\n({len(found.items)} items, {found.tokens} tokens)"


def plan_deviation(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(PlanDeviation.DeviationInput, arguments)
    found = PlanDeviation.decide(owner, given, reach)
    verdict = "Replan" if found["deviate"] else "Keep the plan"
    return f"{verdict}: {found['reason']} (decided by {found['decided_by']})" + (
        f"; {found['note']}" if found["note"] else "")


def _outline(plan: dict, depth: int = 0) -> list[str]:
    lines = [f"{'  ' * depth}- {plan['goal']} ({plan['minutes']} min)"]
    for sub in plan["subplans"]:
        lines += _outline(sub, depth + 1)
    return lines


def plan_decompose(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(PlanDecompose.DecomposeInput, arguments)
    found = PlanDecompose.decompose(owner, given, reach)
    return "\n".join(_outline(found["plan"])) + (
        f"\n(decided by {found['decided_by']}, {found['model_calls']} model calls"
        + (f"; {found['note']}" if found["note"] else "") + ")")


def plan_next_action(owner, arguments: dict, *, reach: Reach = EVERYWHERE) -> str:
    given = _validated(PlanNextAction.NextActionInput, arguments)
    found = PlanNextAction.choose(owner, given, reach)
    lines = [f"Do next: [{found['selected']['type']}] {found['selected']['description']}"]
    lines += [f"  {c['value']:.2f} [{c['type']}] {c['description']}"
              for c in found["candidates"]]
    return "\n".join(lines) + f"\n(proposed by {found['proposed_by']})"
