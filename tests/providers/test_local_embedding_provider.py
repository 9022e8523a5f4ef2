"""The default provider: MiniLM through ONNX Runtime, in either precision."""

import numpy as np
import pytest

from memories.providers.embeddings import LocalProvider

TEXTS = ["WiFi keeps dropping", "network configuration problems on the router",
         "I like baking sourdough bread on Sundays",
         "A much longer note about the deployment pipeline, its canary stage, the rollback "
         "procedure and who must approve a release to production on Fridays."]


@pytest.fixture(scope="module", params=["int8", "fp32"])
def provider(request, tmp_path_factory):
    return LocalProvider(tmp_path_factory.getbasetemp() / "models", precision=request.param)


def test_a_text_gets_the_same_vector_alone_or_in_any_batch(provider):
    batch = provider.embed_documents(TEXTS)
    reordered = provider.embed_documents(list(reversed(TEXTS)))[::-1]
    alone = np.stack([provider.embed_documents([t])[0] for t in TEXTS])
    assert np.allclose(batch, alone, atol=1e-5)
    assert np.allclose(batch, reordered, atol=1e-5)


def test_vectors_are_unit_length_and_rank_paraphrases_first(provider):
    query, router, bread, _ = provider.embed_documents(TEXTS)
    assert np.allclose(np.linalg.norm([query, router, bread], axis=1), 1.0, atol=1e-5)
    assert query @ router > query @ bread + 0.15


def test_each_precision_has_its_own_model_id_so_vectors_never_mix(tmp_path):
    ids = {LocalProvider(tmp_path, precision=p).model_id for p in ("int8", "fp32")}
    assert ids == {"local:all-MiniLM-L6-v2-int8-sq", "local:all-MiniLM-L6-v2"}
