"""No secret reaches a model: every text a request carries (the chunk, the stored
memories shown, the statements judged, reflection's and consolidation's memories) is
redacted first, even one stored before its pattern existed."""

import httpx
import pytest
import respx

from memories.engine.reflection import ReflectionMemory
from memories.providers.llm import AnthropicProvider, OpenAIProvider

GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
ENGRAM_KEY = "engram_" + "Qm3v_Xk9-pL2rT8sWq4Zy7nB1cD5eF6gH0jK3mN9pR2"
TEXT = f"Deploys push with {GITHUB_TOKEN}; the hook sends {ENGRAM_KEY}."


def anthropic_reply(text):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10}}


def chat_reply(text):
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}


VENDORS = {
    "anthropic": ("https://api.anthropic.com/v1/messages", anthropic_reply,
                  lambda: AnthropicProvider(api_key="sk-test-0123456789abcdef", timeout=1)),
    "openai": ("https://api.openai.com/v1/chat/completions", chat_reply,
               lambda: OpenAIProvider(api_key="sk-test-0123456789abcdef", timeout=1)),
}

MEMORY = ReflectionMemory(id=1, content=TEXT)
CALLS = {
    "gate": (lambda p: p.gate(TEXT), '{"worth_remembering": false, "reason": "chatter"}'),
    "extract": (lambda p: p.extract(TEXT, [(1, TEXT)]), '{"memories": []}'),
    "judge": (lambda p: p.judge(TEXT, TEXT),
              '{"contradicts": false, "reason": "same", "confidence": 0.9}'),
    "reflection questions": (lambda p: p.reflection_questions([MEMORY]),
                             '{"questions": ["What is deployed?"]}'),
    "reflection insights": (lambda p: p.reflection_insights(f"Why {GITHUB_TOKEN}?", [MEMORY]),
                            '{"insights": []}'),
    "summarize": (lambda p: p.summarize([TEXT, TEXT]), '{"summary": "Deploys push."}'),
}


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("call", CALLS)
def test_no_secret_is_sent_to_a_model(vendor, call, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    url, reply, make = VENDORS[vendor]
    ask, answer = CALLS[call]
    with respx.mock(assert_all_called=True) as router:
        route = router.post(url).mock(return_value=httpx.Response(200, json=reply(answer)))
        ask(make())
    sent = route.calls[-1].request.content.decode()
    assert GITHUB_TOKEN not in sent and ENGRAM_KEY not in sent
    assert "[REDACTED:github_token]" in sent
