"""A memory's page names its successor only to someone who reads it: merged into a memory
its author has since made private, it says it was superseded and links nowhere for the
other members, in its history neither, nor does the contradiction's page; the author of
the merged memory still follows the link to it."""

import pytest
from django.urls import reverse

from tests.helpers import merged_out_of_sight

pytestmark = pytest.mark.django_db


@pytest.fixture
def merge(team, alice, bob):
    return merged_out_of_sight(team, alice, bob)


def pages(client, merge):
    return "".join(client.get(reverse(name, args=[pk])).content.decode() for name, pk in (
        ("memory", merge.memory_a_id), ("contradiction_detail", merge.pk)))


def test_another_member_is_told_it_was_superseded_but_not_by_what(client, alice, merge):
    client.force_login(alice)
    shown = pages(client, merge)
    assert "No longer true" in shown
    assert str(merge.merged_into_id) not in shown and 'id="successor"' not in shown


def test_the_author_of_the_merged_memory_follows_the_link_to_it(client, bob, merge):
    client.force_login(bob)
    shown = pages(client, merge)
    assert f'href="{reverse("memory", args=[merge.merged_into_id])}" id="successor"' in shown
