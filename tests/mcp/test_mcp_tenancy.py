"""Over MCP, one owner never sees, changes or resolves another's memories."""

import pytest
from mcp_helpers import call, with_client

from memories.models import Contradiction, Status
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)


def test_bob_cannot_reach_alices_memories_by_any_tool(server_url, alice, bob, key_for):
    secret = remember(owner=alice, content="Alice's launch code is 0451.", project="vault",
                      importance=9).memory
    other = remember(owner=alice, content="Alice's launch code changed to 0452.",
                     project="vault").memory
    Contradiction.objects.filter(owner=alice).delete()
    contradiction = Contradiction.objects.create(owner=alice, memory_a=secret, memory_b=other,
                                                 reason="Two codes.")
    handle, full = secret.pk.hex[-8:], str(secret.pk)

    async def bob_tries(client):
        index = await client.read_resource("engram://projects/vault/index")
        return [await call(client, "memory_search", query="launch code"),
                await call(client, "memory_context", query="launch code"),
                await call(client, "memory_contradictions"),
                *[await call(client, tool, memory=ref, **extra)
                  for ref in (handle, full)
                  for tool, extra in (("memory_feedback", {"signal": "harmful"}),
                                      ("memory_related", {}), ("memory_forget", {}))],
                await call(client, "memory_resolve", contradiction=str(contradiction.pk),
                           resolution="a_wins"),
                (False, index.contents[0].text)]

    async def alice_looks(client):
        return await call(client, "memory_search", query="launch code")

    answers = with_client(server_url, key_for(bob), bob_tries)
    assert "0451" not in "".join(text for _, text in answers)
    assert answers[0] == (False, "No memory matches 'launch code'.")
    assert answers[2] == (False, "No open contradictions.")
    assert all(failed and "No memory" in text for failed, text in answers[3:9])
    assert answers[9][0] and "No contradiction" in answers[9][1]
    assert answers[10] == (False, "No memories in project 'vault' yet.")
    secret.refresh_from_db()
    contradiction.refresh_from_db()
    assert secret.status == Status.ACTIVE and secret.harmful_count == 0
    assert contradiction.status == "open"
    failed, found = with_client(server_url, key_for(alice), alice_looks)
    assert not failed and handle in found
