"""No secret reaches a model: every text a request carries (the chunk, the stored
memories shown, the statements judged, reflection's and consolidation's memories) is
redacted first, even one stored before its pattern existed."""

import pytest
from helpers import ANTHROPIC_MESSAGES, OPENAI_CHAT, anthropic_reply, chat_reply

from memories.engine.reflection import ReflectionMemory
from memories.providers.llm import AnthropicProvider, OpenAIProvider

GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
ENGRAM_KEY = "engram_" + "Qm3v_Xk9-pL2rT8sWq4Zy7nB1cD5eF6gH0jK3mN9pR2"
TEXT = f"Deploys push with {GITHUB_TOKEN}; the hook sends {ENGRAM_KEY}."

# vendor: (the path its API answers on, its reply shape, the provider pointed at a URL)
VENDORS = {
    "anthropic": (ANTHROPIC_MESSAGES, anthropic_reply,
                  lambda url: AnthropicProvider(api_key="sk-test-0123456789abcdef",
                                                timeout=1, base_url=url)),
    "openai": (OPENAI_CHAT, chat_reply,
               lambda url: OpenAIProvider(api_key="sk-test-0123456789abcdef", timeout=1,
                                          base_url=f"{url}/v1")),
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
def test_no_secret_is_sent_to_a_model(vendor, call, fake_vendor):
    path, reply, make = VENDORS[vendor]
    ask, answer = CALLS[call]
    fake = fake_vendor(path).always(reply(answer))
    ask(make(fake.url))
    sent = fake.last.body.decode()
    assert GITHUB_TOKEN not in sent and ENGRAM_KEY not in sent
    assert "[REDACTED:github_token]" in sent
