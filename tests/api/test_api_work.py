"""/api/v1/work/...: seed 004's queries over the work log, each isolated per owner and,
for a key restricted to a project, per project."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from memories.services.api_keys import create_api_key
from work.models import (
    ContextSnapshot,
    FileInteraction,
    LearnedPattern,
    PatternKind,
    Task,
    TaskStatus,
    ToolExecution,
)

NOW = timezone.now()


def seed(owner, project, tag):
    """One owner's log in one project: three tasks co-editing two files, a failing and a
    passing tool run, an open task and an error -> fix pattern; `tag` marks the rows."""
    for day in range(3):
        start = NOW - timedelta(days=day, hours=1)
        task = Task.objects.create(owner=owner, project=project, status=TaskStatus.COMPLETED,
                                   description=f"{tag} task {day}", started_at=start)
        for offset, path in ((0, f"{tag}/a.py"), (60, f"{tag}/b.py")):
            FileInteraction.objects.create(owner=owner, project=project, task=task, path=path,
                                           operation="edit",
                                           created_at=start + timedelta(seconds=offset))
    for success in (True, False):
        ToolExecution.objects.create(owner=owner, project=project, tool_name=f"{tag}-tool",
                                     success=success, created_at=NOW - timedelta(hours=2))
    Task.objects.create(owner=owner, project=project, status=TaskStatus.PAUSED,
                        description=f"{tag} open")
    LearnedPattern.objects.create(
        owner=owner, project=project, kind=PatternKind.ERROR_FIX, key=tag, observed_count=2,
        confidence=0.5, data={"command": "pytest", "signature": "importerror: cannot import",
                              "error": f"{tag} ImportError", "fix_files": [f"{tag}/a.py"]})


@pytest.fixture
def logs(alice, bob, charlie):
    seed(alice, "shop", "alice-shop")
    seed(alice, "blog", "alice-blog")
    seed(bob, "shop", "bob-shop")


ENDPOINTS = {
    "history": ("/api/v1/work/files/history?path=a.py", lambda r: {i["path"] for i in r}),
    "co-edits": ("/api/v1/work/co-edits", lambda r: {i["file_a"] for i in r}),
    "rates": ("/api/v1/work/tools/success-rates", lambda r: {i["tool_name"] for i in r}),
    "open": ("/api/v1/work/tasks/open", lambda r: {i["description"] for i in r}),
    "fixes": ("/api/v1/work/error-fixes?error_text=ImportError: cannot import x",
              lambda r: {i["data"]["error"] for i in r}),
    "patterns": ("/api/v1/work/patterns", lambda r: {i["data"]["error"] for i in r}),
}
SEEN = {  # what alice's unrestricted key sees on each: both her projects, never bob's
    "history": {"alice-shop/a.py", "alice-blog/a.py"},
    "co-edits": {"alice-shop/a.py", "alice-blog/a.py"},
    "rates": {"alice-shop-tool", "alice-blog-tool"},
    "open": {"alice-shop open", "alice-blog open"},
    "fixes": {"alice-shop ImportError", "alice-blog ImportError"},
    "patterns": {"alice-shop ImportError", "alice-blog ImportError"},
}


@pytest.mark.parametrize("name", ENDPOINTS)
def test_each_query_answers_only_its_callers_own_log(name, logs, alice, charlie,
                                                    api_client_for):
    url, names = ENDPOINTS[name]
    answer = api_client_for(alice).get(url)
    assert answer.status_code == 200, answer.content
    assert names(answer.json()) == SEEN[name]
    assert api_client_for(charlie).get(url).json() == []


@pytest.mark.parametrize("name", ENDPOINTS)
def test_a_project_parameter_or_a_restricted_key_narrows_each_query(name, logs, alice,
                                                                    api_client_for):
    url, names = ENDPOINTS[name]
    join = "&" if "?" in url else "?"
    mine = names(api_client_for(alice).get(f"{url}{join}project=blog").json())
    assert mine == {n for n in SEEN[name] if "alice-blog" in n}
    _, raw = create_api_key(owner=alice, name="shop only", project="shop")
    restricted = APIClient()
    restricted.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert names(restricted.get(url).json()) == {n for n in SEEN[name] if "alice-shop" in n}
    assert restricted.get(f"{url}{join}project=blog").status_code == 403


def test_bad_parameters_get_a_400_naming_them(alice, api_client_for):
    client = api_client_for(alice)
    answer = client.get("/api/v1/work/co-edits?min_count=0")
    assert answer.status_code == 400 and "min_count" in answer.json()["error"]["fields"]
    assert client.get("/api/v1/work/files/history").status_code == 400
    assert client.get("/api/v1/work/patterns?kind=nope").status_code == 400


def item(id, type, tokens, minutes_ago, **kw):
    return {"id": id, "type": type, "tokens": tokens,
            "timestamp": (timezone.now() - timedelta(minutes=minutes_ago)).isoformat(), **kw}


def test_pruning_a_full_window_answers_what_to_drop_and_logs_it(alice, bob, api_client_for):
    body = {"project": "shop", "session_id": "s-1", "limit": 1000, "items": [
        item("sys", "system_prompt", 300, 120, sticky=True),
        item("snip", "code_snippet", 300, 120, file_path="app/auth.py", line_range=[10, 60],
             summary="the login view"),
        item("ask", "user_message", 300, 0)]}
    answer = api_client_for(alice).post("/api/v1/work/context-window/prune", body,
                                        format="json")
    assert answer.status_code == 200, answer.content
    result = answer.json()
    assert (result["needed"], result["target"], result["freed"]) == (True, 270, 300)
    assert [p["id"] for p in result["prune"]] == ["snip"]
    snapshot = ContextSnapshot.objects.get(pk=result["snapshot_id"])
    assert snapshot.owner == alice and snapshot.total_tokens == 600
    assert [i["id"] for i in snapshot.pruned_items] == ["snip"]
    viewed = FileInteraction.objects.get(owner=alice)
    assert (viewed.path, viewed.operation, viewed.line_start, viewed.line_end) == (
        "app/auth.py", "read", 10, 60)
    assert "the login view" in viewed.context
    assert not FileInteraction.objects.filter(owner=bob).exists()


def test_a_window_below_the_threshold_is_left_alone_and_not_snapshotted(alice, api_client_for):
    answer = api_client_for(alice).post("/api/v1/work/context-window/prune", {
        "limit": 1000, "items": [item("a", "tool_result", 100, 0)]}, format="json")
    assert answer.json()["needed"] is False and answer.json()["snapshot_id"] is None
    assert not ContextSnapshot.objects.exists()


def test_a_malformed_window_is_refused_with_400(alice, api_client_for):
    client = api_client_for(alice)
    for body in ({"limit": 10, "items": [item("a", "weird", 1, 0)]},
                 {"limit": 10, "items": [item("a", "tool_result", -1, 0)]},
                 {"limit": 10, "items": [item("a", "tool_result", 1, 0),
                                         item("a", "tool_result", 1, 0)]},
                 {"limit": 10, "items": [item("a", "code_snippet", 1, 0,
                                             line_range=[1, 2**31])]},
                 {"items": []}):
        assert client.post("/api/v1/work/context-window/prune", body,
                           format="json").status_code == 400


def test_a_line_range_ending_before_it_starts_is_refused_naming_it(alice, api_client_for):
    answer = api_client_for(alice).post("/api/v1/work/context-window/prune", {
        "limit": 10, "items": [item("snip", "code_snippet", 100, 0, file_path="app/auth.py",
                                    line_range=[60, 10])]}, format="json")
    assert answer.status_code == 400
    assert list(answer.json()["error"]["fields"]) == ["items.0.line_range"]
    assert not FileInteraction.objects.exists() and not ContextSnapshot.objects.exists()


def test_a_restricted_key_cannot_log_a_pruning_into_another_project(alice):
    _, raw = create_api_key(owner=alice, name="shop only", project="shop")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    answer = client.post("/api/v1/work/context-window/prune", {
        "project": "blog", "limit": 10, "items": [item("a", "tool_result", 100, 0)]},
        format="json")
    assert answer.status_code == 403


def test_a_window_of_thousands_of_huge_items_is_snapshotted_whole(alice, api_client_for):
    items = [item(f"i{n}", "tool_result", 10_000_000, n % 60) for n in range(300)]
    answer = api_client_for(alice).post("/api/v1/work/context-window/prune", {
        "limit": 100_000_000, "items": items}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["target"] == 900_000_000  # 30 % of 3,000,000,000
    assert ContextSnapshot.objects.get().total_tokens == 3_000_000_000 - answer.json()["freed"]


@pytest.mark.django_db(transaction=True)
def test_pruning_outside_a_test_transaction_writes_its_snapshot(alice, api_client_for):
    """As served: no request-wide transaction around the view."""
    Task.objects.create(owner=alice, project="shop", session_id="s-1", description="open")
    answer = api_client_for(alice).post("/api/v1/work/context-window/prune", {
        "project": "shop", "session_id": "s-1", "limit": 100,
        "items": [item("a", "tool_result", 90, 30)]}, format="json")
    assert answer.status_code == 200, answer.content
    assert ContextSnapshot.objects.get().task.description == "open"
