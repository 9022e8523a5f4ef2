"""Remote embedding providers through their real clients, over HTTP to a fake vendor server
on loopback."""

import numpy as np
import pytest

from memories.providers.embeddings import OllamaProvider, OpenAIProvider
from memories.providers.errors import ProviderError
from tests.helpers import OPENAI_EMBEDDINGS, Reply, closed_port_url, openai_error, slow

TIMEOUT = 0.5  # seconds; the fake server holds a "slow" reply back longer than this


def openai_reply(n, dims=1536):
    return Reply(200, {
        "object": "list",
        "model": "text-embedding-3-small",
        "data": [{"object": "embedding", "index": i,
                  "embedding": [2.0 if d == i else 0.0 for d in range(dims)]}
                 for i in range(n)],
        "usage": {"prompt_tokens": 3, "total_tokens": 3},
    })


@pytest.fixture
def openai_server(fake_vendor):
    return fake_vendor(OPENAI_EMBEDDINGS)


@pytest.fixture
def openai_provider(openai_server):
    return OpenAIProvider(api_key="sk-test", model="text-embedding-3-small",
                          base_url=openai_server.url + "/v1", timeout=TIMEOUT)


@pytest.fixture
def ollama_provider(fake_ollama):
    return OllamaProvider(base_url=fake_ollama.url, model="nomic-embed-text", timeout=TIMEOUT)


def test_openai_embeds_a_batch_as_unit_vectors_in_order(openai_provider, openai_server):
    reply = openai_reply(2)
    reply.body["data"].reverse()  # answered out of order: put back in the texts' order
    openai_server.answer(reply)
    vectors = openai_provider.embed_documents(["a", "b"])
    assert vectors.shape == (2, 1536)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert (vectors[0][0], vectors[1][1]) == (1.0, 1.0)
    request = openai_server.last
    assert request.headers["authorization"] == "Bearer sk-test"
    body = request.json()
    assert (body["model"], body["input"]) == ("text-embedding-3-small", ["a", "b"])
    assert openai_provider.model_id == "openai:text-embedding-3-small"


@pytest.mark.parametrize(("status", "retryable"), [(429, True), (500, True), (503, True),
                                                   (401, False), (400, False)])
def test_openai_errors_say_whether_a_retry_can_help(openai_provider, openai_server, status,
                                                    retryable):
    openai_server.answer(openai_error(status, "nope", **{"retry-after": "30"}))
    with pytest.raises(ProviderError) as error:
        openai_provider.embed_documents(["a"])
    assert error.value.retryable is retryable
    assert error.value.provider == "openai"
    assert openai_server.call_count == 1  # the SDK's own retries are off


def test_openai_timeout_is_retryable(openai_provider, openai_server):
    openai_server.answer(slow(TIMEOUT * 4))
    with pytest.raises(ProviderError) as error:
        openai_provider.embed_query("a")
    assert error.value.retryable


def test_openai_down_is_retryable():
    provider = OpenAIProvider(api_key="sk-test", model="text-embedding-3-small",
                              base_url=closed_port_url() + "/v1", timeout=TIMEOUT)
    with pytest.raises(ProviderError) as error:
        provider.embed_query("a")
    assert error.value.retryable


def test_openai_vectors_of_the_wrong_size_are_refused(openai_provider, openai_server):
    openai_server.answer(openai_reply(1, dims=12))
    with pytest.raises(ProviderError) as error:
        openai_provider.embed_documents(["a"])
    assert not error.value.retryable and "expected (n, 1536)" in str(error.value)


@pytest.mark.parametrize("reply", [
    Reply(200, b'{"object": "list", "data": [{"embedd', {"content-type": "application/json"}),
    Reply(200, {}),
    openai_reply(2),
], ids=["malformed JSON", "no data", "too many rows"])
def test_openai_answers_that_are_not_one_embedding_per_text_are_refused(
        openai_provider, openai_server, reply):
    openai_server.answer(reply)
    with pytest.raises(ProviderError) as error:
        openai_provider.embed_documents(["a"])
    assert not error.value.retryable


def test_ollama_prefixes_documents_and_queries_for_nomic(ollama_provider, fake_ollama):
    fake_ollama.always(Reply(200, {"embeddings": [[3.0, 4.0] + [0.0] * 766]}))
    document = ollama_provider.embed_documents(["the router drops packets"])
    ollama_provider.embed_query("wifi drops")
    sent = [request.json() for request in fake_ollama.requests]
    assert sent[0] == {"model": "nomic-embed-text",
                       "input": ["search_document: the router drops packets"]}
    assert sent[1]["input"] == ["search_query: wifi drops"]
    assert document[0][:2] == pytest.approx([0.6, 0.8])


def test_a_repeated_query_is_embedded_once(ollama_provider, fake_ollama):
    fake_ollama.always(Reply(200, {"embeddings": [[1.0] * 768]}))
    first = ollama_provider.embed_query("same prompt")
    second = ollama_provider.embed_query("same prompt")
    assert fake_ollama.call_count == 1
    assert np.array_equal(first, second)


def test_a_forgotten_query_is_embedded_again(ollama_provider, fake_ollama):
    fake_ollama.always(Reply(200, {"embeddings": [[1.0] * 768]}))
    ollama_provider.embed_query("same prompt")
    ollama_provider.forget_queries()
    ollama_provider.embed_query("same prompt")
    assert fake_ollama.call_count == 2


@pytest.mark.parametrize(
    ("reply", "retryable"),
    [
        (Reply(429, headers={"retry-after": "30"}), True),
        (Reply(502), True),
        (slow(TIMEOUT * 4), True),
        (Reply(404, {"error": "model not found"}), False),
        (Reply(200, "not json"), False),
        (Reply(200, {"embeddings": [[1.0] * 768, [1.0] * 768]}), False),
    ],
    ids=["429", "502", "timeout", "404", "malformed JSON", "too many rows"],
)
def test_ollama_failures_become_provider_errors(ollama_provider, fake_ollama, reply,
                                                retryable):
    fake_ollama.answer(reply)
    with pytest.raises(ProviderError) as error:
        ollama_provider.embed_documents(["a"])
    assert error.value.retryable is retryable
    assert fake_ollama.call_count == 1


def test_ollama_down_is_retryable(ollama_provider, fake_ollama):
    fake_ollama.stop()
    with pytest.raises(ProviderError) as error:
        ollama_provider.embed_documents(["a"])
    assert error.value.retryable
