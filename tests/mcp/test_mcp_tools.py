"""Each MCP tool over HTTP, through the SDK's client: it does what the REST endpoint does,
answers in text an agent can cite, and turns a bad argument into a tool error."""

import pytest
from mcp_helpers import call, handles_in, with_client

from memories.models import Contradiction, Memory, Observation, Status, UsageEvent
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice_calls(server_url, alice, key_for):
    key = key_for(alice)
    return lambda scenario: with_client(server_url, key, scenario)


def test_a_remembered_memory_is_found_by_search_and_context_under_its_handle(alice_calls,
                                                                              alice):
    async def scenario(client):
        stored = await call(client, "memory_remember", project="engram", tags=["ops"],
                            content="Deploys go through ops/deploy.sh and need the VPN.")
        found = await call(client, "memory_search", query="how do I deploy", project="engram")
        context = await call(client, "memory_context", query="deploying", project="engram",
                             max_tokens=300)
        return stored, found, context

    (stored_failed, stored), (found_failed, found), (context_failed, context) = \
        alice_calls(scenario)
    memory = Memory.objects.get(owner=alice)
    handle = memory.pk.hex[-8:]
    assert not stored_failed and stored.startswith("Remembered:")
    assert handles_in(stored) == [handle] and str(memory.pk) in stored
    assert memory.project == "engram" and memory.tags == ["ops"]
    assert not found_failed and handles_in(found) == [handle] and str(memory.pk) in found
    assert not context_failed and "ops/deploy.sh" in context and f"[1] = {handle}" in context


def test_feedback_related_and_forget_take_a_handle(alice_calls, alice):
    first = remember(owner=alice, content="The staging database is called atlas.",
                     session_id="s1").memory
    second = remember(owner=alice, content="Atlas is backed up nightly at 02:00.",
                      session_id="s1").memory

    async def scenario(client):
        return [await call(client, "memory_feedback", memory=first.pk.hex[-8:],
                           signal="helpful", agent_id="claude"),
                await call(client, "memory_related", memory=str(first.pk)),
                await call(client, "memory_forget", memory=second.pk.hex[-8:])]

    (feedback_failed, feedback), (related_failed, related), (forget_failed, forget) = \
        alice_calls(scenario)
    assert not feedback_failed and "helpful 1" in feedback
    assert UsageEvent.objects.filter(memory=first, kind="helpful", agent_id="claude").exists()
    assert not related_failed and handles_in(related)[1:] == [second.pk.hex[-8:]]
    assert not forget_failed and forget.startswith(f"Deleted [{second.pk.hex[-8:]}]")
    second.refresh_from_db()
    assert second.status == Status.DELETED


@pytest.mark.parametrize("tool, arguments, message", [
    ("memory_search", {"query": "x", "limit": 0}, "limit:"),
    ("memory_search", {"query": "   "}, "query:"),
    ("memory_search", {"query": "x", "kinds": ["gossip"]}, "kinds"),
    ("memory_search", {"query": "x", "limit": "many"}, "limit"),
    ("memory_context", {"query": "x", "max_tokens": 10**9}, "max_tokens:"),
    ("memory_remember", {"content": "a fact", "importance": 11}, "importance:"),
    ("memory_remember", {"content": ""}, "content:"),
    ("memory_remember", {"content": "a fact", "kind": "rumour"}, "kind:"),
    ("memory_observe", {}, "Send at least one message or tool event."),
    ("memory_observe", {"messages": [{"role": "robot", "text": "hi"}]}, "messages.0.role"),
    ("memory_feedback", {"memory": "0123abcd", "signal": "helpful"}, "No memory '0123abcd'"),
    ("memory_feedback", {"memory": "not an id", "signal": "helpful"}, "No memory"),
    ("memory_related", {"memory": "0123abcd", "depth": 1}, "No memory"),
    ("memory_forget", {"memory": "01a20e89-8575-7579-b3c0-0b73c2bdb6c1"}, "No memory"),
    ("memory_resolve", {"contradiction": "0123abcd", "resolution": "a_wins"},
     "No contradiction"),
])
def test_a_bad_argument_is_a_tool_error_with_the_apis_message(alice_calls, tool, arguments,
                                                              message):
    async def scenario(client):
        return await call(client, tool, **arguments)

    failed, text = alice_calls(scenario)
    assert failed
    assert message in text


def test_an_unknown_reference_is_echoed_in_its_first_80_characters_only(alice_calls):
    async def scenario(client):
        return await call(client, "memory_forget", memory="y" * 100_000)

    failed, text = alice_calls(scenario)
    assert failed and f"No memory '{'y' * 80}'… for this owner" in text
    assert len(text) < 300


def test_an_argument_of_the_wrong_type_is_named_with_what_it_expects_in_a_line(alice_calls):
    async def scenario(client):
        return await call(client, "memory_search", query="x", limit="many", tags=[1])

    failed, text = alice_calls(scenario)
    assert failed and text == (
        "Error executing tool memory_search: limit: Input should be a valid integer, unable "
        "to parse string as an integer.; tags.0: Input should be a valid string.")


def test_a_tool_that_crashes_on_a_validation_error_of_its_own_says_only_that_it_failed(
        alice_calls, monkeypatch):
    from pydantic import BaseModel

    from memories.mcp import operations

    class Reply(BaseModel):
        secret_field: int

    def crashing(*args, **kwargs):
        Reply(secret_field="not a number")  # a model's malformed reply, say

    monkeypatch.setattr(operations, "search", crashing)

    async def scenario(client):
        return await call(client, "memory_search", query="deploys")

    failed, text = alice_calls(scenario)
    assert failed and text == "Error executing tool memory_search"  # no internals


def test_a_bad_depth_for_related_is_refused_like_the_api(alice_calls, alice):
    memory = remember(owner=alice, content="Something with links.").memory

    async def scenario(client):
        return await call(client, "memory_related", memory=str(memory.pk), depth=4)

    failed, text = alice_calls(scenario)
    assert failed and "depth: Ensure this value is less than or equal to 3." in text


def test_observe_queues_the_conversation_for_capture(alice_calls, alice):
    async def scenario(client):
        return await call(client, "memory_observe", project="engram", session_id="s9",
                          messages=[{"role": "user", "text": "We use PostgreSQL 18 here."}],
                          tool_events=[{"tool_name": "Bash", "input": {"command": "ls"}}])

    failed, text = alice_calls(scenario)
    assert not failed and "1 messages, 1 tool events" in text
    observation = Observation.objects.get(owner=alice)
    assert str(observation.pk) in text and observation.session_id == "s9"


def test_a_second_reflection_while_one_waits_is_refused_with_a_clear_message(
        alice_calls, alice, stopped_worker):
    async def scenario(client):
        return [await call(client, "memory_reflect"), await call(client, "memory_reflect")]

    (first_failed, first), (second_failed, second) = alice_calls(scenario)
    assert not first_failed and first.startswith("Reflection job")
    assert second_failed and "is already queued; wait for it to finish" in second


def test_contradictions_lists_the_open_queue_and_resolve_closes_one(alice_calls, alice):
    old = remember(owner=alice, content="The API listens on port 8000.").memory
    new = remember(owner=alice, content="The API listens on port 9000.").memory
    Contradiction.objects.filter(owner=alice).delete()  # whatever the rules found already
    contradiction = Contradiction.objects.create(owner=alice, memory_a=old, memory_b=new,
                                                 reason="Two ports for the API.",
                                                 confidence=0.9)
    handle = contradiction.pk.hex[-8:]

    async def scenario(client):
        return [await call(client, "memory_contradictions"),
                await call(client, "memory_resolve", contradiction=handle,
                           resolution="merged"),
                await call(client, "memory_resolve", contradiction=handle,
                           resolution="b_wins", note="moved in May"),
                await call(client, "memory_contradictions")]

    listed, merge_without_text, resolved, after = alice_calls(scenario)
    assert not listed[0] and handles_in(listed[1]) == [handle, old.pk.hex[-8:],
                                                      new.pk.hex[-8:]]
    assert merge_without_text[0] and "merged_content: A merge needs the merged text." in \
        merge_without_text[1]
    assert not resolved[0] and resolved[1] == f"Resolved [{handle}] as b_wins."
    assert after == (False, "No open contradictions.")
    old.refresh_from_db()
    assert old.superseded_by_id == new.pk


def test_the_project_index_lists_its_memories_most_important_first(server_url, alice,
                                                                   key_for):
    remember(owner=alice, content="Minor: the logo is blue.", project="web", importance=2)
    key = remember(owner=alice, content="Critical: never deploy on Fridays.", project="web",
                   importance=9).memory
    remember(owner=alice, content="Elsewhere entirely.", project="cli", importance=10)

    async def scenario(client):
        read = await client.read_resource("engram://projects/web/index")
        templates = await client.list_resource_templates()
        return read.contents[0].text, [t.uri_template for t in templates.resource_templates]

    text, templates = with_client(server_url, key_for(alice), scenario)
    assert templates == ["engram://projects/{project}/index"]
    assert text.splitlines()[0] == "Project 'web': its 2 most important memories"
    assert handles_in(text)[0] == key.pk.hex[-8:]
    assert "Elsewhere" not in text


def test_a_project_named_from_its_git_remote_is_read_with_its_slashes_percent_encoded(
        server_url, alice, key_for):
    remember(owner=alice, content="Critical: never deploy on Fridays.",
             project="github.com/acme/shop", importance=9)

    async def scenario(client):
        read = await client.read_resource("engram://projects/github.com%2Facme%2Fshop/index")
        return read.contents[0].text

    text = with_client(server_url, key_for(alice), scenario)
    assert text.splitlines()[0].startswith("Project 'github.com/acme/shop'")
    assert "never deploy on Fridays" in text


@pytest.mark.parametrize(("agent_id", "said"), [
    ("nul\x00id", "agent_id: Null characters are not allowed."),
    ("x" * 300, "agent_id: Ensure this field has no more than 200 characters."),
])
def test_forget_refuses_an_agent_id_the_api_would_refuse_and_keeps_the_memory(
        alice_calls, alice, agent_id, said):
    memory = remember(owner=alice, content="Atlas is backed up nightly at 02:00.").memory

    async def scenario(client):
        return await call(client, "memory_forget", memory=str(memory.pk), agent_id=agent_id)

    failed, answer = alice_calls(scenario)
    assert failed and said in answer
    memory.refresh_from_db()
    assert memory.status == Status.ACTIVE
