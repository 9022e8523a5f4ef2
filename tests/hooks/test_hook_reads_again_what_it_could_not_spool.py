"""The hook moves its read position in the transcript only once what it read is in the
spool, from which it is sent: a spool it cannot write (a full disk, a folder it may not
write) costs nothing, the same lines are read again at the next event."""
import errno
import http.server
import json
import os

import pytest

from engram_client.state import Spool
from tests.helpers import answer_json, serving


@pytest.fixture
def engram():
    """An Engram that takes every observation (503 while `down`), keeping the texts of the
    messages it takes, in order."""
    seen = {"taken": [], "down": False}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if seen["down"]:
                answer_json(self, 503, {"error": {"message": "down"}})
                return
            seen["taken"] += [message["text"] for message in body.get("messages", [])]
            answer_json(self, 202, {})

    with serving(Handler) as url:
        yield url, seen


def _stop(hook_event, checkout, path) -> dict:
    return hook_event("stop", cwd=str(checkout), transcript_path=str(path),
                      last_assistant_message="")


def _spooled(state) -> list:
    return list((state / "spool").glob("*.json"))


def test_a_turn_the_spool_could_not_take_is_read_again_and_sent_at_the_next_event(
        hook_event, run_hook, checkout, transcript_of, engram, state):
    url, seen = engram
    texts = ["Which port does staging use?", "Staging listens on 5433."]
    path = transcript_of(texts)
    seen["down"] = True
    state.mkdir()
    (state / "spool").write_text("")  # a file where the spool's folder should be
    result = run_hook(_stop(hook_event, checkout, path), url=url, key="k")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    (state / "spool").unlink()
    seen["down"] = False
    run_hook(_stop(hook_event, checkout, path), url=url, key="k")
    assert seen["taken"] == texts
    assert not _spooled(state)
    assert "read again at the next event" in (state / "hook.log").read_text()


def test_a_turn_engram_takes_is_sent_once_and_not_kept(
        hook_event, run_hook, checkout, transcript_of, engram, state):
    url, seen = engram
    texts = ["Which port does staging use?", "Staging listens on 5433."]
    path = transcript_of(texts)
    run_hook(_stop(hook_event, checkout, path), url=url, key="k")
    for event in ("stop", "pre_compact", "session_end"):  # nothing new in the transcript
        run_hook(hook_event(event, cwd=str(checkout), transcript_path=str(path),
                            last_assistant_message=""), url=url, key="k")
    assert seen["taken"] == texts
    assert not _spooled(state)


def test_a_turn_engram_cannot_take_waits_in_the_spool_once_and_goes_once(
        hook_event, run_hook, checkout, transcript_of, engram, state):
    url, seen = engram
    texts = ["Which port does staging use?", "Staging listens on 5433."]
    path = transcript_of(texts)
    seen["down"] = True
    run_hook(_stop(hook_event, checkout, path), url=url, key="k")
    run_hook(_stop(hook_event, checkout, path), url=url, key="k")
    spooled = [json.loads(entry.read_text()) for entry in sorted(_spooled(state))]
    # the messages once, and the second Stop's end of its turn, with nothing new to say
    assert [[m["text"] for m in entry.get("messages", [])] for entry in spooled] == [texts, []]
    seen["down"] = False
    run_hook(hook_event("post_tool_use_bash", cwd=str(checkout)), url=url, key="k")
    assert seen["taken"] == texts
    assert not _spooled(state)


def test_a_spool_that_cannot_take_every_batch_of_a_turn_keeps_none_of_them(
        state, monkeypatch):
    """Else the batches kept would be sent twice: once now, once with the lines read again."""
    replace, renamed = os.replace, []

    def full_disk_at_the_second(source, target):
        renamed.append(target)
        if len(renamed) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        replace(source, target)

    monkeypatch.setattr(os, "replace", full_disk_at_the_second)
    with pytest.raises(OSError):
        Spool(str(state)).keep({"messages": [{"role": "user", "text": "first half"}]},
                               {"messages": [{"role": "user", "text": "second half"}]})
    assert not os.listdir(state / "spool")  # nor a temporary file
