"""Patterns in the work log: the co-edit query on a seeded log, error -> fix and workflow
patterns mined from ended tasks, and the strong ones becoming procedural memories."""

import json
import random
from collections import Counter
from datetime import datetime, timedelta, timezone

from django.db import connection
from django.test.utils import CaptureQueriesContext

from memories.models import Kind, Memory, MemoryType
from work import selectors, services
from work.engine import command_head, error_signature
from work.models import (
    FileInteraction,
    LearnedPattern,
    PatternKind,
    Task,
    TaskStatus,
    ToolExecution,
)

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
P = "shop"


def task(owner, *events, project=P, start=T0):
    """A completed task; events are (seconds after start, kind, value[, success[, error]])."""
    t = Task.objects.create(owner=owner, project=project, status=TaskStatus.COMPLETED,
                            started_at=start, last_activity_at=start)
    for seconds, kind, value, *rest in events:
        at = start + timedelta(seconds=seconds)
        if kind == "edit":
            FileInteraction.objects.create(owner=owner, project=project, task=t, path=value,
                                           operation="edit", created_at=at)
        else:
            success, error = (rest + [True, ""])[:2] if rest else (True, "")
            ToolExecution.objects.create(
                owner=owner, project=project, task=t, tool_name="Bash", command=value,
                command_head=command_head(value), success=success, error_message=error,
                error_signature=error_signature(error) if error else "", created_at=at)
    return t


def test_files_edited_together_in_three_tasks_within_five_minutes_are_a_pair(alice, bob):
    for day in range(3):
        task(alice, (0, "edit", "app/auth.py"), (120, "edit", "app/api.py"),
             (200, "edit", "app/auth.py"), start=T0 + timedelta(days=day))
    task(alice, (0, "edit", "app/auth.py"), (400, "edit", "app/models.py"))  # 6 min apart
    task(alice, (0, "edit", "app/auth.py"), (10, "edit", "app/models.py"))  # once only
    task(alice, (0, "edit", "app/auth.py"), (10, "edit", "app/api.py"), project="other")
    task(bob, (0, "edit", "app/auth.py"), (10, "edit", "app/api.py"))

    pairs = selectors.co_edits(alice, P)
    assert [(p.file_a, p.file_b, p.count) for p in pairs] == [("app/api.py", "app/auth.py", 3)]
    assert [(p.file_a, p.count) for p in selectors.co_edits(alice, None)] == [("app/api.py", 4)]
    assert selectors.co_edited_with(alice, P, "auth.py", min_count=1) == [
        ("app/api.py", 3), ("app/models.py", 1)]
    assert selectors.co_edits(bob, P) == []


def test_the_files_edited_with_one_are_read_without_pairing_every_edit_of_its_tasks(
        alice, monkeypatch):
    task(alice, (0, "edit", "app/auth.py"), (5, "edit", "x_y.py"),
         *((n, "edit", f"lib/m{n}.py") for n in range(10, 70)))
    task(alice, (0, "edit", "lib/m10.py"), (5, "edit", "app/auth.py"))
    made, co_edit = [], selectors.CoEdit
    monkeypatch.setattr(selectors, "CoEdit", lambda *pair: made.append(pair) or co_edit(*pair))
    # The asked file on either side of a pair, found by the end of its path.
    assert selectors.co_edited_with(alice, P, "auth.py", min_count=1, limit=2) == [
        ("lib/m10.py", 2), ("lib/m11.py", 1)]
    assert len(made) == 2  # every pair of the task was read: 1,891
    assert selectors.co_edits(alice, P, path="x%y.py", min_count=1) == []  # LIKE's %, _


def test_a_failure_fixed_by_edits_in_three_tasks_becomes_a_procedural_memory(alice):
    tasks = [task(alice, (0, "bash", "python -m pytest tests/test_auth.py", False,
                          f"E   ImportError: cannot import name 'tok{i}' from 'app.auth'"),
                  (30, "edit", "app/auth.py"), (60, "bash", "python -m pytest -q"),
                  start=T0 + timedelta(days=i)) for i in range(3)]
    assert services.learn_from_task(tasks[0].pk)[0].kind == PatternKind.ERROR_FIX
    services.learn_from_task(tasks[1].pk)
    assert not Memory.objects.filter(owner=alice).exists()  # seen twice: not yet
    services.learn_from_task(tasks[2].pk)

    pattern = LearnedPattern.objects.get(kind=PatternKind.ERROR_FIX)
    assert (pattern.observed_count, pattern.confidence) == (3, 0.6)  # 3 / (3 + 2)
    assert pattern.data["fix_files"] == ["app/auth.py"]
    memory = Memory.objects.get(owner=alice)
    assert (memory.memory_type, memory.kind, memory.project) == (
        MemoryType.PROCEDURAL, Kind.ERROR, P)
    assert "python -m pytest" in memory.content and "app/auth.py" in memory.content
    assert pattern.memory_id == memory.pk
    assert services.learn_from_task(tasks[2].pk) == []  # each task is mined once

    found = selectors.error_fix_patterns(alice, P, error_text="ImportError: cannot import "
                                                              "name 'x' from 'app.views'")
    assert [p.pk for p in found] == [pattern.pk]
    assert selectors.error_fix_patterns(alice, P, error_text="KeyError: 'user'",
                                        min_similarity=0.3) == []


def test_a_workflow_repeated_in_three_tasks_is_remembered_as_seed_001_writes_them(alice):
    for day in range(3):
        t = task(alice, (0, "bash", "pytest -q"), (10, "bash", "npm run build"),
                 (20, "bash", "git commit -m release"), start=T0 + timedelta(days=day))
        services.learn_from_task(t.pk)
    memory = Memory.objects.get(owner=alice, kind=Kind.WORKFLOW)
    assert memory.content == "workflow (work): pytest → npm run → git commit"


def test_a_workflow_that_holds_in_few_of_its_chances_is_not_remembered(alice):
    for day in range(6):
        tail = [(10, "bash", "npm run build"), (20, "bash", "git commit -m x")] \
            if day >= 3 else [(10, "bash", "ls")]
        services.learn_from_task(task(alice, (0, "bash", "pytest -q"), *tail,
                                      start=T0 + timedelta(days=day)).pk)
    pattern = LearnedPattern.objects.get(key="pytest → npm run → git commit")
    assert pattern.observed_count == 3 and pattern.confidence < 0.5
    assert not Memory.objects.filter(owner=alice, kind=Kind.WORKFLOW).exists()


def test_the_sweep_mines_ended_tasks_the_queue_missed_and_skips_active_ones(alice):
    ended = task(alice, (0, "edit", "a.py"), (5, "edit", "b.py"))
    active = task(alice, (0, "edit", "a.py"), (5, "edit", "b.py"))
    Task.objects.filter(pk=active.pk).update(status=TaskStatus.ACTIVE)
    assert services.learn_from_ended_tasks() == 1
    assert Task.objects.get(pk=ended.pk).learned_at is not None
    assert LearnedPattern.objects.get(kind=PatternKind.CO_EDIT).observed_count == 1


def test_a_sweep_across_many_files_teaches_no_co_edits_and_costs_the_worker_little(
        alice, django_assert_max_num_queries):
    # A rename across 60 files in one turn: every pair would be a pattern (1,770 of them,
    # each read and written, 16 s of the worker's time), and none says which files belong
    # together.
    sweep = task(alice, *((n, "edit", f"src/m{n}.py") for n in range(60)))
    with django_assert_max_num_queries(20):
        assert services.learn_from_task(sweep.pk) == []
    assert not LearnedPattern.objects.filter(owner=alice).exists()
    assert Task.objects.get(pk=sweep.pk).learned_at is not None


def test_files_edited_hundreds_of_times_in_a_task_are_each_pair_once(alice):
    busy = task(alice, *((n, "edit", f"{'abc'[n % 3]}.py") for n in range(600)))
    learned = services.learn_from_task(busy.pk)
    assert sorted(p.key for p in learned) == ["a.py + b.py", "a.py + c.py", "b.py + c.py"]
    assert {(p.observed_count, p.confidence) for p in learned} == {(1, 0.333)}  # 1 / (1 + 2)


def test_co_edits_pair_exactly_the_files_with_edits_less_than_five_minutes_apart(alice):
    # Edits merged into spans must pair as edit against edit would: a span longer than
    # the window, one file's edits straddling another's, and a gap of exactly 300 s.
    rng = random.Random(7)
    tasks = [[(rng.choice([0, 1, 150, 299, 300, 301, 450, 600, 900, 1200]) + n,
               rng.choice("abcde") + ".py") for n in range(rng.randint(2, 9))]
             for _ in range(40)] + [[(0, "f.py"), (300, "g.py")], [(0, "f.py"), (299, "g.py")],
                                    [(0, "h.py"), (250, "h.py"), (500, "h.py"), (350, "i.py")],
                                    [(0, "j.py"), (400, "j.py"), (200, "k.py")]]
    expected = Counter()
    for day, edits in enumerate(tasks):
        task(alice, *((at, "edit", path) for at, path in edits),
             start=T0 + timedelta(days=day))
        expected.update({(a, b) for at, a in edits for bt, b in edits
                         if a < b and abs(at - bt) < 300})
    pairs = selectors.co_edits(alice, P, min_count=1, limit=1000)
    assert {(p.file_a, p.file_b): p.count for p in pairs} == dict(expected)
    assert selectors.co_edited_with(alice, P, "h.py", min_count=1) == [("i.py", 1)]


def test_a_files_co_edits_merge_only_the_edits_of_the_tasks_that_touched_it(alice):
    # Asked for one file (a prediction, the work log filtered by path), every edit of the
    # project was merged into spans to keep the few tasks holding it: 0.37 s a file for
    # 200,000 edits. The plan's window functions must see the file's tasks alone.
    task(alice, (0, "edit", "app/auth.py"), (10, "edit", "app/session.py"))
    for n in range(30):
        task(alice, *((k, "edit", f"lib/m{n}_{k}.py") for k in range(5)),
             start=T0 + timedelta(days=n + 1))
    with CaptureQueriesContext(connection) as queries:
        assert selectors.co_edited_with(alice, P, "auth.py", min_count=1) == [
            ("app/session.py", 1)]
    sql = next(q["sql"] for q in queries.captured_queries if "WITH edits AS" in q["sql"])
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan

    def windows(node):
        if node.get("Node Type") == "WindowAgg":
            yield node["Actual Rows"] * node.get("Actual Loops", 1)
        for child in node.get("Plans", []):
            yield from windows(child)

    merged = list(windows(plan[0]["Plan"]))
    assert merged and max(merged) <= 2


def test_a_command_an_erase_took_out_teaches_no_step(alice):
    for day in range(3):
        services.learn_from_task(task(alice, (0, "bash", "pytest -q"),
                                      (5, "bash", services.ERASED),
                                      (10, "bash", "npm run build"),
                                      (20, "bash", "git commit -m release"),
                                      start=T0 + timedelta(days=day)).pk)
    keys = list(LearnedPattern.objects.filter(owner=alice).values_list("key", flat=True))
    assert "pytest → npm run → git commit" in keys
    assert not any(services.ERASED in key for key in keys)
