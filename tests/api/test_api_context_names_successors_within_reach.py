"""A key restricted to a project is not told, in a context either, of a successor in
another project: the context says only that the memory was superseded, as the memory's
own `superseded_by` is null to that key (ScopedView.shown)."""

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from memories.models import Memory
from memories.services.api_keys import create_api_key
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

QUESTION = "which port does the orders API listen on?"


def client_for(owner, project):
    _, raw = create_api_key(owner=owner, name=f"{project} agent", project=project)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture
def moved_successor(alice):
    """alice's shop memory, superseded by one she has moved to project blog since."""
    old = remember(owner=alice, content="The orders API listens on port 8080",
                   project="shop").memory
    new = remember(owner=alice, content="The orders API listens on port 9090",
                   project="blog").memory
    Memory.objects.filter(pk=old.pk).update(superseded_by=new, valid_to=timezone.now())
    return old, new


def test_a_context_names_no_successor_beyond_the_keys_project(alice, moved_successor):
    old, new = moved_successor
    shop = client_for(alice, "shop")
    assert shop.get(f"/api/v1/memories/{old.pk}").json()["superseded_by"] is None
    built = shop.post("/api/v1/memories/context",
                      {"query": QUESTION, "include_superseded": True}, format="json").json()
    assert [m["id"] for m in built["memories"]] == [str(old.pk)]
    assert "Superseded" in built["context"]
    assert new.pk.hex[-8:] not in built["context"]


def test_an_unrestricted_key_is_told_where_it_went(alice, moved_successor, api_client_for):
    _, new = moved_successor
    built = api_client_for(alice).post(
        "/api/v1/memories/context",
        {"query": QUESTION, "project": "shop", "include_superseded": True},
        format="json").json()
    assert f"Superseded by memory {new.pk.hex[-8:]}" in built["context"]


def test_nor_does_the_mcp_context_tool_for_such_a_key(alice, moved_successor):
    from memories.mcp import operations
    from memories.selectors import Reach

    old, new = moved_successor
    text = operations.context(alice, {"query": QUESTION, "include_superseded": True},
                              reach=Reach("shop"))
    assert old.pk.hex[-8:] in text and "Superseded" in text
    assert new.pk.hex[-8:] not in text
