"""A spooled observation Engram refuses for its project (403: the key may not write it)
would be refused at every event until the spool's cap pushed it out. It is set aside in
spool/refused/ instead, as it was, the reason in the log: not sent again, kept for a
person to read or to move back once a key may write it, and capped on its own."""
import json
import os

import pytest

from engram_client import state as local
from engram_client.client import Refused
from engram_client.hook import _fate
from engram_client.state import Spool, Undelivered
from memories.models import Observation
from memories.services.api_keys import create_api_key


def _entry(project: str, text: str) -> dict:
    return {"project": project, "messages": [{"role": "user", "text": text}]}


def _texts(paths) -> list[str]:
    texts = []
    for path in paths:
        with open(path) as file:
            texts.append(json.load(file)["messages"][0]["text"])
    return texts


def _deliver_but_project_b(delivered: list, refused: list):
    def deliver(payload):
        if payload["project"] == "b":
            refused.append(payload)
            raise Undelivered(Refused(403, "This API key is restricted to project 'a'."),
                              [payload])
        delivered.append(payload)
    return deliver


def test_an_entry_refused_for_its_project_is_set_aside_and_not_sent_again(state):
    spool = Spool(str(state))
    spool.keep(_entry("b", "Repo B's build uses Bazel"), _entry("a", "Repo A uses Helm"))
    delivered, refused = [], []
    deliver = _deliver_but_project_b(delivered, refused)
    assert spool.send(deliver, _fate) == 1
    assert spool.send(deliver, _fate) == 0
    assert [payload["project"] for payload in delivered] == ["a"]
    assert len(refused) == 1  # tried once, not at every event
    assert spool.waiting() == []
    assert _texts(spool.refused()) == ["Repo B's build uses Bazel"]
    log = (state / "hook.log").read_text()
    assert "set aside" in log and "restricted to project 'a'" in log


def test_an_entry_engram_cannot_take_now_still_waits(state):
    spool = Spool(str(state))
    spool.keep(_entry("a", "Repo A uses Helm"))

    def busy(payload):
        raise Undelivered(Refused(503, "busy"), [payload])

    assert spool.send(busy, _fate) == 0
    assert _texts(spool.waiting()) == ["Repo A uses Helm"]
    assert not (state / "spool" / "refused").exists()


def test_past_their_cap_the_oldest_refused_entries_are_dropped_saying_so(
        state, monkeypatch):
    monkeypatch.setattr(local, "REFUSED_MAX_FILES", 2)
    spool = Spool(str(state))
    for number in range(3):
        spool.keep(_entry("b", f"refused {number}"))
    spool.send(_deliver_but_project_b([], []), _fate)
    assert _texts(spool.refused()) == ["refused 1", "refused 2"]
    assert "refused spool full: dropped" in (state / "hook.log").read_text()


@pytest.mark.django_db(transaction=True)
def test_the_hook_sets_aside_what_its_key_may_not_write_and_sends_the_rest(
        hook_event, run_hook, checkout, live_server, alice, state):
    key = create_api_key(owner=alice, name="hooks", project="github.com/acme/shop")[1]
    (state / "spool").mkdir(parents=True)
    (state / "spool" / f"{1:020d}-1.json").write_text(json.dumps(
        _entry("github.com/acme/payments", "Payments retries webhooks three times")))
    for event in ("post_tool_use_bash", "post_tool_use_edit"):
        run_hook(hook_event(event, cwd=str(checkout)), url=live_server.url, key=key)
    assert Observation.objects.filter(owner=alice).count() == 2
    assert not list((state / "spool").glob("*.json"))
    assert _texts(Spool(str(state)).refused()) == ["Payments retries webhooks three times"]
    assert (state / "hook.log").read_text().count("set aside") == 1
    assert os.listdir(state / "spool") == ["refused"]
