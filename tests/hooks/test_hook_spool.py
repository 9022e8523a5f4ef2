"""The spool keeps what Engram cannot take now until it can: a revoked key or a wrong
address is fixed, and the same observations pass. Only what Engram judges bad itself (a
malformed or oversized item) is dropped, with a line in the log, so it blocks nothing."""
import json
import os
import socket
import threading
import time

import pytest

from engram_client.client import Refused
from engram_client.hook import _fate
from engram_client.state import STALE_CLAIM_SECONDS, STOP, Spool, Undelivered
from memories.models import Observation


def _spooled(state) -> list:
    return sorted((state / "spool").glob("*.json"))


def _spool_by_hand(state, payload: dict) -> None:
    """An entry ahead of every other, as an older hook could have left it."""
    (state / "spool").mkdir(parents=True, exist_ok=True)
    (state / "spool" / f"{1:020d}-1.json").write_text(json.dumps(payload))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("fault", ["revoked key", "wrong address"])
def test_a_revoked_key_or_a_wrong_address_keeps_the_spool_until_fixed(
        hook_event, run_hook, checkout, live_server, alice, alice_key, state, closed_url,
        fault):
    for number in range(3):
        run_hook(hook_event("post_tool_use_bash", cwd=str(checkout),
                            tool_input={"command": f"make test-{number}"}),
                 url=closed_url, key=alice_key)
    assert len(_spooled(state)) == 3
    wrong = ({"url": live_server.url, "key": "engram_revoked"} if fault == "revoked key"
             else {"url": f"{live_server.url}/not-engram", "key": alice_key})
    run_hook(hook_event("post_tool_use_edit", cwd=str(checkout)), **wrong)
    assert len(_spooled(state)) == 4  # the event refused with them waits too
    assert "observation spooled" in (state / "hook.log").read_text()
    run_hook(hook_event("post_tool_use_edit", cwd=str(checkout)), url=live_server.url,
             key=alice_key)
    assert Observation.objects.filter(owner=alice).count() == 4  # the two edits are one
    assert not _spooled(state)


@pytest.mark.django_db(transaction=True)
def test_a_spooled_observation_engram_judges_bad_is_dropped_and_the_rest_go(
        hook_event, run_hook, checkout, live_server, alice, alice_key, state):
    _spool_by_hand(state, {"project": "shop", "messages": []})  # 400: nothing to observe
    run_hook(hook_event("post_tool_use_edit", cwd=str(checkout)), url=live_server.url,
             key=alice_key)
    assert not _spooled(state)
    assert "refused, dropped" in (state / "hook.log").read_text()
    assert Observation.objects.filter(owner=alice).count() == 1


@pytest.fixture
def hasty_engram():
    """Engram behind a server that answers 413 to a body over 2.5 MiB before reading it,
    and closes: the client is reset while still sending. It keeps the bodies it takes."""
    taken = []
    server = socket.create_server(("127.0.0.1", 0))

    def answer(connection, status, body=b"{}"):
        connection.sendall(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                           b"Content-Length: %d\r\n\r\n%s" % (status, len(body), body))

    def serve():
        while True:
            connection, _ = server.accept()
            with connection:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += connection.recv(65536)
                head, _, body = head.partition(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                if length > 2_621_440:
                    answer(connection, 413, b'{"error": {"message": "too large"}}')
                    continue
                while len(body) < length:
                    body += connection.recv(65536)
                taken.append(json.loads(body))
                answer(connection, 202)

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}", taken
    server.close()


def test_a_spooled_observation_over_engrams_body_limit_is_dropped_not_blocking_the_rest(
        hook_event, run_hook, checkout, state, closed_url, hasty_engram):
    url, taken = hasty_engram
    _spool_by_hand(state, {"project": "shop", "messages": [
        {"role": "user", "text": "x" * 3_000_000}]})
    run_hook(hook_event("post_tool_use_bash", cwd=str(checkout)), url=closed_url, key="k")
    run_hook(hook_event("post_tool_use_edit", cwd=str(checkout)), url=url, key="k")
    assert not _spooled(state)
    assert "refused, dropped: too large" in (state / "hook.log").read_text()
    assert [payload["tool_events"][0]["tool_name"] for payload in taken] == ["Bash", "Edit"]


def _entry(text: str) -> dict:
    return {"messages": [{"role": "user", "text": text}]}


def test_an_entry_left_half_sent_by_a_hook_that_died_is_sent_again(state):
    spool = Spool(str(state))
    spool.keep(_entry("Deploys go out on Tuesdays"))
    [dead] = spool.waiting()
    os.rename(dead, dead + ".sending")  # claimed by a hook killed mid-send, long ago
    long_ago = time.time() - STALE_CLAIM_SECONDS - 60
    os.utime(dead + ".sending", (long_ago, long_ago))
    delivered = []
    assert spool.send(delivered.append, lambda error: STOP) == 1
    assert delivered == [_entry("Deploys go out on Tuesdays")]
    assert not os.listdir(state / "spool")
    assert "left half-sent" in (state / "hook.log").read_text()


def test_an_old_entry_being_sent_now_is_not_taken_back_by_another_hook(state):
    spool = Spool(str(state))
    spool.keep(_entry("Staging listens on 5433"))
    [old] = spool.waiting()
    long_ago = time.time() - STALE_CLAIM_SECONDS - 60
    os.utime(old, (long_ago, long_ago))  # spooled long ago, claimed only now
    seen_meanwhile = []

    def deliver(payload):
        seen_meanwhile.append(Spool(str(state)).waiting())  # another hook flushing

    assert spool.send(deliver, lambda error: STOP) == 1
    assert seen_meanwhile == [[]] and not os.listdir(state / "spool")


def test_an_entry_another_hook_is_sending_is_left_to_it(state):
    spool = Spool(str(state))
    [path] = spool.keep(_entry("Staging listens on 5433"))

    def deliver(payload):  # meanwhile another hook, which listed the entry, sends it too
        assert Spool(str(state)).send(pytest.fail, _fate, [path]) == 0
        raise Undelivered(Refused(503, "busy"), [payload])

    assert spool.send(deliver, _fate) == 0
    assert [os.path.basename(waiting) for waiting in spool.waiting()] == [
        os.path.basename(path)]  # it waits again, not deleted by the other hook


def test_the_parts_left_of_an_entry_wait_in_their_order_however_many(state):
    spool = Spool(str(state))
    spool.keep(_entry("Deploys go out on Tuesdays"))
    spool.keep(_entry("Staging listens on 5433"))  # behind it
    parts = [_entry(f"part {number}") for number in range(12)]

    def deliver(payload):
        if payload["messages"][0]["text"].startswith("Deploys"):
            raise Undelivered(Refused(503, "busy"), parts)

    assert spool.send(deliver, _fate) == 0  # busy: the entry after it waits too
    waiting = []
    for path in spool.waiting():
        with open(path) as file:
            waiting.append(json.load(file)["messages"][0]["text"])
    assert waiting == [f"part {number}" for number in range(12)] + ["Staging listens on 5433"]
