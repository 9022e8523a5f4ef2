"""Context preview: what an agent would receive, token for token, without it counting
as a retrieval."""

import re

import pytest

from memories.models import Memory, UsageEvent
from memories.services.context import assemble_context
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(alice, bob):
    remember(owner=alice, content="Always run the migrations before deploying",
                      kind="instruction")
    remember(owner=alice, content="The deploy failed because migrations were missing",
                      kind="error")
    remember(owner=bob, content="Bob deploys by hand with migrations on Sundays")


def test_the_empty_form_is_shown_first(client, alice):
    client.force_login(alice)
    page = client.get("/context/").content.decode()
    assert 'name="prompt"' in page and 'name="budget"' in page and 'name="format"' in page
    assert "Tokens per tier" not in page


def test_the_preview_shows_the_context_with_token_counts_per_tier(client, alice, stored):
    client.force_login(alice)
    page = client.get("/context/", {"prompt": "how do I deploy with migrations?",
                                    "budget": 3000, "format": "markdown"}).content.decode()
    assert "Always run the migrations" in page and "Bob deploys" not in page
    assert "Tokens per tier" in page
    for tier in ("critical", "relevant", "background", "index"):
        assert f"<th scope=\"col\">{tier}</th>" in page
    assert "of 3000 tokens" in page


@pytest.mark.parametrize("budget", [500, 3000])
def test_the_tokens_per_tier_add_up_to_the_tokens_used(client, alice, stored, budget):
    client.force_login(alice)
    page = client.get("/context/", {"prompt": "how do I deploy with migrations?",
                                    "budget": budget, "format": "markdown"}).content.decode()
    used = int(re.search(r"<strong>(\d+)</strong> of", page).group(1))
    row = re.search(r'<table class="tiers">.*?<tbody><tr>(.*?)</tr>', page,
                    re.DOTALL).group(1)
    assert used > 0 and sum(map(int, re.findall(r"<td>(\d+)</td>", row))) == used
    assert '<th scope="col">headings and framing</th>' in page


def test_the_preview_matches_what_the_api_hands_an_agent(client, alice, stored):
    client.force_login(alice)
    page = client.get("/context/", {"prompt": "deploy migrations", "budget": 500,
                                    "format": "xml"}).content.decode()
    built = assemble_context(owner=alice, query="deploy migrations", max_tokens=500,
                                      fmt="xml")
    from django.utils.html import escape
    assert escape(built.context) in page and f"<strong>{built.tokens_used}</strong>" in page
    for ref, hit in enumerate(built.used, 1):  # each memory under the [ref] the text gives it
        assert (f'<span class="ref">[{ref}]</span> <a href="/memories/{hit.memory.pk}/"'
                in page)


def test_a_preview_is_not_a_retrieval(client, alice, stored):
    client.force_login(alice)
    client.get("/context/", {"prompt": "deploy migrations", "budget": 500,
                             "format": "markdown", "session_id": "s1"})
    assert not UsageEvent.objects.exists()
    assert set(Memory.objects.values_list("access_count", flat=True)) == {0}


def test_bad_values_are_shown_next_to_their_fields(client, alice):
    client.force_login(alice)
    page = client.get("/context/", {"prompt": "  ", "budget": 0,
                                    "format": "yaml"}).content.decode()
    assert "Type the prompt to preview a context for." in page
    assert "Ensure this value is greater than or equal to 1." in page
    assert "Select a valid choice." in page


def test_an_htmx_preview_returns_only_the_preview_partial(client, alice, stored):
    client.force_login(alice)
    partial = client.get("/context/", {"prompt": "deploy", "budget": 500, "format": "json"},
                         HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section id="preview"') and "<html" not in partial


def test_a_person_previews_only_their_own_memories(client, bob, charlie, stored):
    client.force_login(charlie)
    page = client.get("/context/", {"prompt": "deploy migrations", "budget": 500,
                                    "format": "markdown"}).content.decode()
    assert "empty context" in page and "migrations before" not in page


def test_the_preview_needs_a_login(client):
    assert client.get("/context/").status_code == 302
