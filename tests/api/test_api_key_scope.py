"""API keys that expire, and keys restricted to one project: what they read and write."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from memories import selectors
from memories.models import ApiKey, Memory
from memories.services.api_keys import create_api_key
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


def client_with(raw):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def test_an_expired_key_is_refused_with_a_401_that_says_expired(alice):
    key, raw = create_api_key(owner=alice, name="short", expires_in_days=1)
    client = client_with(raw)
    assert client.get("/api/v1/memories").status_code == 200
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    selectors.forget_api_key(key.key_hash)  # as API_KEY_MEMORY_SECONDS later
    answer = client.get("/api/v1/memories")
    assert answer.status_code == 401
    assert "expired" in answer.json()["error"]["message"]
    assert ApiKey.objects.matching(raw) is None


def test_an_unknown_key_still_says_unknown_or_revoked(alice):
    answer = client_with("engram_nope").get("/api/v1/memories")
    assert answer.status_code == 401 and "Unknown or revoked" in answer.json()["error"]["message"]


@pytest.fixture
def shop_key(alice):
    """A key of alice's restricted to project "shop", and a memory in each project."""
    shop = remember(owner=alice, content="The shop checkout uses Stripe webhooks.",
                    project="shop").memory
    blog = remember(owner=alice, content="The blog checkout page is static HTML.",
                    project="blog").memory
    general = remember(owner=alice, content="Alice prefers tabs over spaces in checkout code.").memory
    _, raw = create_api_key(owner=alice, name="shop agent", project="shop")
    return client_with(raw), shop, blog, general


def test_a_restricted_key_reads_only_its_project(shop_key):
    client, shop, blog, general = shop_key
    listed = client.get("/api/v1/memories").json()["results"]
    assert [m["id"] for m in listed] == [str(shop.pk)]
    hits = client.post("/api/v1/memories/search", {"query": "checkout"}, format="json").json()
    assert [h["memory"]["id"] for h in hits["results"]] == [str(shop.pk)]
    context = client.post("/api/v1/memories/context",
                          {"query": "checkout", "with_general": True}, format="json").json()
    assert [m["id"] for m in context["memories"]] == [str(shop.pk)]
    assert client.get(f"/api/v1/memories/{shop.pk}").status_code == 200
    for other in (blog, general):
        assert client.get(f"/api/v1/memories/{other.pk}").status_code == 404
        assert client.get(f"/api/v1/memories/{other.pk}/related").status_code == 404
        assert client.post(f"/api/v1/memories/{other.pk}/erase").status_code == 404
    exported = client.get("/api/v1/export")
    text = b"".join(exported.streaming_content).decode()
    assert "Stripe" in text and "blog" not in text and "tabs" not in text


@pytest.mark.parametrize("path,body", [
    ("/api/v1/memories/search", {"query": "checkout", "filters": {"project": "blog"}}),
    ("/api/v1/memories/context", {"query": "checkout", "project": "blog"}),
])
def test_a_restricted_key_naming_another_project_is_a_403(shop_key, path, body):
    client = shop_key[0]
    answer = client.post(path, body, format="json")
    assert answer.status_code == 403
    assert "restricted to project 'shop'" in answer.json()["error"]["message"]
    assert client.get("/api/v1/memories", {"project": "blog"}).status_code == 403


def test_a_restricted_key_writes_only_into_its_project(shop_key, alice):
    client = shop_key[0]
    refused = client.post("/api/v1/memories", {"content": "Blog posts go out Fridays.",
                                               "project": "blog"}, format="json")
    assert refused.status_code == 403 and "blog" in refused.json()["error"]["message"]
    assert not Memory.objects.filter(content__startswith="Blog posts").exists()
    made = client.post("/api/v1/memories", {"content": "Refunds need a manager's OK."},
                       format="json")
    assert made.status_code == 201 and made.json()["memory"]["project"] == "shop"
    named = client.post("/api/v1/memories", {"content": "Shop ships on Mondays.",
                                             "project": "shop"}, format="json")
    assert named.status_code == 201 and named.json()["memory"]["project"] == "shop"
    assert client.post("/api/v1/reflect", {}, format="json").status_code == 403


def test_an_unrestricted_key_still_reaches_every_project(alice, api_client_for, shop_key):
    listed = api_client_for(alice).get("/api/v1/memories").json()["results"]
    assert len(listed) == 3


def test_create_api_key_command_takes_an_expiry_and_a_project(alice, capsys):
    call_command("create_api_key", "alice", "--expires-in-days", "7", "--project", "shop")
    raw = capsys.readouterr().out.strip()
    key = ApiKey.objects.matching(raw)
    assert key.project == "shop"
    assert timedelta(days=6) < key.expires_at - timezone.now() <= timedelta(days=7)


def test_create_api_key_command_refuses_a_bad_expiry(db):
    from django.core.management.base import CommandError
    with pytest.raises(CommandError, match="whole number of days"):
        call_command("create_api_key", "dora", "--expires-in-days", "0")
    from django.contrib.auth import get_user_model
    assert not get_user_model().objects.filter(username="dora").exists()


def test_a_restricted_key_learns_nothing_of_reflection_which_spans_every_project(
        shop_key, alice, api_client_for):
    from reflection.models import Insight

    blog = Memory.objects.get(project="blog")
    Insight.objects.create(owner=alice, memory=blog, question="What is the blog?",
                           cited_ids=[], text_hash="t", cited_key="c")
    refused = shop_key[0].get("/api/v1/reflection")
    assert refused.status_code == 403
    assert "reflection spans every project" in refused.json()["error"]["message"]
    assert "insights" not in refused.json()
    state = api_client_for(alice).get("/api/v1/reflection").json()
    assert state["insights"]["pending_review"] == 1


@pytest.fixture
def blogs_things(shop_key, alice):
    """What alice keeps in project "blog": a contradiction, an insight, a job and an
    observation, beside the memory the shop key is kept away from."""
    from memories.models import Contradiction, Job, Observation
    from reflection.models import Insight

    blog = Memory.objects.get(project="blog")
    other = remember(owner=alice, content="The blog checkout page is a React app.",
                     project="blog").memory
    Contradiction.objects.filter(owner=alice).delete()
    return {
        "memory": blog,
        "contradiction": Contradiction.objects.create(owner=alice, memory_a=blog,
                                                      memory_b=other, reason="Two."),
        "insight": Insight.objects.create(owner=alice, memory=other, question="The blog?",
                                          cited_ids=[blog.pk], text_hash="t", cited_key="c"),
        "job": Job.objects.create(owner=alice, kind="consolidate", params={}),
        "observation": Observation.objects.create(owner=alice, project="blog"),
    }


BLOG_CALLS = [
    ("get", "/api/v1/memories/{memory}/history", None),
    ("post", "/api/v1/memories/{memory}/feedback", {"signal": "helpful"}),
    ("patch", "/api/v1/memories/{memory}", {"pinned": True}),
    ("delete", "/api/v1/memories/{memory}", None),
    ("post", "/api/v1/contradictions/{contradiction}/resolve", {"resolution": "a_wins"}),
    ("post", "/api/v1/insights/{insight}/review", {"approve": True}),
    ("get", "/api/v1/jobs/{job}", None),
    ("get", "/api/v1/observations/{observation}", None),
]


@pytest.mark.parametrize(("method", "path", "body"), BLOG_CALLS)
def test_a_restricted_key_finds_nothing_of_another_project_and_changes_nothing(
        shop_key, blogs_things, alice, api_client_for, method, path, body):
    url = path.format(**{name: thing.pk for name, thing in blogs_things.items()})
    def blog_state():
        contradiction = blogs_things["contradiction"]
        contradiction.refresh_from_db()
        return contradiction.status, sorted(Memory.objects.filter(project="blog").values_list(
            "status", "pinned", "helpful_count"))

    before = blog_state()
    assert getattr(shop_key[0], method)(url, body, format="json").status_code == 404
    assert blog_state() == before
    assert getattr(api_client_for(alice), method)(url, body, format="json").status_code == 200


@pytest.mark.parametrize(("method", "path", "body"), [
    ("post", "/api/v1/projects", {"name": "blog"}),
    ("post", "/api/v1/projects/blog/members", {"username": "alice", "role": "owner"}),
    ("post", "/api/v1/observe", {"project": "blog",
                                 "messages": [{"role": "user", "text": "Blog runs Hugo"}]}),
    ("post", "/api/v1/memories/consolidate", {"dry_run": True}),
])
def test_a_restricted_key_may_not_act_on_another_project_or_on_all_of_them(
        shop_key, method, path, body):
    answer = getattr(shop_key[0], method)(path, body, format="json")
    assert answer.status_code == 403
    assert "restricted to project 'shop'" in answer.json()["error"]["message"]


def test_a_restricted_key_imports_only_into_its_project(shop_key, alice):
    client = shop_key[0]
    line = b'{"content": "The blog moved to Hugo."}\n'
    refused = client.post("/api/v1/import?project=blog", line,
                          content_type="application/x-ndjson")
    assert refused.status_code == 403 and not Memory.objects.filter(
        content__contains="Hugo").exists()
    assert client.post("/api/v1/import", line,
                       content_type="application/x-ndjson").status_code == 200
    assert Memory.objects.get(content__contains="Hugo").project == "shop"


@pytest.mark.parametrize("as_a_job", [False, True])
def test_a_restricted_keys_import_reports_a_line_naming_another_project_and_keeps_the_rest(
        shop_key, settings, django_capture_on_commit_callbacks, as_a_job):
    client = shop_key[0]
    if as_a_job:
        settings.ENGRAM_IMPORT_INLINE_LINES = 1
    lines = (b'{"content": "The blog moved to Hugo.", "project": "blog"}\n'
             b'{"content": "The shop ships from Lyon.", "project": "shop"}\n'
             b'{"content": "The shop returns window is 30 days."}\n')
    with django_capture_on_commit_callbacks(execute=True):  # the queue runs a job inline
        answer = client.post("/api/v1/import", lines, content_type="application/x-ndjson")
    report = client.get(answer.json()["url"]).json()["result"] if as_a_job else answer.json()
    assert report["imported"]["memories"] == 2 and report["skipped"] == 1
    assert report["errors"] == [{"line": 1, "message": (
        "This API key is restricted to project 'shop'; it cannot reach project 'blog'. "
        "Leave project out or name 'shop'.")}]
    assert not Memory.objects.filter(content__contains="Hugo").exists()
    kept = ["The shop ships from Lyon.", "The shop returns window is 30 days."]
    assert list(Memory.objects.filter(content__in=kept).values_list("project", flat=True)) \
        == ["shop", "shop"]
