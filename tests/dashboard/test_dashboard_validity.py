"""A person says what is no longer true, and the dashboard shows it at once: searches leave
the loser out, the list badges and filters it, its page points to its successor, and the
navigation badge counts after the resolution."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memories.models import Contradiction, Memory
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

OLD = "The staging database runs PostgreSQL 15."
NEW = "The staging database runs PostgreSQL 16."
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def resolved(signed_in, alice):
    """Two disputed memories, and a third dispute; the first resolved "B wins" through the
    dashboard over htmx. Returns the response, the old and the new memory."""
    old = remember(owner=alice, content=OLD).memory
    new = remember(owner=alice, content=NEW).memory
    disputed = Contradiction.objects.create(owner=alice, memory_a=old, memory_b=new)
    Contradiction.objects.create(
        owner=alice, memory_a=remember(owner=alice, content="Indent Python code with tabs.").memory,
        memory_b=remember(owner=alice, content="Releases ship every second Tuesday.").memory)
    response = signed_in.post(reverse("contradiction_detail", args=[disputed.pk]),
                              {"resolution": "b_wins"}, **HTMX)
    assert response.status_code == 200
    return response, old, new


def shown(client, **params):
    page = client.get(reverse("home"), params).content.decode()
    return page


def test_the_answer_to_a_resolution_carries_the_badge_counted_after_it(resolved):
    response, _, _ = resolved
    # Two were open; the answer swaps the page's badge for the count after resolving.
    assert ('<span id="contradictions-badge" hx-swap-oob="true"> '
            '<span class="badge" aria-label="1 open">1</span></span>'
            in response.content.decode())


def test_a_search_right_after_leaves_the_loser_out(signed_in, resolved):
    page = shown(signed_in, q="which PostgreSQL version does staging run")
    assert NEW in page and OLD not in page


def test_the_list_filters_by_what_holds_and_badges_what_does_not(signed_in, resolved):
    assert OLD not in shown(signed_in)
    superseded = shown(signed_in, validity="superseded")
    assert OLD in superseded and NEW not in superseded
    assert '<span class="flag superseded">superseded</span>' in superseded
    everything = shown(signed_in, validity="all")
    assert OLD in everything and NEW in everything
    history = shown(signed_in, q="staging PostgreSQL version", validity="all")
    assert OLD in history and NEW in history


def test_an_expired_memory_is_found_under_expired(signed_in, alice):
    memory = remember(owner=alice, content="Deploys are frozen until the audit ends.",
                      expires_at=timezone.now() + timedelta(days=1)).memory
    Memory.objects.filter(pk=memory.pk).update(expires_at=timezone.now() - timedelta(days=1))
    assert memory.content not in shown(signed_in)
    expired = shown(signed_in, validity="expired")
    assert memory.content in expired and '<span class="flag expired">expired</span>' in expired


def test_the_losers_page_links_its_successor_and_the_winners_lists_its_predecessor(
        signed_in, resolved):
    _, old, new = resolved
    losers = signed_in.get(reverse("memory", args=[old.pk])).content.decode()
    assert 'id="validity"' in losers and "No longer true" in losers
    assert f'href="{reverse("memory", args=[new.pk])}" id="successor"' in losers
    winners = signed_in.get(reverse("memory", args=[new.pk])).content.decode()
    assert 'id="validity"' not in winners
    assert f'href="{reverse("memory", args=[old.pk])}" class="predecessor"' in winners
