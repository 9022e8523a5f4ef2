"""Remote embedding providers through their real clients, with only HTTP mocked."""

import httpx
import numpy as np
import pytest
import respx

from memories.providers.embeddings import OllamaProvider, OpenAIProvider
from memories.providers.errors import ProviderError

OPENAI = "https://api.openai.com/v1/embeddings"
OLLAMA = "http://ollama.test:11434/api/embed"


def openai_reply(n, dims=1536):
    return {
        "object": "list",
        "model": "text-embedding-3-small",
        "data": [{"object": "embedding", "index": i, "embedding": [float(i + 1)] * dims}
                 for i in range(n)],
        "usage": {"prompt_tokens": 3, "total_tokens": 3},
    }


@pytest.fixture
def openai_provider():
    return OpenAIProvider(api_key="sk-test", model="text-embedding-3-small", timeout=1)


@pytest.fixture
def ollama_provider():
    return OllamaProvider(base_url="http://ollama.test:11434", model="nomic-embed-text",
                          timeout=1)


@respx.mock
def test_openai_embeds_a_batch_as_unit_vectors_in_order(openai_provider):
    route = respx.post(OPENAI).mock(return_value=httpx.Response(200, json=openai_reply(2)))
    vectors = openai_provider.embed_documents(["a", "b"])
    assert vectors.shape == (2, 1536)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert route.calls.last.request.headers["authorization"] == "Bearer sk-test"
    assert openai_provider.model_id == "openai:text-embedding-3-small"


@pytest.mark.parametrize(("status", "retryable"), [(429, True), (500, True), (503, True),
                                                   (401, False), (400, False)])
@respx.mock
def test_openai_errors_say_whether_a_retry_can_help(openai_provider, status, retryable):
    respx.post(OPENAI).mock(return_value=httpx.Response(status, json={"error": {
        "message": "nope", "type": "x", "code": None}}))
    with pytest.raises(ProviderError) as error:
        openai_provider.embed_documents(["a"])
    assert error.value.retryable is retryable
    assert error.value.provider == "openai"


@respx.mock
def test_openai_timeout_is_retryable(openai_provider):
    respx.post(OPENAI).mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(ProviderError) as error:
        openai_provider.embed_query("a")
    assert error.value.retryable


@respx.mock
def test_openai_vectors_of_the_wrong_size_are_refused(openai_provider):
    respx.post(OPENAI).mock(return_value=httpx.Response(200, json=openai_reply(1, dims=12)))
    with pytest.raises(ProviderError) as error:
        openai_provider.embed_documents(["a"])
    assert not error.value.retryable and "expected (n, 1536)" in str(error.value)


@respx.mock
def test_ollama_prefixes_documents_and_queries_for_nomic(ollama_provider):
    route = respx.post(OLLAMA).mock(
        side_effect=lambda request: httpx.Response(200, json={"embeddings": [[3.0, 4.0] + [0.0] * 766]})
    )
    document = ollama_provider.embed_documents(["the router drops packets"])
    ollama_provider.embed_query("wifi drops")
    sent = [c.request.read() for c in route.calls]
    assert b'"search_document: the router drops packets"' in sent[0]
    assert b'"search_query: wifi drops"' in sent[1]
    assert document[0][:2] == pytest.approx([0.6, 0.8])


@respx.mock
def test_a_repeated_query_is_embedded_once(ollama_provider):
    route = respx.post(OLLAMA).mock(
        return_value=httpx.Response(200, json={"embeddings": [[1.0] * 768]}))
    first = ollama_provider.embed_query("same prompt")
    second = ollama_provider.embed_query("same prompt")
    assert route.call_count == 1
    assert np.array_equal(first, second)


@pytest.mark.parametrize(
    ("response", "retryable"),
    [
        (httpx.Response(429), True),
        (httpx.Response(502), True),
        (httpx.Response(404, json={"error": "model not found"}), False),
        (httpx.Response(200, text="not json"), False),
        (httpx.Response(200, json={"embeddings": [[1.0] * 768, [1.0] * 768]}), False),
    ],
)
@respx.mock
def test_ollama_failures_become_provider_errors(ollama_provider, response, retryable):
    respx.post(OLLAMA).mock(return_value=response)
    with pytest.raises(ProviderError) as error:
        ollama_provider.embed_documents(["a"])
    assert error.value.retryable is retryable


@respx.mock
def test_ollama_down_is_retryable(ollama_provider):
    respx.post(OLLAMA).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(ProviderError) as error:
        ollama_provider.embed_documents(["a"])
    assert error.value.retryable
