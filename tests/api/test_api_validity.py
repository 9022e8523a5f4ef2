"""What is no longer true stops reaching agents the moment a person says so; history stays
one parameter away, and is marked as history."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Contradiction, ContradictionStatus, Memory
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

OLD = "The staging database runs PostgreSQL 15."
NEW = "The staging database runs PostgreSQL 16."
QUESTION = "which PostgreSQL version does the staging database run?"


@pytest.fixture
def api(alice, api_client_for):
    return api_client_for(alice)


@pytest.fixture
def disputed(alice):
    old = remember(owner=alice, content=OLD).memory
    new = remember(owner=alice, content=NEW).memory
    return Contradiction.objects.create(owner=alice, memory_a=old, memory_b=new)


def search(api, **filters):
    response = api.post("/api/v1/memories/search", {"query": QUESTION, "filters": filters},
                        format="json")
    assert response.status_code == 200, response.content
    return [hit["memory"]["content"] for hit in response.json()["results"]]


def context(api, **body):
    response = api.post("/api/v1/memories/context", {"query": QUESTION, **body},
                        format="json")
    assert response.status_code == 200, response.content
    return response.json()["context"]


def resolve(api, contradiction, resolution, **body):
    return api.post(f"/api/v1/contradictions/{contradiction.pk}/resolve",
                    {"resolution": resolution, **body}, format="json")


def test_before_resolution_both_sides_reach_the_agent_marked_as_disputed(api, disputed):
    assert set(search(api)) >= {OLD, NEW}
    assert context(api).count("Disputed") == 2


def test_right_after_b_wins_the_loser_is_gone_from_search_and_context(api, disputed):
    assert resolve(api, disputed, "b_wins").status_code == 200
    assert NEW in search(api) and OLD not in search(api)
    text = context(api)
    assert NEW in text and OLD not in text and "Disputed" not in text


def test_history_is_one_parameter_away_and_marked_as_such(api, disputed):
    before = timezone.now()
    resolve(api, disputed, "b_wins")
    assert OLD in search(api, include_superseded=True)
    assert OLD in search(api, valid_at=before.isoformat())
    text = context(api, include_superseded=True)
    assert OLD in text
    assert f"(Superseded by memory {disputed.memory_b_id.hex[-8:]} on {before:%Y-%m-%d}" in text
    # What held before the resolution includes the old fact, marked as no longer true.
    then = context(api, valid_at=before.isoformat())
    assert OLD in then and "Superseded by memory" in then


def test_a_merge_serves_the_merged_memory_only(api, disputed):
    merged = "The staging database runs PostgreSQL 16 since the March upgrade."
    response = resolve(api, disputed, "merged", merged_content=merged)
    assert response.status_code == 200, response.content
    found = search(api)
    assert merged in found and OLD not in found and NEW not in found


def test_a_merge_into_the_text_of_one_side_is_refused_and_changes_nothing(api, disputed):
    response = resolve(api, disputed, "merged", merged_content=NEW)
    assert 400 <= response.status_code < 500
    assert "B wins" in response.json()["error"]["message"]
    assert Memory.objects.filter(superseded_by__isnull=False).count() == 0
    disputed.refresh_from_db()
    assert disputed.status == ContradictionStatus.OPEN


def test_other_open_contradictions_about_the_loser_are_closed_with_the_reason(
        api, alice, disputed):
    third = remember(owner=alice, content="Staging still runs PostgreSQL 14.").memory
    about_loser = Contradiction.objects.create(owner=alice, memory_a=disputed.memory_a,
                                               memory_b=third)
    about_winner = Contradiction.objects.create(owner=alice, memory_a=third,
                                                memory_b=disputed.memory_b)
    resolve(api, disputed, "b_wins")
    about_loser.refresh_from_db()
    about_winner.refresh_from_db()
    assert about_loser.status == ContradictionStatus.RESOLVED
    assert f"superseded by {disputed.memory_b_id}" in about_loser.note
    assert about_winner.status == ContradictionStatus.OPEN


def test_an_expired_memory_is_left_out_unless_history_is_asked_for(api, alice):
    memory = remember(owner=alice, content="Deploys are frozen on staging until the audit "
                                            "of the PostgreSQL database ends.",
                      expires_at=timezone.now() + timedelta(days=1)).memory
    assert memory.content in search(api)
    ended = timezone.now() - timedelta(days=3)
    Memory.objects.filter(pk=memory.pk).update(expires_at=ended)
    assert memory.content not in search(api)
    assert memory.content in search(api, include_superseded=True)
    assert f"(Expired on {ended:%Y-%m-%d}.)" in context(api, include_superseded=True)


def test_a_memory_not_yet_valid_waits_for_its_time(api, alice):
    start = timezone.now() + timedelta(days=10)
    memory = remember(owner=alice, content="The staging database moves to PostgreSQL 17.",
                      valid_from=start).memory
    assert memory.content not in search(api)
    assert memory.content in search(api, valid_at=(start + timedelta(hours=1)).isoformat())
    assert f"(Not true before {start:%Y-%m-%d}.)" in context(api, include_superseded=True)


def test_related_leaves_out_the_loser_unless_history_is_asked_for(api, disputed):
    resolve(api, disputed, "b_wins")
    url = f"/api/v1/memories/{disputed.memory_b_id}/related"
    now = [row["memory"]["id"] for row in api.get(url).json()]
    then = [row["memory"]["id"] for row in api.get(url, {"include_superseded": "true"}).json()]
    assert str(disputed.memory_a_id) not in now
    assert str(disputed.memory_a_id) in then


def test_repeating_a_superseded_fact_stores_it_anew_instead_of_reviving_the_loser(
        api, alice, disputed):
    resolve(api, disputed, "b_wins")
    again = remember(owner=alice, content=OLD)
    assert again.created
    assert again.memory.pk != disputed.memory_a_id


@pytest.mark.parametrize("body, message", [
    ({"expires_at": "2026-01-01T00:00:00Z"}, "already past"),
    ({"valid_from": "2099-02-01T00:00:00Z", "expires_at": "2099-01-01T00:00:00Z"},
     "not after valid_from"),
])
def test_a_memory_that_would_never_hold_is_refused(api, body, message):
    response = api.post("/api/v1/memories", {"content": "Deploys are frozen until the audit "
                                                        "ends.", **body}, format="json")
    assert response.status_code == 400
    assert message in str(response.json())
    assert not Memory.objects.exists()


def test_a_history_flag_that_is_not_a_yes_or_no_is_a_400(api, disputed):
    response = api.get(f"/api/v1/memories/{disputed.memory_b_id}/related",
                       {"include_superseded": "perhaps"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
