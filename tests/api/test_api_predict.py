"""POST /api/v1/context/predict: from what the agent sees (file, error, branch,
activity) what it will likely need, within a token budget, from its own store only."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from codegraph.services import SourceFile, index_sources
from memories.models import Kind, MemoryType
from memories.services.api_keys import create_api_key
from memories.services.remembering import remember
from work import prediction
from work.models import FileInteraction, LearnedPattern, PatternKind, Task, TaskStatus

URL = "/api/v1/context/predict"


@pytest.fixture
def shop(alice, bob):
    remember(owner=alice, project="shop",
             content="app/payments.py retries Stripe webhooks three times before alerting.")
    remember(owner=alice, project="shop", memory_type=MemoryType.PROCEDURAL,
             kind=Kind.WORKFLOW, content="deploy: test → build → stage → verify → prod")
    remember(owner=bob, project="shop",
             content="app/payments.py belongs to bob's team and must not be touched.")
    start = timezone.now() - timedelta(days=1)
    for day in range(2):
        task = Task.objects.create(owner=alice, project="shop", status=TaskStatus.COMPLETED,
                                   description=f"refund flow {day}",
                                   started_at=start - timedelta(days=day))
        for offset, path in ((0, "app/payments.py"), (30, "app/refunds.py")):
            FileInteraction.objects.create(owner=alice, project="shop", task=task, path=path,
                                           operation="edit", created_at=task.started_at
                                           + timedelta(seconds=offset))
    Task.objects.create(owner=alice, project="shop", session_id="s-9",
                        description="add partial refunds", files_touched=["app/refunds.py"])
    LearnedPattern.objects.create(
        owner=alice, project="shop", kind=PatternKind.ERROR_FIX, key="k", observed_count=3,
        confidence=0.6, data={"command": "python -m pytest", "error": "KeyError: 'currency'",
                              "signature": "keyerror: <q>", "fix_files": ["app/money.py"]})


def sections(answer):
    return [(i["section"], i["ref"]) for i in answer.json()["items"]]


def test_a_file_an_error_and_an_activity_bring_what_the_log_and_memory_hold(
        alice, shop, api_client_for):
    answer = api_client_for(alice).post(URL, {
        "project": "shop", "file_opened": "/home/alice/src/shop/app/payments.py",
        "error_text": "Traceback ...\nKeyError: 'currency'", "activity": "deploy",
        "session_id": "s-9", "max_tokens": 2000}, format="json")
    assert answer.status_code == 200, answer.content
    found = sections(answer)
    assert found[0][0] == "active_task" and found[1] == ("error_fix", found[1][1])
    assert ("co_edited", "app/refunds.py") in found
    texts = " ".join(i["text"] for i in answer.json()["items"])
    assert "retries Stripe webhooks" in texts
    assert "deploy: test → build" in texts
    assert "bob's team" not in texts
    assert answer.json()["tokens"] <= 2000
    assert answer.json()["context"].startswith("<engram-predicted-context")


def test_the_budget_keeps_the_highest_priority_items(alice, shop, api_client_for):
    answer = api_client_for(alice).post(URL, {
        "project": "shop", "file_opened": "app/payments.py", "session_id": "s-9",
        "max_tokens": 50}, format="json")
    result = answer.json()
    assert result["tokens"] <= 50 and result["left_out"] >= 1
    assert sections(answer)[0][0] == "active_task"


def test_the_files_a_file_imports_are_its_graph_neighbours(alice, shop):
    assert prediction.graph_neighbours(alice, "shop", "app/payments.py", 5) == []
    index_sources(alice, "shop", [
        SourceFile("app/payments.py", b"from app.ledger import record\n\nrecord(1)\n"),
        SourceFile("app/ledger.py", b"def record(amount):\n    return amount\n")],
        complete=True)
    assert prediction.graph_neighbours(alice, "shop", "app/payments.py", 5) == ["app/ledger.py"]
    assert prediction.graph_neighbours(alice, None, "app/payments.py", 5) == []


def test_a_graph_neighbours_memories_are_predicted(alice, shop):
    remember(owner=alice, project="shop",
             content="app/ledger.py must stay append-only: never update a row.")
    index_sources(alice, "shop", [
        SourceFile("app/payments.py", b"from app.ledger import record\n\nrecord(1)\n"),
        SourceFile("app/ledger.py", b"def record(amount):\n    return amount\n")],
        complete=True)
    found = prediction.predict(
        alice, prediction.Signals(project="shop", file_opened="app/payments.py"),
        now=timezone.now(), budget=2000)
    assert any("append-only" in item.text for item in found.items)


def test_another_owner_and_a_restricted_key_see_nothing_of_alices(alice, bob, charlie, shop,
                                                                   api_client_for):
    answer = api_client_for(charlie).post(URL, {"project": "shop", "file_opened":
                                                "app/payments.py", "activity": "deploy"},
                                          format="json")
    assert answer.status_code == 200 and answer.json()["items"] == []
    _, raw = create_api_key(owner=alice, name="blog", project="blog")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.post(URL, {"project": "shop"}, format="json").status_code == 403
    blog = client.post(URL, {"file_opened": "app/payments.py", "activity": "deploy"},
                       format="json")
    assert blog.status_code == 200 and blog.json()["items"] == []


def test_a_restricted_key_is_not_given_memories_of_no_project(alice):
    remember(owner=alice, content="The vault passphrase is 0451-lantern.")
    remember(owner=alice, project="blog", kind=Kind.WORKFLOW,
             memory_type=MemoryType.PROCEDURAL, content="deploy: build → upload → ping")
    _, raw = create_api_key(owner=alice, name="blog", project="blog")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    answer = client.post(URL, {"activity": "deploy",
                               "error_text": "the vault passphrase was rejected"},
                         format="json")
    assert answer.status_code == 200
    assert "build → upload" in answer.json()["context"]
    assert "0451" not in answer.json()["context"]


def test_bad_signals_get_a_400(alice, api_client_for):
    client = api_client_for(alice)
    assert client.post(URL, {"max_tokens": 10}, format="json").status_code == 400
    assert client.post(URL, {"files": "app/x.py"}, format="json").status_code == 400
    assert client.post(URL, {"files": ["a"] * 50}, format="json").status_code == 400
