"""The Claude 5.5 models think by default and may refuse: Engram turns upfront thinking off
the way each model accepts, reads only text blocks, and takes a refusal as final."""

import json

import pytest

from memories.providers.llm import AnthropicProvider, LLMCallError
from tests.helpers import ANTHROPIC_MESSAGES, Reply, anthropic_reply

CHUNK = "user: we pinned Django to 5.2 LTS for the whole project."
GATE_YES = '{"worth_remembering": true, "reason": "a version decision"}'
SECRET_KEY = "sk-test-0123456789abcdef"


@pytest.fixture
def served(fake_vendor):
    server = fake_vendor(ANTHROPIC_MESSAGES)
    return server, lambda **models: AnthropicProvider(api_key=SECRET_KEY,
                                                      base_url=server.url, **models)


def test_the_default_gate_model_is_asked_with_thinking_disabled(served):
    server, make = served
    server.answer(anthropic_reply(GATE_YES))

    make().gate(CHUNK)

    body = server.last.json()
    assert body["model"] == "claude-haiku-5-5"
    assert body["thinking"] == {"type": "disabled"}


def test_the_default_extract_model_is_asked_to_think_only_between_tools(served):
    server, make = served
    server.answer(anthropic_reply({"memories": []}))

    make().extract(CHUNK, [])

    body = server.last.json()
    assert body["model"] == "claude-sonnet-5-5"
    assert body["thinking"] == {"type": "between_tools"}


def test_a_dated_snapshot_is_treated_like_its_model(served):
    server, make = served
    server.answer(anthropic_reply(GATE_YES))

    make(gate_model="claude-haiku-5-5-20261001").gate(CHUNK)

    assert server.last.json()["thinking"] == {"type": "disabled"}


def test_an_older_model_is_sent_no_thinking_setting(served):
    server, make = served
    server.answer(anthropic_reply(GATE_YES))

    make(gate_model="claude-haiku-4-5").gate(CHUNK)

    assert "thinking" not in server.last.json()


def test_thinking_blocks_before_the_answer_are_skipped(served):
    server, make = served
    server.answer(Reply(200, {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-5-5",
        "content": [{"type": "thinking", "thinking": "{not json", "signature": "sig"},
                    {"type": "text", "text": GATE_YES}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 20}}))

    judged = make().gate(CHUNK)

    assert judged.value.worth_remembering is True


def test_a_refusal_fails_at_once_and_is_not_worth_a_retry(served):
    server, make = served
    refusal = json.loads(anthropic_reply("").encoded()[0])
    refusal.update(content=[], stop_reason="refusal")
    server.answer(Reply(200, refusal))

    with pytest.raises(LLMCallError) as raised:
        make().gate(CHUNK)

    assert raised.value.retryable is False
    assert "declined" in str(raised.value)
    [call] = raised.value.calls  # no repair turn was sent to a model that refused
    assert call.ok is False and "refusal" in call.error
    assert len(server.requests) == 1
