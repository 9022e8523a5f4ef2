"""A batch Engram refuses for its body goes again in halves, down to the one item Engram
refuses, which alone is dropped: an Engram taking fewer items a request than the hook
sends, or one message it cannot take, costs no other message. What Engram took before it
went down is not sent again; the rest waits in the spool."""
import http.server
import json

import pytest

from memories.models import Observation
from tests.helpers import answer_json, serving


@pytest.fixture
def picky_engram():
    """An Engram that takes two items a request at most (400 over it), refuses a message
    saying "poison" (422), and answers 503 once it has taken `takes` requests (None: no
    end). It keeps the texts it takes, in order."""
    seen = {"taken": [], "takes": None}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            texts = ([message["text"] for message in body.get("messages", [])]
                     or [event["tool_name"] for event in body.get("tool_events", [])])
            if seen["takes"] == 0:
                status, message = 503, "down"
            elif len(texts) > 2:
                status, message = 400, f"{len(texts)} items in one request; the limit is 2."
            elif any("poison" in text for text in texts):
                status, message = 422, "poison"
            else:
                status, message = 202, ""
                seen["taken"] += texts
                seen["takes"] = None if seen["takes"] is None else seen["takes"] - 1
            answer_json(self, status, {"error": {"message": message}} if message else {})

    with serving(Handler) as url:
        yield url, seen


def _stop(hook_event, checkout, path) -> dict:
    return hook_event("stop", cwd=str(checkout), transcript_path=str(path),
                      last_assistant_message="")


def _log(state) -> str:
    path = state / "hook.log"
    return path.read_text() if path.exists() else ""


def test_a_message_engram_refuses_is_dropped_alone(
        hook_event, run_hook, checkout, transcript_of, picky_engram, state):
    url, seen = picky_engram
    texts = [f"message {number}" for number in range(8)]
    texts[5] = "message 5 poison"
    run_hook(_stop(hook_event, checkout, transcript_of(texts)), url=url, key="k")
    assert seen["taken"] == [text for text in texts if "poison" not in text]
    assert _log(state).count("observation refused, dropped: poison") == 1


def test_what_engram_took_before_going_down_is_not_sent_again(
        hook_event, run_hook, checkout, transcript_of, picky_engram, state):
    url, seen = picky_engram
    texts = [f"message {number}" for number in range(8)]
    seen["takes"] = 2  # halves of two, twice: then down
    run_hook(_stop(hook_event, checkout, transcript_of(texts)), url=url, key="k")
    assert seen["taken"] == texts[:4]
    seen["takes"] = 1  # the spooled half's first quarter, then down again
    run_hook(hook_event("post_tool_use_bash", cwd=str(checkout)), url=url, key="k")
    assert seen["taken"] == texts[:6]
    assert len(list((state / "spool").glob("*.json"))) == 2  # the last quarter, the Bash
    seen["takes"] = None
    run_hook(hook_event("post_tool_use_edit", cwd=str(checkout)), url=url, key="k")
    assert seen["taken"] == [*texts, "Bash", "Edit"]
    assert not list((state / "spool").glob("*.json"))
    assert "dropped" not in _log(state)


@pytest.mark.django_db(transaction=True)
def test_an_engram_taking_fewer_items_a_request_than_the_hook_sends_gets_the_whole_turn(
        hook_event, run_hook, checkout, transcript_of, live_server, alice, alice_key, state,
        settings):
    settings.ENGRAM_CAPTURE_MAX_ITEMS = 100
    texts = [f"message {number}" for number in range(250)]
    run_hook(_stop(hook_event, checkout, transcript_of(texts)), url=live_server.url,
             key=alice_key)
    taken = [message["text"] for observation in
             Observation.objects.filter(owner=alice).order_by("created_at")
             for message in observation.messages]
    assert taken == texts
    assert "dropped" not in _log(state)


@pytest.mark.django_db(transaction=True)
def test_a_nul_in_a_message_reaches_engram_as_a_replacement_character(
        hook_event, run_hook, checkout, transcript_of, live_server, alice, alice_key, state):
    run_hook(_stop(hook_event, checkout, transcript_of(["we ship on Fridays\x00", "ok"])),
             url=live_server.url, key=alice_key)
    observation = Observation.objects.get(owner=alice)
    assert [m["text"] for m in observation.messages] == ["we ship on Fridays\ufffd", "ok"]
    assert "dropped" not in _log(state)
