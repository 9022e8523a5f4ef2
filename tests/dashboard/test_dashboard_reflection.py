"""The reflection screen: insights with their citations, review, reflect now, the trigger."""

import json

import pytest
from django.utils.html import escape

from memories.models import Job, JobKind, Memory
from memories.services.remembering import remember
from reflection import services as reflection
from reflection.models import Insight, InsightStatus
from tests.reflection.test_reflection import store


@pytest.fixture
def reflected(alice):
    store(alice)
    reflection.reflect(owner=alice)
    return Insight.objects.for_owner(alice)


def test_it_lists_insights_with_the_memories_they_cite(alice, client, reflected,
                                                       django_assert_max_num_queries):
    assert reflected.exists()
    client.force_login(alice)
    with django_assert_max_num_queries(12):
        page = client.get("/reflection/")
    assert page.status_code == 200
    insight = reflected.first()
    assert escape(insight.memory.content) in page.content.decode()
    cited = Memory.objects.get(pk=insight.cited_ids[0])
    assert f"/memories/{cited.pk}/" in page.content.decode()


def test_it_shows_the_trigger_state(alice, client):
    remember(owner=alice, content="Nightly backups run at 02:00", importance=9)
    client.force_login(alice)
    page = client.get("/reflection/").content.decode()
    assert "Importance of new memories: 9 of 150" in page
    assert "Reflect now" in page


def test_a_recommendation_is_said_once_under_the_screens_own_title(alice, client):
    for number in range(20):  # 180 of importance since the last reflection, past 150
        remember(owner=alice, content=f"Service {number} pages the on-call team at night",
                 importance=9)
    client.force_login(alice)
    page = client.get("/reflection/").content.decode()
    assert "<title>Reflection · Engram</title>" in page
    assert page.count("Reflection recommended") == 1


def test_approving_an_insight_over_htmx_returns_the_list_and_an_event(alice, client,
                                                                      reflected):
    insight = reflected.first()
    client.force_login(alice)
    response = client.post(f"/reflection/{insight.pk}/review", {"decision": "approve"},
                           HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "insightReviewed" in json.loads(response["HX-Trigger"])
    assert 'id="insight-list"' in response.content.decode()
    assert "<html" not in response.content.decode()
    insight.refresh_from_db()
    assert insight.status == InsightStatus.APPROVED


def test_the_status_filter_narrows_the_list(alice, client, reflected):
    insight = reflected.first()
    reflection.review(insight, approve=False, by=alice)
    client.force_login(alice)
    rejected = client.get("/reflection/?status=rejected").content.decode()
    approved = client.get("/reflection/?status=approved").content.decode()
    assert escape(insight.memory.content) in rejected
    assert escape(insight.memory.content) not in approved


def test_reflect_now_queues_a_job(alice, client, django_capture_on_commit_callbacks):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/reflection/reflect")
    assert response.status_code == 302
    job = Job.objects.get(owner=alice, kind=JobKind.REFLECT)
    job.refresh_from_db()
    assert job.status == "done"


def test_another_persons_insight_is_a_404_and_stays_as_it_was(alice, bob, charlie, client,
                                                             reflected):
    insight = reflected.first()
    for other in (bob, charlie):
        client.force_login(other)
        assert escape(insight.memory.content) not in client.get(
            "/reflection/").content.decode()
        assert client.post(f"/reflection/{insight.pk}/review",
                           {"decision": "reject"}).status_code == 404
    insight.refresh_from_db()
    assert insight.status == InsightStatus.PENDING_REVIEW


def test_the_screen_needs_a_login(db, client):
    response = client.get("/reflection/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_flag_is_shown_until_a_person_approves_the_insight(alice, client, reflected):
    insight = reflected.first()
    Insight.objects.filter(pk=insight.pk).update(status=InsightStatus.FLAGGED,
                                                 flagged_reason="its evidence was edited")
    client.force_login(alice)
    assert "its evidence was edited" in client.get("/reflection/").content.decode()
    page = client.post(f"/reflection/{insight.pk}/review", {"decision": "approve"},
                       HTTP_HX_REQUEST="true").content.decode()
    assert "its evidence was edited" not in page
