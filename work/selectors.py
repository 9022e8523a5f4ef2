"""Reads of the work log: seed 004's "queries we need", each narrowed to one owner and,
unless `project` is None (every project), one project."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Avg, Count, Prefetch, Q, QuerySet

from . import engine
from .models import (
    FileInteraction,
    LearnedPattern,
    Operation,
    PatternKind,
    Task,
    TaskStatus,
    ToolExecution,
)

CO_EDIT_SECONDS = 300  # seed 004: edited within 5 minutes of each other
CO_EDIT_MIN_COUNT = 3  # seed 004: HAVING COUNT(*) >= 3
SUCCESS_RATE_DAYS = 7  # seed 004: tool success over the last 7 days
EDITS = (Operation.EDIT, Operation.WRITE)


def _in(queryset: QuerySet, owner, project: str | None) -> QuerySet:
    queryset = queryset.filter(owner=owner)
    return queryset if project is None else queryset.filter(project=project)


def _path_is(path: str, field: str = "path") -> Q:
    """A stored path naming the same file: equal, or ending in it (`auth.py` asked,
    `app/auth.py` stored), or it ending in the stored one (an absolute path asked)."""
    path = engine.without_dot_slash(path.strip())
    return Q(**{field: path}) | Q(**{f"{field}__endswith": f"/{path}"})


def file_history(owner, project: str | None, path: str, limit: int = 5):
    """"Have I worked on this file before?": its latest interactions, newest first."""
    path = engine.relative_path(path, project or "")
    return list(_in(FileInteraction.objects, owner, project).filter(_path_is(path))
                .select_related("task").order_by("-created_at")[:limit])


@dataclass(frozen=True)
class CoEdit:
    file_a: str
    file_b: str
    count: int  # tasks in which both were edited within the window


def co_edits(owner, project: str | None, *, path: str | None = None,
             min_count: int = CO_EDIT_MIN_COUNT, window_seconds: int = CO_EDIT_SECONDS,
             limit: int = 50) -> list[CoEdit]:
    """"What files are often edited together?" (seed 004): pairs edited (or written) in
    the same task within `window_seconds` of each other, counted once per task, in at
    least `min_count` tasks; with `path`, only the pairs holding that file."""
    table = FileInteraction._meta.db_table
    where, params = ["owner_id = %s"], [owner.pk]
    if project is not None:
        where.append("project = %s")
        params.append(project)
    pair, other, of_file, file_params = "i1.path, i2.path", "i1.path < i2.path", "", []
    if path:
        path = engine.relative_path(path, project or "")
        of_file = f"AND {_same_file_sql('i1.path')}"
        file_params = [path, f"%/{_escape_like(path)}", path]
        # Only the tasks that touched the file are merged into spans: the spans of every
        # task of the project were computed to keep the few holding it.
        where.append(f"task_id IN (SELECT task_id FROM {table} WHERE owner_id = %s "
                     f"AND {_same_file_sql('path')})")
        params += [owner.pk, *file_params]
        pair, other = "LEAST(i1.path, i2.path), GREATEST(i1.path, i2.path)", "i1.path <> i2.path"
    # Pairing edit with edit read the square of each task: one turn of 4,000 edits made
    # 16 million pairs, and the work log, which asks on every load, took 9 s. A file's
    # edits less than the window apart are first merged into one span (`island`); two
    # files then have edits within the window of each other exactly when their spans
    # are less than the window apart (a span has no gap as wide as the window).
    sql = f"""
        WITH edits AS (
          SELECT task_id, path, created_at,
                 CASE WHEN extract(epoch FROM created_at - lag(created_at) OVER (
                        PARTITION BY task_id, path ORDER BY created_at)) < %s
                      THEN 0 ELSE 1 END AS starts
          FROM {table}
          WHERE {' AND '.join(where)} AND task_id IS NOT NULL
            AND operation = ANY(%s) AND success
        ), numbered AS (
          SELECT task_id, path, created_at, SUM(starts) OVER (
                   PARTITION BY task_id, path ORDER BY created_at
                   ROWS UNBOUNDED PRECEDING) AS island
          FROM edits
        ), islands AS (
          SELECT task_id, path, MIN(created_at) AS first, MAX(created_at) AS last
          FROM numbered GROUP BY task_id, path, island
        )
        SELECT {pair}, COUNT(DISTINCT i1.task_id) AS n
        FROM islands i1 JOIN islands i2 ON i1.task_id = i2.task_id AND {other}
         AND extract(epoch FROM GREATEST(i1.first, i2.first) - LEAST(i1.last, i2.last)) < %s
        WHERE TRUE {of_file}
        GROUP BY 1, 2
        HAVING COUNT(DISTINCT i1.task_id) >= %s
        ORDER BY 3 DESC, 1, 2
        LIMIT %s"""
    args = [window_seconds, *params, list(EDITS), window_seconds, *file_params, min_count,
            limit]
    with connection.cursor() as cursor:
        cursor.execute(sql, args)
        return [CoEdit(a, b, n) for a, b, n in cursor.fetchall()]


def _same_file(stored: str, asked: str) -> bool:
    return stored == asked or stored.endswith(f"/{asked}") or asked.endswith(f"/{stored}")


def _same_file_sql(column: str) -> str:
    """`_same_file` in SQL, for the parameters (asked, LIKE pattern ending in it, asked)."""
    return (f"({column} = %s OR {column} LIKE %s ESCAPE '\\' "
            f"OR right(%s, char_length({column}) + 1) = '/' || {column})")


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def co_edited_with(owner, project: str | None, path: str, *, min_count: int = 1,
                   limit: int = 10) -> list[tuple[str, int]]:
    """The files edited with `path` (the other side of each pair), most often first."""
    return [(p.file_b if _same_file(p.file_a, engine.relative_path(path, project or ""))
             else p.file_a, p.count)
            for p in co_edits(owner, project, path=path, min_count=min_count, limit=limit)]


def tool_success_rates(owner, project: str | None, *, now: datetime,
                       days: int = SUCCESS_RATE_DAYS) -> list[dict]:
    """Seed 004's "success rate for this tool" over the last `days`, most used first."""
    rows = (_in(ToolExecution.objects, owner, project)
            .filter(created_at__gt=now - timedelta(days=days))
            .values("tool_name")
            .annotate(total=Count("id"), successes=Count("id", filter=Q(success=True)),
                      avg_duration_ms=Avg("duration_ms"))
            .order_by("-total", "tool_name"))
    return [{**row, "success_rate": round(row["successes"] / row["total"], 3)} for row in rows]


def open_tasks(owner, project: str | None, *, session_id: str | None = None,
               limit: int = 20):
    """"What was I working on?": active and paused tasks, newest first."""
    tasks = _in(Task.objects, owner, project).filter(
        status__in=[TaskStatus.ACTIVE, TaskStatus.PAUSED])
    if session_id:
        tasks = tasks.filter(session_id=session_id)
    return list(tasks.order_by("-started_at")[:limit])


def error_fix_patterns(owner, project: str | None, *, error_text: str = "",
                       min_similarity: float = 0.0, limit: int = 20) -> list[LearnedPattern]:
    """Error -> fix patterns, most observed first; with `error_text`, those whose error
    reads like it (word overlap of the signatures), most alike first."""
    patterns = (_in(LearnedPattern.objects, owner, project)
                .filter(kind=PatternKind.ERROR_FIX).order_by("-observed_count", "-last_seen"))
    if not error_text:  # the work log's table: not every pattern of a year of errors
        return list(patterns[:limit])
    signature = engine.error_signature(error_text)
    scored = [(engine.similarity(signature, p.data.get("signature", "")), p) for p in patterns]
    scored = [(s, p) for s, p in scored if s > min_similarity]
    scored.sort(key=lambda sp: (-sp[0], -sp[1].observed_count))
    for score, pattern in scored:
        pattern.similarity = round(score, 3)
    return [p for _, p in scored[:limit]]


def patterns(owner, project: str | None, *, kind: str | None = None, limit: int = 50):
    found = _in(LearnedPattern.objects, owner, project)
    if kind:
        found = found.filter(kind=kind)
    return list(found.order_by("-confidence", "-observed_count")[:limit])


def timeline(owner, project: str | None, *, path: str | None = None,
             task_id: int | None = None, limit: int = 100,
             touches: int | None = None) -> list[Task]:
    """Tasks newest first with their file interactions as `touches` (the first `touches`
    of each, the number left out as `touches_left`), narrowed to one file or task."""
    tasks = _in(Task.objects, owner, project)
    if task_id is not None:
        tasks = tasks.filter(pk=task_id)
    if path:
        tasks = tasks.filter(pk__in=_in(FileInteraction.objects, owner, project)
                             .filter(_path_is(path)).values("task_id"))
    interactions = FileInteraction.objects.order_by("created_at", "pk")
    found = list(tasks.order_by("-started_at").annotate(
        touched=Count("file_interactions")).prefetch_related(Prefetch(
            "file_interactions", to_attr="touches",
            queryset=interactions if touches is None else interactions[:touches]))[:limit])
    for task in found:
        task.touches_left = task.touched - len(task.touches)
    return found


def projects(owner) -> list[str]:
    return list(Task.objects.filter(owner=owner).order_by("project")
                .values_list("project", flat=True).distinct())
