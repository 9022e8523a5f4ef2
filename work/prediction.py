"""Predictive context (seed 001 "Predictive Context Engine"): from what an agent can see
now (the project, the file opened, files named in the prompt, the branch, the error in
the console, the activity) what it is likely to need next, within a token budget.

Sections, in the order they claim the budget (seed 001's tiers: critical first):
the active task and fixes of errors like the one seen; memories about the files (and
their code-graph neighbours) and the files co-edited with them; memories about the
branch; the workflow for the activity.
"""

import re
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.conf import settings

import codegraph.selectors
from memories.engine.context import Block, count_tokens, pack
from memories.models import Kind
from memories.selectors import EVERYWHERE, Reach, RecallFilters
from memories.services.context import UNREVIEWED, reviewed_for_agents
from memories.services.recall import recall

from . import engine, selectors
from .services import pattern_text

DEFAULT_BUDGET = 1500
MAX_BUDGET = 8000  # seed 001: the whole memory context budget
MEMORIES_PER_FILE = 3
MAX_FILES = 5
NEIGHBOURS_PER_FILE = 3
CO_EDIT_MIN_COUNT = 1  # for prediction one shared task is a hint (the query asks for 3)
ERROR_MIN_SIMILARITY = 0.3

# Section priorities: higher claims the budget first.
PRIORITY = {"active_task": 100, "error_fix": 90, "error_memory": 80, "file_memory": 70,
            "co_edited": 65, "file_history": 60, "branch_memory": 55, "workflow": 50}


@dataclass(frozen=True)
class Signals:
    project: str | None
    file_opened: str = ""
    files: tuple[str, ...] = ()
    branch: str = ""
    error_text: str = ""
    activity: str = ""
    session_id: str = ""
    prompt: str = ""  # the files it names count as opened; it stands in for the activity
    exclude: frozenset[str] = frozenset()  # keys of items the agent was already given

    def paths(self) -> list[str]:
        found = []
        for path in (self.file_opened, *self.files, *engine.files_mentioned(self.prompt)):
            path = engine.relative_path(path, self.project or "") if path else ""
            if path and path not in found:
                found.append(path)
        return found[:MAX_FILES]


@dataclass(frozen=True)
class Predicted:
    section: str
    text: str
    tokens: int
    ref: str = ""  # the file path or memory id it is about
    memory_id: str = ""
    score: float = 0.0

    @property
    def key(self) -> str:
        """Names the item across calls, so a session is not handed it twice."""
        return self.memory_id or f"{self.section}:{self.ref}:{self.text[:80]}"


@dataclass
class Prediction:
    items: list[Predicted] = field(default_factory=list)
    tokens: int = 0
    budget: int = DEFAULT_BUDGET
    left_out: int = 0

    @property
    def context(self) -> str:
        return engine.render_prediction([(i.section, i.text) for i in self.items])


def graph_neighbours(owner, project: str | None, path: str, limit: int) -> list[str]:
    """The files the code graph says `path` imports or is imported by: the one place
    prediction asks the graph. A project never indexed has none, and a file's neighbours
    are then the files co-edited with it in the work log."""
    if project is None:
        return []
    return codegraph.selectors.related_files(owner, project, path, limit)


def predict(owner, signals: Signals, *, budget: int = DEFAULT_BUDGET,
            now: datetime, reach: Reach = EVERYWHERE) -> Prediction:
    """What `owner` will likely need for `signals`; memories only within `reach` (a key
    restricted to a project is given none of no project, as in recall)."""
    project = signals.project
    filters = reach.recall(RecallFilters(project=project, with_general=True)
                           if project is not None else RecallFilters())
    candidates: list[tuple[float, Predicted]] = []
    seen: set[str] = set()

    def add(section, text, ref="", memory_id="", score=0.0):
        item = Predicted(section, text, count_tokens(text) + 4, ref, memory_id, round(score, 4))
        if item.key in seen or item.key in signals.exclude:
            return
        seen.add(item.key)
        candidates.append((PRIORITY[section] + score, item))

    def memories(section, query, ref, limit, kinds=()):
        if not query.strip():
            return
        # An insight no person has approved comes labelled, as in every context, or not
        # at all while approval is required.
        hits, unreviewed = reviewed_for_agents(recall(
            owner=owner, query=query[:2000], limit=limit, now=now,
            filters=replace(filters, kinds=tuple(kinds))))
        for hit in hits:
            # Among the few memories of one kind (workflows), a shared word is enough:
            # "release" names `release: test → build → ...` though the meaning is far.
            if hit.breakdown.match >= settings.ENGRAM_CONTEXT_MIN_SCORE or (
                    kinds and hit.breakdown.keyword_rank is not None):
                text = hit.memory.content + (f" ({UNREVIEWED})"
                                             if hit.memory.pk in unreviewed else "")
                add(section, text, ref, str(hit.memory.pk), hit.score)

    for task in selectors.open_tasks(owner, project, session_id=signals.session_id or None,
                                     limit=1):
        files = ", ".join(task.files_touched[:8])
        add("active_task", f"{task.status} task: {task.description[:300]}"
            + (f" (files: {files})" if files else ""), f"task:{task.pk}")

    if signals.error_text.strip():
        for pattern in selectors.error_fix_patterns(owner, project, error_text=signals.error_text,
                                                    min_similarity=ERROR_MIN_SIMILARITY, limit=3):
            add("error_fix", pattern_text(pattern), f"pattern:{pattern.pk}",
                score=pattern.similarity)
        memories("error_memory", signals.error_text, "error", 3)

    for path in signals.paths():
        memories("file_memory", _file_query(path), path, MEMORIES_PER_FILE)
        for neighbour in graph_neighbours(owner, project, path, NEIGHBOURS_PER_FILE):
            memories("file_memory", _file_query(neighbour), neighbour, 1)
        for other, count in selectors.co_edited_with(owner, project, path,
                                                     min_count=CO_EDIT_MIN_COUNT, limit=5):
            add("co_edited", f"{other} is usually edited with {path} ({count} tasks)", other,
                score=min(1.0, count / 5))
        for touch in selectors.file_history(owner, project, path, limit=1):
            if touch.task and touch.task.description:
                add("file_history", f"last {touch.operation} of {path} "
                    f"{touch.created_at:%Y-%m-%d}, in task: {touch.task.description[:200]}",
                    path)

    if signals.branch.strip():
        memories("branch_memory", _branch_query(signals.branch), f"branch:{signals.branch}", 3)
    activity = signals.activity.strip() or signals.prompt.strip()
    if activity:
        memories("workflow", activity, f"activity:{activity[:100]}", 2, kinds=(Kind.WORKFLOW,))

    ordered = [item for _, item in sorted(candidates, key=lambda c: -c[0])]
    packed = pack([Block(i, item.text, item.tokens) for i, item in enumerate(ordered)], budget)
    return Prediction([ordered[block.id] for block in packed.included], packed.used, budget,
                      len(packed.skipped))


def _file_query(path: str) -> str:
    """A file's path and the words in it (`app/auth_tokens.py` -> also `auth tokens`),
    so memories naming the module or the file both match."""
    words = " ".join(re.split(r"[_\W]+", path))
    return f"{path} {words}"


def _branch_query(branch: str) -> str:
    """`feature/ENG-42-login-rate-limit` -> `login rate limit ENG-42`."""
    name = branch.rpartition("/")[2] if "/" in branch else branch
    ticket = re.search(r"[A-Za-z]+-\d+", name)
    words = re.sub(r"[A-Za-z]+-\d+", " ", name)
    return " ".join(re.split(r"[-_.\s]+", words) + ([ticket.group(0)] if ticket else [])).strip()
