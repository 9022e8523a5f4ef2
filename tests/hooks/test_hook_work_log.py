"""The hooks feed the work log end to end: tool events (failed ones too) land in the
session's task, the prompt names it and Stop ends it; the next prompt is handed the fix
of the last failing command, the files it names and the branch's context."""
import json

import pytest

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
SHOP = "github.com/acme/shop"


def _context(result) -> str:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_turn_of_hook_events_becomes_a_task_with_its_files_and_failure(
        hook_event, live_server, run_hook, alice, alice_key, checkout, transcript):
    for event in (hook_event("post_tool_use_edit", cwd=str(checkout)),
                  hook_event("post_tool_use_failure", cwd=str(checkout)),
                  hook_event("stop", cwd=str(checkout), transcript_path=str(transcript))):
        run_hook(event, url=live_server.url, key=alice_key)

    task = Task.objects.get(owner=alice)
    assert task.project == SHOP and task.status == TaskStatus.FAILED
    assert task.description.startswith("Set up the staging database")
    assert task.files_touched == ["checkout/settings.py"]
    edit = FileInteraction.objects.get(owner=alice)
    assert (edit.path, edit.operation, edit.line_start, edit.line_end) == (
        "checkout/settings.py", "edit", 12, 12)
    failed = ToolExecution.objects.get(owner=alice, success=False)
    assert failed.command_head == "python -m pytest" and "KeyError" in failed.error_message


def test_the_next_prompt_is_handed_the_fix_of_the_last_failure_and_the_named_files(
        hook_event, live_server, run_hook, alice, alice_key, checkout):
    LearnedPattern.objects.create(
        owner=alice, project=SHOP, kind=PatternKind.ERROR_FIX, key="k", observed_count=3,
        confidence=0.6, data={"command": "python -m pytest", "error": "KeyError: 'currency'",
                              "signature": "keyerror: <q>", "fix_files": ["checkout/money.py"]})
    remember(owner=alice, project=SHOP,
             content="checkout/totals.py rounds half-even, as the accountants asked.")
    remember(owner=alice, project=SHOP,
             content="The gift-cards branch waits on the legal review of refunds.")
    (checkout / ".git" / "HEAD").write_text("ref: refs/heads/feature/gift-cards\n")
    run_hook(hook_event("post_tool_use_failure", cwd=str(checkout)), url=live_server.url,
             key=alice_key)
    prompt = hook_event("user_prompt_submit", cwd=str(checkout),
                        prompt="Why does checkout/totals.py give the wrong total?")
    context = _context(run_hook(prompt, url=live_server.url, key=alice_key))
    assert "engram-predicted-context" in context
    assert "checkout/money.py" in context  # the fix of the last failing command
    assert "half-even" in context  # about the file the prompt names
    assert "legal review" in context  # about the branch
    again = run_hook(prompt, url=live_server.url, key=alice_key)
    assert "checkout/money.py" not in (again.stdout or b"").decode()  # given once a session


def test_a_command_run_again_in_a_later_turn_and_answered_alike_is_logged_again(
        hook_event, live_server, run_hook, alice, alice_key, checkout):
    # Engram keeps one observation of a payload: without the call's id, the second
    # `psql` answered alike was taken for the first sent again, and dropped.
    for call in ("toolu_first", "toolu_second", "toolu_second"):
        run_hook(hook_event("post_tool_use_bash", cwd=str(checkout), tool_use_id=call),
                 url=live_server.url, key=alice_key)
    assert ToolExecution.objects.filter(owner=alice, tool_name="Bash").count() == 2
