"""Erase, after the text came in through every entry point and the machine worked on it:
no table keeps a copy, the work log included, and bob's copies stay his."""

import json
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from memories.mcp.operations import remember_memory
from memories.models import Memory
from work.models import LearnedPattern, PatternKind, ToolExecution

MARK = "zqmarker7731"  # one word, so the search postings hold it whole too
ERROR = f"Error: the key {MARK} was refused by the staging vault. Fixed by rotating it."


def every_copy(needle: str) -> Counter:
    """Rows holding `needle`, per table.column, over every column of every table."""
    found = Counter()
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT * FROM "{table}" LIMIT 0')
            for column in (c.name for c in cursor.description):
                cursor.execute(f'SELECT count(*) FROM "{table}" '
                               f'WHERE "{column}"::text ILIKE %s', [f"%{needle}%"])
                if count := cursor.fetchone()[0]:
                    found[f"{table}.{column}"] = count
    return found


@pytest.fixture
def send(api_client_for, django_capture_on_commit_callbacks):
    """POST as `owner`, then run what the request queued (the worker's tasks run inline)."""
    clients = {}

    def post(owner, path, body, status):
        client = clients.setdefault(owner.pk, api_client_for(owner))
        with django_capture_on_commit_callbacks(execute=True):
            if isinstance(body, bytes):
                answer = client.post(path, body, content_type="application/x-ndjson")
            else:
                answer = client.post(path, body, format="json")
        assert answer.status_code == status, answer.content
        return answer.json()
    return post


def tool_event(name, tool_input, response, success, call):
    """One tool call as the Claude Code hook sends it: an /observe of its own."""
    return {"project": "shop", "session_id": "s-1", "agent_id": "claude-code",
            "tool_events": [{"tool_name": name, "input": tool_input, "response": response,
                             "success": success, "tool_use_id": call,
                             "file_paths": [tool_input["file_path"]]
                             if "file_path" in tool_input else []}]}


def window_item(id, type, tokens, minutes_ago, **more):
    return {"id": id, "type": type, "tokens": tokens, "timestamp": (
        timezone.now() - timedelta(minutes=minutes_ago)).isoformat(), **more}


def plant(send, owner, django_capture_on_commit_callbacks):
    """The marker through REST remember, the hook's tool calls (a failing deploy, the
    edit that fixed it, the deploy passing: a learned error fix) and its end of turn (the
    prompt and the reply), MCP remember, import, and a pruned context window."""
    send(owner, "/api/v1/memories", {"content": f"The vault phrase is {MARK} for staging.",
                                     "project": "shop"}, 201)
    send(owner, "/api/v1/observe", tool_event(
        "Bash", {"command": "deploy --staging"}, {"error": ERROR}, False, "t1"), 202)
    send(owner, "/api/v1/observe", tool_event(
        "Edit", {"file_path": "/src/vault.py", "old_string": "a", "new_string": "b"}, {},
        True, "t2"), 202)
    send(owner, "/api/v1/observe", tool_event(
        "Bash", {"command": "deploy --staging"}, {"stdout": "ok"}, True, "t3"), 202)
    send(owner, "/api/v1/observe", {
        "project": "shop", "session_id": "s-1", "agent_id": "claude-code", "messages": [
            {"role": "user", "text": f"We decided to use {MARK} for the orders service "
                                     "instead of MySQL, because we need transactional DDL."},
            {"role": "assistant", "text": f"Noted: the orders service runs on {MARK}."}]},
         202)
    with django_capture_on_commit_callbacks(execute=True):
        remember_memory(owner, {"content": f"The backup bucket is {MARK}-eu in eu-west.",
                                "project": "shop"})
    send(owner, "/api/v1/import", json.dumps({
        "record": "memory", "content": f"The old vault phrase was {MARK} in 2024.",
        "memory_type": "semantic", "project": "shop"}).encode(), 200)
    # The agent's window, pruned: it summarises what it held, the memory handed to it too.
    send(owner, "/api/v1/work/context-window/prune", {
        "project": "shop", "session_id": "s-1", "limit": 1000, "items": [
            window_item("sys", "system_prompt", 300, 120, sticky=True),
            window_item("snip", "code_snippet", 300, 120, file_path="ops/vault.py",
                        summary=f"The vault phrase is {MARK} for staging."),
            window_item("ask", "user_message", 300, 0,
                        summary=f"The vault phrase is {MARK} for staging.")]}, 200)
    send(owner, "/api/v1/memories/search", {"query": MARK}, 200)
    send(owner, "/api/v1/memories/context", {"query": f"the vault phrase {MARK}"}, 200)


def erase_every_memory_holding_it(send, owner):
    receipts = []
    for memory in Memory.objects.filter(owner=owner, content__contains=MARK):
        receipts.append(send(owner, f"/api/v1/memories/{memory.pk}/erase", {}, 200))
    assert len(receipts) == 5  # remember, the error, the decision, MCP, import
    return receipts


def test_erasing_every_memory_that_holds_it_leaves_no_copy_but_bobs(
        alice, bob, send, django_capture_on_commit_callbacks):
    plant(send, bob, django_capture_on_commit_callbacks)
    bobs = every_copy(MARK)
    assert {"work_task.description", "work_toolexecution.error_message",
            "work_learnedpattern.data", "work_contextsnapshot.items"} <= set(bobs)  # the work log did copy it
    plant(send, alice, django_capture_on_commit_callbacks)

    receipts = erase_every_memory_holding_it(send, alice)

    assert every_copy(MARK) == bobs
    assert not any(MARK in json.dumps(receipt) for receipt in receipts)
    assert Memory.objects.filter(owner=bob, content__contains=MARK).count() == 5


def test_the_failed_call_behind_an_erased_memory_keeps_its_outcome_but_not_its_text(
        alice, send, django_capture_on_commit_callbacks):
    plant(send, alice, django_capture_on_commit_callbacks)
    failed = ToolExecution.objects.get(owner=alice, success=False)
    pattern = LearnedPattern.objects.get(owner=alice, kind=PatternKind.ERROR_FIX)
    error_memory = Memory.objects.get(owner=alice, content__startswith="Error: the key")

    receipt = send(alice, f"/api/v1/memories/{error_memory.pk}/erase", {}, 200)

    failed.refresh_from_db()
    # What the success rates count stays; what the call said goes.
    assert (failed.tool_name, failed.success, failed.command_head) == ("Bash", False, "deploy")
    assert (failed.error_message, failed.command, failed.parameters) == (
        "[erased]", "[erased]", {})
    assert not LearnedPattern.objects.filter(pk=pattern.pk).exists()
    assert str(failed.pk) in receipt["scrubbed"]["tool_executions"]["ids"]
    assert receipt["removed"]["learned_patterns"]["ids"] == [str(pattern.pk)]


def test_a_call_sent_beside_it_that_gave_another_memory_keeps_its_text(alice, send):
    other = "Error: module orders-db not found. Fixed by installing orders-db."
    both = tool_event("Bash", {"command": "deploy --staging"}, {"error": ERROR}, False, "t1")
    both["tool_events"] += tool_event("Bash", {"command": "make orders"}, {"error": other},
                                      False, "t2")["tool_events"]
    send(alice, "/api/v1/observe", both, 202)  # one observation, two memories
    error_memory = Memory.objects.get(owner=alice, content__startswith="Error: the key")

    send(alice, f"/api/v1/memories/{error_memory.pk}/erase", {}, 200)

    kept = ToolExecution.objects.get(owner=alice, command="make orders")
    assert kept.error_message == other
    assert ToolExecution.objects.get(owner=alice, command="[erased]").error_message \
        == "[erased]"
