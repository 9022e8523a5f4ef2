"""A model's reply is outside input: JSON may spell, in escapes, text PostgreSQL cannot
store and a request cannot carry (a NUL, a lone surrogate). Such a reply is told back to
the model as malformed like any other, through the real SDK (the HTTP layer faked on
loopback), and never takes the chunk down with it."""

import json

import pytest

from memories.capture import observe as observing
from memories.capture.extraction import process_observation
from memories.models import ChunkStatus, Memory, ModelCall, ObservationStatus
from tests.helpers import anthropic_reply as reply

SESSION = {"session_id": "s-1", "project": "shop", "agent_id": "claude-code"}
CHUNK = [{"role": "user", "text": "We decided to use PostgreSQL 16 for the orders service."}]
GATE_YES = {"worth_remembering": True, "reason": "a decision"}
GOOD = {"content": "The orders service uses PostgreSQL 16.", "kind": "decision",
        "importance": 8}


@pytest.fixture
def anthropic(settings, fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test-key"
    return fake_anthropic


def observe(owner):
    observation = observing.observe(owner=owner, messages=CHUNK, tool_events=[],
                                    **SESSION).observation
    process_observation(observation.pk)
    observation.refresh_from_db()
    return observation


def kept_only_the_good_memory(owner) -> None:
    """The chunk extracted once the model corrected its reply: the good memory alone."""
    observation = observe(owner)
    assert observation.status == ObservationStatus.DONE
    assert observation.chunks.get().status == ChunkStatus.EXTRACTED
    assert list(Memory.objects.for_owner(owner).values_list("content", flat=True)) == [
        GOOD["content"]]


def test_a_lone_surrogate_spelled_in_the_reply_is_told_back_and_the_corrected_reply_kept(
        alice, anthropic):
    bad = {"memories": [GOOD, {"content": "The cache holds \ud800 keys."}]}
    anthropic.answer(reply(GATE_YES), reply(bad), reply({"memories": [GOOD]}))
    kept_only_the_good_memory(alice)
    first = ModelCall.objects.filter(purpose="extract").order_by("id").first()
    assert "memories[1].content" in first.error


def test_a_lone_surrogate_in_the_replys_text_itself_can_be_sent_back_to_the_model(
        alice, anthropic):
    raw = json.dumps({"memories": [GOOD]}, ensure_ascii=False)[:-1] + "\ud800"
    anthropic.answer(reply(GATE_YES), reply(raw), reply({"memories": [GOOD]}))
    observation = observe(alice)
    assert observation.status == ObservationStatus.DONE
    assert Memory.objects.for_owner(alice).get().content == GOOD["content"]
    assert ModelCall.objects.filter(purpose="extract").count() == 2


@pytest.mark.parametrize("bad", [
    {"content": "The cache holds \x00 keys."},
    {"content": "The cache is Redis.", "tags": ["cache\x00"]},
    {"content": "The cache is Redis.", "entities": [{"name": "Re\x00dis"}]},
    {"content": "The cache is Redis.",
     "relationships": [{"source": "cache", "type": "is\x00", "target": "Redis"}]},
], ids=["content", "tag", "entity", "relationship"])
def test_a_nul_anywhere_in_an_extracted_memory_is_told_back_and_the_corrected_reply_kept(
        alice, anthropic, bad):
    anthropic.answer(reply(GATE_YES), reply({"memories": [GOOD, bad]}),
                     reply({"memories": [GOOD]}))
    kept_only_the_good_memory(alice)
    first = ModelCall.objects.filter(purpose="extract").order_by("id").first()
    assert "memories[1]" in first.error and "NUL" in first.error
