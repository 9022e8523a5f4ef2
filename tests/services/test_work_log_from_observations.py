"""The work log is fed by what the hooks send to /observe: tool events become tool
executions and file interactions in the session's task; the turn's messages name the
task by its prompt and end it, as does saying the turn ended (`turn_ended`)."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from memories.models import Observation
from work import selectors, services
from work.models import (
    ArtifactKind,
    EpisodeArtifact,
    FileInteraction,
    Task,
    TaskStatus,
    ToolExecution,
)

ROOT = "/home/alice/src/shop"
SESSION = {"session_id": "s-1", "project": "github.com/acme/shop", "agent_id": "claude-code"}


@pytest.fixture
def observe(api_client_for, django_capture_on_commit_callbacks):
    clients = {}

    def send(owner, **items):
        client = clients.setdefault(owner.pk, api_client_for(owner))
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post("/api/v1/observe", {**SESSION, **items}, format="json")
        assert response.status_code == 202, response.content
        return response
    return send


def tool(name, tool_input, response=None, success=True):
    return {"tool_events": [{"tool_name": name, "input": tool_input, "response": response or {},
                             "success": success,
                             "file_paths": [tool_input.get("file_path")]
                             if tool_input.get("file_path") else []}]}


def test_a_turn_becomes_one_task_named_by_its_prompt_with_its_files_and_tools(alice, observe):
    observe(alice, **tool("Read", {"file_path": f"{ROOT}/app/auth.py", "offset": 10,
                                   "limit": 40}))
    observe(alice, **tool("Edit", {"file_path": f"{ROOT}/app/auth.py", "old_string": "a",
                                   "new_string": "b"},
                          {"structuredPatch": [{"newStart": 21, "newLines": 3}]}))
    observe(alice, **tool("Grep", {"pattern": "def login", "path": f"{ROOT}/app"}))
    assert Task.objects.get().status == TaskStatus.ACTIVE
    observe(alice, messages=[{"role": "user", "text": "Fix the login bug in app/auth.py"},
                             {"role": "assistant", "text": "Fixed: the token check."}])

    task = Task.objects.get()
    assert task.description == "Fix the login bug in app/auth.py"
    assert task.status == TaskStatus.COMPLETED
    assert task.intent == "project_fixing"
    assert task.outcome == "Fixed: the token check."
    assert task.files_touched == ["app/auth.py"]
    assert task.tools_used == {"Read": 1, "Edit": 1, "Grep": 1}
    rows = list(FileInteraction.objects.order_by("created_at", "pk").values_list(
        "path", "operation", "line_start", "line_end", "context"))
    assert rows == [("app/auth.py", "read", 10, 49, ""), ("app/auth.py", "edit", 21, 23, ""),
                    ("app", "search", None, None, "def login")]


def test_a_failing_command_is_kept_with_its_error_and_a_turn_ending_on_it_failed(alice,
                                                                                observe):
    observe(alice, **tool("Bash", {"command": "python -m pytest tests/test_auth.py -q"},
                          {"error": "E   ImportError: cannot import name 'login' from "
                                    "'app.auth' (/home/alice/src/shop/app/auth.py)"},
                          success=False))
    observe(alice, messages=[{"role": "user", "text": "run the tests"},
                             {"role": "assistant", "text": "They fail."}])
    execution = ToolExecution.objects.get()
    assert execution.success is False
    assert execution.command_head == "python -m pytest"
    assert "ImportError" in execution.error_message
    assert execution.error_signature == \
        "importerror: cannot import name <q> from <q> (<path>)"
    assert Task.objects.get().status == TaskStatus.FAILED


def test_commits_and_written_files_are_the_tasks_artifacts(alice, observe):
    observe(alice, **tool("Write", {"file_path": f"{ROOT}/docs/adr/0007-sessions.md",
                                    "content": "# Sessions\n\nWe use sessions.\n"}))
    observe(alice, **tool("Bash", {"command": "git commit -am 'Sessions'"},
                          {"stdout": "[main 3f2a9c1] Sessions\n 1 file changed",
                           "stderr": ""}))
    assert set(EpisodeArtifact.objects.values_list("kind", "reference")) == {
        (ArtifactKind.ADR, "docs/adr/0007-sessions.md"), (ArtifactKind.COMMIT, "3f2a9c1")}
    assert FileInteraction.objects.get().line_end == 4


def test_a_pull_request_is_an_artifact_found_in_time_linear_in_the_answer(alice, observe,
                                                                          settings):
    observe(alice, **tool("Bash", {"command": "gh pr create --fill"},
                          {"stdout": "https://github.com/acme/shop/pull/42\n"}))
    settings.ENGRAM_CAPTURE_MAX_CHARS = 200_000
    started = time.perf_counter()
    observe(alice, **tool("Bash", {"command": "gh pr create --fill"},
                          {"stdout": "https://" * 20_000}))  # 13 s to search before
    assert time.perf_counter() - started < 2
    assert list(EpisodeArtifact.objects.values_list("kind", "reference")) == [
        (ArtifactKind.PR, "https://github.com/acme/shop/pull/42")]


def test_a_call_answered_as_an_earlier_one_is_logged_and_the_same_call_sent_again_is_not(
        alice, observe):
    for call in ("toolu_1", "toolu_2", "toolu_2"):
        observe(alice, tool_events=[{"tool_name": "Bash", "input": {"command": "git add ."},
                                     "response": {"stdout": ""}, "tool_use_id": call}])
    assert ToolExecution.objects.filter(owner=alice, command="git add .").count() == 2


def test_a_turn_said_ended_without_its_reply_ends_its_task_and_the_next_is_another(
        alice, observe):
    # The hook sends no reply twice: a turn answered "Done." again ends with its prompt,
    # or with nothing at all when the prompt was said before too.
    for number, messages in enumerate(([{"role": "user", "text": "Rename the loader"}], []), 1):
        observe(alice, **tool("Edit", {"file_path": f"{ROOT}/step{number}.py"}))
        observe(alice, messages=messages, turn_ended=True, turn_id=f"turn-{number}")
    observe(alice, **tool("Edit", {"file_path": f"{ROOT}/step3.py"}))

    tasks = Task.objects.order_by("started_at")
    assert [(task.description, task.status, task.files_touched) for task in tasks] == [
        ("Rename the loader", TaskStatus.COMPLETED, ["step1.py"]),
        ("", TaskStatus.COMPLETED, ["step2.py"]), ("", TaskStatus.ACTIVE, ["step3.py"])]


def test_a_turns_end_sent_again_is_one_and_leaves_the_next_turns_task_active(alice,
                                                                            observe):
    end = {"messages": [{"role": "user", "text": "Rename the loader"}],
           "turn_ended": True, "turn_id": "turn-1"}
    observe(alice, **tool("Edit", {"file_path": f"{ROOT}/a.py"}))
    assert observe(alice, **end).json()["duplicate"] is False
    observe(alice, **tool("Edit", {"file_path": f"{ROOT}/b.py"}))
    assert observe(alice, **end).json()["duplicate"] is True  # the spool sent it again

    assert list(Task.objects.order_by("started_at").values_list("status", "files_touched")
                ) == [(TaskStatus.COMPLETED, ["a.py"]), (TaskStatus.ACTIVE, ["b.py"])]
    assert Observation.objects.filter(turn_ended=True).count() == 1


def test_each_session_and_owner_has_its_own_task(alice, bob, observe):
    observe(alice, **tool("Read", {"file_path": f"{ROOT}/a.py"}))
    observe(alice, session_id="s-2", **tool("Read", {"file_path": f"{ROOT}/b.py"}))
    observe(bob, **tool("Read", {"file_path": f"{ROOT}/c.py"}))
    assert sorted(Task.objects.values_list("owner__username", "session_id", "files_touched")
                  ) == [("alice", "s-1", ["a.py"]), ("alice", "s-2", ["b.py"]),
                        ("bob", "s-1", ["c.py"])]


def test_a_file_in_a_dot_folder_is_found_in_its_history_however_it_is_named(alice, observe):
    observe(alice, **tool("Edit", {"file_path": f"{ROOT}/.github/workflows/ci.yml"}))
    for asked in (".github/workflows/ci.yml", "./.github/workflows/ci.yml", "ci.yml"):
        found = selectors.file_history(alice, SESSION["project"], asked)
        assert [touch.path for touch in found] == [".github/workflows/ci.yml"]


def test_a_quiet_session_pauses_its_task_and_the_next_turn_starts_another(alice, observe,
                                                                         settings):
    observe(alice, **tool("Read", {"file_path": f"{ROOT}/a.py"}))
    later = timezone.now() + timedelta(minutes=settings.ENGRAM_WORK_IDLE_MINUTES + 1)
    assert services.pause_idle_tasks(later) == 1
    observe(alice, **tool("Read", {"file_path": f"{ROOT}/b.py"}))
    assert list(Task.objects.order_by("started_at").values_list("status", flat=True)) == [
        TaskStatus.PAUSED, TaskStatus.ACTIVE]


def test_input_that_is_not_json_is_kept_as_text_and_touches_no_file(alice, observe):
    observe(alice, **tool("Read", {"file_path": f"{ROOT}/a.py"}))
    observe(alice, tool_events=[{"tool_name": "Read", "input": "x" * 50, "success": True}])
    execution = ToolExecution.objects.order_by("created_at", "pk").last()
    assert execution.parameters == {"input": "x" * 50}
    assert FileInteraction.objects.count() == 1


def test_a_task_names_its_first_files_up_to_a_bound_and_logs_every_touch(alice, observe,
                                                                            monkeypatch):
    monkeypatch.setattr(services, "MAX_FILES_TOUCHED", 3)
    long_name = "d/" * 700 + "f.py"  # in the tool's input, which no field bounds
    for offset, name in enumerate(("a.py", "b.py", "a.py", long_name, "c.py", "e.py")):
        observe(alice, tool_events=[{"tool_name": "Read", "input": {
            "file_path": f"{ROOT}/{name}", "offset": offset}}])
    assert Task.objects.get().files_touched == ["a.py", "b.py", long_name[:1000]]
    assert FileInteraction.objects.count() == 6


def test_nul_characters_and_lone_surrogates_in_a_tool_event_are_logged_as_u_fffd(alice,
                                                                                 observe):
    observe(alice, **tool("Bash", {"command": "ls\x00", "descr\x00iption": "list"},
                          {"error": "parse error near \x00"}, success=False))
    observe(alice, tool_events=[{"tool_name": "Edit",
                                 "input": {"file_path": f"{ROOT}/a\x00.py"}}])
    # Text that holds JSON is read as JSON, its escapes included.
    observe(alice, tool_events=[{"tool_name": "Bash", "input": '{"command": "ls \\ud800"}'}])

    failed, edited, escaped = ToolExecution.objects.order_by("created_at", "pk")
    assert failed.parameters == {"command": "ls\ufffd", "descr\ufffdiption": "list"}
    assert failed.command == "ls\ufffd"
    assert failed.error_message == "parse error near \ufffd"
    assert edited.files.get().path == "a\ufffd.py"
    assert escaped.command.startswith("ls \ufffd")
    assert Task.objects.get().files_touched == ["a\ufffd.py"]


@pytest.mark.django_db(transaction=True)
def test_tool_events_of_one_turn_arriving_side_by_side_share_its_task(alice):
    # Claude Code runs tool calls side by side, and each hook sends its own /observe:
    # the second must wait for the first's task instead of opening another.
    reads = [Observation.objects.create(
        owner=alice, project=SESSION["project"], session_id=SESSION["session_id"],
        payload_hash=str(n), tool_events=[{"tool_name": "Read", "success": True,
                                           "input": {"file_path": f"{ROOT}/app/m{n}.py"}}])
        for n in range(2)]
    first_recorded, release = threading.Event(), threading.Event()

    def record_the_first_and_hold_its_transaction():
        with transaction.atomic():
            services.record_observation(alice, reads[0])
            first_recorded.set()
            release.wait(10)
        connection.close()

    def record_the_second_meanwhile():
        first_recorded.wait(10)
        with transaction.atomic():
            services.record_observation(alice, reads[1])
        connection.close()

    threads = [threading.Thread(target=record_the_first_and_hold_its_transaction),
               threading.Thread(target=record_the_second_meanwhile)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # the second reaches its task's lookup while the first holds its own
    release.set()
    for thread in threads:
        thread.join()

    task = Task.objects.get(owner=alice)
    assert task.files_touched == ["app/m0.py", "app/m1.py"]
    assert FileInteraction.objects.filter(task=task).count() == 2
