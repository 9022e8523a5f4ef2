"""Two members rating one project memory from the dashboard: each person's vote counts
once per interval, and one member's vote does not use up another's."""

import pytest

from memories.models import Memory, Scope
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def decision(team, alice):
    return remember(owner=alice, content="The shop's checkout takes payments through Stripe",
                    project=team.name, scope=Scope.PROJECT, shared_with=team).memory


def rate(client, person, memory, signal):
    client.force_login(person)
    return client.post(f"/memories/{memory.pk}/feedback", {"signal": signal},
                       **HTMX).content.decode()


def test_an_editor_may_rate_a_memory_the_owner_rated_a_moment_ago(client, alice, bob,
                                                                   decision):
    assert "Marked helpful." in rate(client, alice, decision, "helpful")
    assert "Marked helpful." in rate(client, bob, decision, "helpful")
    assert Memory.objects.get(pk=decision.pk).helpful_count == 2
    assert list(decision.usage.filter(kind="helpful").values_list("given_by__username",
                                                                  flat=True)
                .order_by("created_at")) == ["alice", "bob"]


def test_each_person_still_rates_a_memory_once_per_interval(client, alice, bob, decision):
    rate(client, bob, decision, "helpful")
    assert "rated this memory recently" in rate(client, bob, decision, "harmful")
    assert "Marked harmful." in rate(client, alice, decision, "harmful")
    assert (Memory.objects.get(pk=decision.pk).helpful_count,
            Memory.objects.get(pk=decision.pk).harmful_count) == (1, 1)


def test_a_rater_who_leaves_keeps_the_owners_log_whole(client, alice, bob, decision):
    rate(client, bob, decision, "helpful")
    bob.delete()
    assert list(decision.usage.filter(kind="helpful").values_list("given_by", flat=True)) == [None]
