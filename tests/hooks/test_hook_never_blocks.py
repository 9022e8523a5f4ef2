"""Whatever Engram does, the hook exits 0 with no output in about its timeout: the agent
works exactly as it would without Engram (claude-mem #729, #2095: hooks that blocked)."""
import http.server
import json
import os
import time

import pytest

from memories.models import Observation
from tests.helpers import serving


@pytest.fixture
def misbehaving_engram():
    """A local server that answers slowly (sleep), with a 500 (status), or with a body of
    its own for some paths (bodies)."""
    behaviour = {"sleep": 0.0, "status": 500, "bodies": {}}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            time.sleep(behaviour["sleep"])
            self.send_response(behaviour["status"])
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(behaviour["bodies"].get(self.path) or json.dumps(
                {"error": {"status": behaviour["status"], "message": "boom"}}).encode())

    with serving(Handler) as url:
        yield url, behaviour


@pytest.mark.parametrize("event", ["session_start", "user_prompt_submit", "post_tool_use_bash",
                                   "stop", "pre_compact", "session_end"])
def test_with_engram_down_every_event_exits_0_silently(hook_event, run_hook, checkout, event,
                                                      closed_url):
    result = run_hook(hook_event(event, cwd=str(checkout)), url=closed_url, key="k")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_slow_engram_costs_a_prompt_at_most_its_timeout(
        hook_event, run_hook, checkout, misbehaving_engram):
    url, behaviour = misbehaving_engram
    behaviour["sleep"] = 10
    started = time.monotonic()
    result = run_hook(hook_event("user_prompt_submit", cwd=str(checkout)), url=url, key="k",
                      ENGRAM_TIMEOUT="1")
    assert time.monotonic() - started < 5
    assert (result.returncode, result.stdout) == (0, b"")


def test_an_error_answer_gives_no_output(hook_event, run_hook, checkout, misbehaving_engram):
    url, _ = misbehaving_engram
    result = run_hook(hook_event("session_start", cwd=str(checkout)), url=url, key="k")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_an_answer_that_is_not_json_gives_no_output(
        hook_event, run_hook, checkout, misbehaving_engram):
    url, behaviour = misbehaving_engram
    behaviour.update(status=200, bodies={"/api/v1/memories/context": b'{"memories_used": 0}',
                                         "/api/v1/context/predict": b"<<<not json>>>"})
    result = run_hook(hook_event("session_start", cwd=str(checkout)), url=url, key="k")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"hook_event_name": 7}',
                                   b'{"hook_event_name": "PostToolUse", "tool_name": null}',
                                   b"\xff\xfe"])
def test_malformed_input_exits_0_silently(run_hook, stdin, closed_url):
    result = run_hook(stdin, url=closed_url, key="k")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.django_db(transaction=True)
def test_what_could_not_be_sent_waits_in_the_spool_and_goes_with_the_next_event(
        hook_event, run_hook, checkout, live_server, alice, alice_key, state, closed_url):
    down = run_hook(hook_event("post_tool_use_bash", cwd=str(checkout)), url=closed_url,
                    key=alice_key)
    assert down.returncode == 0
    assert len(list((state / "spool").glob("*.json"))) == 1
    assert not Observation.objects.filter(owner=alice).exists()
    run_hook(hook_event("post_tool_use_edit", cwd=str(checkout)), url=live_server.url,
             key=alice_key)
    tools = sorted(o.tool_events[0]["tool_name"] for o in Observation.objects.filter(owner=alice))
    assert tools == ["Bash", "Edit"]
    assert not list((state / "spool").glob("*"))


@pytest.mark.django_db(transaction=True)
def test_an_event_with_bytes_not_in_utf8_is_still_observed(
        hook_event, run_hook, checkout, live_server, alice, alice_key):
    event = json.dumps(hook_event("post_tool_use_bash", cwd=str(checkout),
                                  tool_response={"stdout": "PNG @@"})).encode()
    result = run_hook(event.replace(b"@@", b"\x89\xff"), url=live_server.url, key=alice_key)
    assert (result.returncode, result.stderr) == (0, b"")
    observation = Observation.objects.get(owner=alice)
    assert "PNG \ufffd\ufffd" in observation.tool_events[0]["response"]


@pytest.mark.parametrize("event", ["stop", "pre_compact", "session_end"])
def test_a_transcript_path_that_is_no_file_is_not_waited_on(
        hook_event, run_hook, checkout, tmp_path, closed_url, event):
    fifo = tmp_path / "transcript.fifo"
    os.mkfifo(fifo)  # opening it would wait for a writer that never comes
    result = run_hook(hook_event(event, cwd=str(checkout), transcript_path=str(fifo)),
                      url=closed_url, key="k", timeout=10)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
