"""Over MCP too: an expired key is refused, a project key stays in its project."""

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone
from mcp_helpers import call, with_client

from memories.models import ApiKey, Contradiction, Memory
from memories.services.api_keys import create_api_key
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "curl", "version": "1"}}}


def test_an_expired_key_is_refused_with_a_401_that_says_expired(server_url, alice):
    key, raw = create_api_key(owner=alice, name="short", expires_in_days=1)
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    answer = httpx.post(f"{server_url}/mcp", json=INITIALIZE, headers={
        "Accept": "application/json, text/event-stream", "Authorization": f"Bearer {raw}"})
    assert answer.status_code == 401
    assert "expired" in answer.json()["error"]["message"]


def test_a_project_key_reads_and_writes_only_its_project(server_url, alice):
    shop = remember(owner=alice, content="The shop launch code is 7781.", project="shop").memory
    blog = remember(owner=alice, content="The blog launch code is 0451.", project="blog").memory
    other = remember(owner=alice, content="The blog launch code became 0452.",
                     project="blog").memory
    Contradiction.objects.filter(owner=alice).delete()
    Contradiction.objects.create(owner=alice, memory_a=blog, memory_b=other, reason="Two.")
    _, raw = create_api_key(owner=alice, name="shop agent", project="shop")

    async def scenario(client):
        try:
            index = (False, (await client.read_resource(
                "engram://projects/blog/index")).contents[0].text)
        except Exception as error:  # noqa: BLE001 - the refusal is what is checked
            index = (True, str(error))
        return [await call(client, "memory_search", query="launch code"),
                await call(client, "memory_context", query="launch code"),
                await call(client, "memory_contradictions"),
                await call(client, "memory_related", memory=str(blog.pk)),
                await call(client, "memory_forget", memory=str(blog.pk)),
                await call(client, "memory_search", query="launch code", project="blog"),
                await call(client, "memory_remember", content="Blog posts go out Fridays.",
                           project="blog"),
                await call(client, "memory_remember", content="Refunds need approval."),
                await call(client, "memory_reflect"),
                index]

    answers = with_client(server_url, raw, scenario)
    everything = "".join(text for _, text in answers)
    assert "0451" not in everything and "0452" not in everything
    assert "7781" in answers[0][1] and "7781" in answers[1][1]
    assert answers[2] == (False, "No open contradictions.")
    assert answers[3][0] and answers[4][0]  # another project's memory is not found
    assert answers[5][0] and "restricted to project 'shop'" in answers[5][1]
    assert answers[6][0] and not Memory.objects.filter(content__startswith="Blog posts").exists()
    assert not answers[7][0]
    assert Memory.objects.get(content="Refunds need approval.").project == "shop"
    assert answers[8][0]
    assert Memory.objects.get(pk=blog.pk).status == "active"
    assert answers[9][0] and "restricted to project 'shop'" in answers[9][1]
    assert shop.pk


def test_a_project_keys_index_of_no_named_project_is_labelled_with_its_own(server_url, alice):
    remember(owner=alice, content="The shop launch code is 7781.", project="shop")
    _, raw = create_api_key(owner=alice, name="shop agent", project="shop")

    async def scenario(client):
        return (await client.read_resource("engram://projects//index")).contents[0].text

    text = with_client(server_url, raw, scenario)
    assert text.splitlines()[0] == "Project 'shop': its 1 most important memories"
    assert "7781" in text
