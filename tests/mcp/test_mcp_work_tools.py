"""The work log's MCP tools over HTTP: the same queries as /api/v1/work/..., in text,
each owner's own log only, a project key held to its project."""

from datetime import timedelta

import pytest
from django.utils import timezone
from mcp_helpers import call, with_client

from memories.models import Kind, MemoryType
from memories.services.api_keys import create_api_key
from memories.services.remembering import remember
from work.models import (
    FileInteraction,
    LearnedPattern,
    PatternKind,
    Task,
    TaskStatus,
    ToolExecution,
)

pytestmark = pytest.mark.django_db(transaction=True)


def seed(owner, project, tag):
    now = timezone.now()
    for day in range(3):
        task = Task.objects.create(owner=owner, project=project, status=TaskStatus.COMPLETED,
                                   description=f"{tag} task {day}",
                                   started_at=now - timedelta(days=day))
        for offset, path in ((0, f"{tag}/a.py"), (30, f"{tag}/b.py")):
            FileInteraction.objects.create(owner=owner, project=project, task=task, path=path,
                                           operation="edit", created_at=task.started_at
                                           + timedelta(seconds=offset))
    ToolExecution.objects.create(owner=owner, project=project, tool_name=f"{tag}-Bash",
                                 success=False)
    Task.objects.create(owner=owner, project=project, description=f"{tag} still going")
    LearnedPattern.objects.create(
        owner=owner, project=project, kind=PatternKind.ERROR_FIX, key=tag, observed_count=3,
        confidence=0.6, data={"command": "pytest", "signature": "keyerror: <q>",
                              "error": f"{tag} KeyError: 'currency'", "fix_files": [f"{tag}/m.py"]})


SCENARIO = [("work_file_history", {"path": "a.py"}), ("work_co_edits", {}),
            ("work_tool_success_rates", {}), ("work_open_tasks", {}),
            ("work_error_fixes", {"error_text": "KeyError: 'x'"}),
            ("context_predict", {"file_opened": "alice/a.py", "error_text": "KeyError: 'y'"})]


def run_all(server_url, key, extra=None):
    async def scenario(client):
        return [await call(client, tool, **{**arguments, **(extra or {})})
                for tool, arguments in SCENARIO]
    return with_client(server_url, key, scenario)


def test_each_tool_answers_from_its_callers_own_log(server_url, alice, bob, key_for):
    seed(alice, "shop", "alice")
    seed(bob, "shop", "bob")
    answers = run_all(server_url, key_for(alice), {"project": "shop"})
    assert not any(failed for failed, _ in answers), answers
    text = "\n".join(t for _, t in answers)
    assert "alice/a.py" in text and "alice still going" in text and "alice/m.py" in text
    assert "alice-Bash: 0/1 succeeded" in text and "alice/a.py + alice/b.py: 3 tasks" in text
    assert "bob" not in text
    bobs = run_all(server_url, key_for(bob), {"project": "shop"})
    assert "alice" not in "\n".join(t for _, t in bobs) and "bob/a.py" in bobs[0][1]


def test_a_project_key_is_held_to_its_project_and_bad_arguments_are_tool_errors(
        server_url, alice):
    seed(alice, "shop", "alice")
    _, key = create_api_key(owner=alice, name="blog only", project="blog")
    answers = run_all(server_url, key, {"project": "shop"})
    assert all(failed and "restricted to project 'blog'" in text for failed, text in answers)
    assert "alice" not in "\n".join(t for _, t in run_all(server_url, key))

    async def bad(client):
        return await call(client, "work_co_edits", min_count=0)
    failed, text = with_client(server_url, key, bad)
    assert failed and "min_count" in text


def test_a_project_key_is_not_predicted_memories_of_no_project(server_url, alice):
    remember(owner=alice, content="The vault passphrase is 0451-lantern.")
    remember(owner=alice, project="blog", kind=Kind.WORKFLOW,
             memory_type=MemoryType.PROCEDURAL, content="deploy: build → upload → ping")
    _, key = create_api_key(owner=alice, name="blog only", project="blog")

    async def predicts(client):
        return await call(client, "context_predict", activity="deploy",
                          error_text="the vault passphrase was rejected")
    failed, text = with_client(server_url, key, predicts)
    assert not failed and "build → upload" in text
    assert "0451" not in text


def test_the_decision_helpers_answer_with_the_rules_provider(server_url, alice, key_for,
                                                             settings):
    settings.ENGRAM_LLM_PROVIDER = "rules"

    async def scenario(client):
        return [await call(client, "plan_deviation", goal="Fix login",
                           observation="Error: module not found"),
                await call(client, "plan_decompose", goal="write the model; then the view",
                           minutes=60),
                await call(client, "plan_next_action", goals=[{"text": "Fix login"}]),
                await call(client, "plan_decompose", goal="x", minutes=0)]
    deviation, plan, action, bad = with_client(server_url, key_for(alice), scenario)
    assert deviation == (False, "Replan: error_detected (decided by rules)")
    outline = ("- write the model; then the view (60 min)\n"
               "  - write the model (30 min)\n  - the view (30 min)\n"
               "(decided by rules, 0 model calls)")
    assert plan == (False, outline)
    assert action[1].startswith("Do next: [retrieval]")
    assert bad[0] and "minutes" in bad[1]
