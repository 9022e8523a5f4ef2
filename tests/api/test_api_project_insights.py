"""A project's insights over the API: every member reads them, its owners and editors
review them; a reader's review is a 403 that changes nothing (approving, which leaves
the insight's memory as it is, included); outside the project it is a 404."""

import pytest

from memories.models import Scope, Status
from memories.services.remembering import remember
from reflection.models import Insight, InsightStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def project_insight(team, alice):
    memory = remember(owner=alice, content="Payments code changes always need a second "
                      "reviewer", project=team.name, scope=Scope.PROJECT,
                      shared_with=team).memory
    return Insight.objects.create(owner=alice, memory=memory, question="What do reviews need?",
                                  cited_ids=[], text_hash="t", cited_key="c")


def review(client, insight, approve):
    return client.post(f"/api/v1/insights/{insight.pk}/review", {"approve": approve},
                       format="json")


def listed(client):
    return [i["id"] for i in client.get("/api/v1/insights").json()["results"]]


@pytest.mark.parametrize("approve", [True, False])
def test_a_readers_review_is_a_403_and_changes_nothing(project_insight, dana, api_client_for,
                                                      approve):
    client = api_client_for(dana)
    assert listed(client) == [str(project_insight.pk)]
    answer = review(client, project_insight, approve)
    assert answer.status_code == 403
    assert "reader of project" in answer.json()["error"]["message"]
    project_insight.refresh_from_db()
    assert project_insight.status == InsightStatus.PENDING_REVIEW
    assert project_insight.reviewed_by is None
    assert project_insight.memory.status == Status.ACTIVE


def test_an_outsider_has_no_such_insight(project_insight, charlie, api_client_for):
    client = api_client_for(charlie)
    assert listed(client) == []
    assert review(client, project_insight, True).status_code == 404
    project_insight.refresh_from_db()
    assert project_insight.status == InsightStatus.PENDING_REVIEW


@pytest.mark.parametrize("person", ["alice", "bob"])
def test_an_owner_or_editor_approves_it_and_is_recorded(project_insight, api_client_for,
                                                        person, request):
    user = request.getfixturevalue(person)
    answer = review(api_client_for(user), project_insight, True)
    assert answer.status_code == 200 and answer.json()["reviewed_by"] == person
    project_insight.refresh_from_db()
    assert (project_insight.status, project_insight.reviewed_by) == (InsightStatus.APPROVED,
                                                                     user)


def test_a_member_is_told_only_the_cited_memories_they_read(project_insight, alice, bob, team,
                                                            api_client_for):
    private = remember(owner=alice, content="My own note: Stripe retries are flaky").memory
    shared = remember(owner=alice, content="Payments reviews go to the payments team",
                      project=team.name, scope=Scope.PROJECT, shared_with=team).memory
    Insight.objects.filter(pk=project_insight.pk).update(cited_ids=[private.pk, shared.pk])

    def cited(user):
        [insight] = api_client_for(user).get("/api/v1/insights").json()["results"]
        return insight["cited_ids"]

    assert cited(bob) == [str(shared.pk)]
    assert cited(alice) == [str(private.pk), str(shared.pk)]  # the author's, all of them
