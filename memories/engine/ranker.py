"""The learned ranker: a logistic model over what recall already knows of each candidate.

Hand-set fusion (`ranking.rank`) mixes cosine, keyword share, links, recency and
importance with weights chosen by eye; here the mix is fitted, on the dev splits of the
evaluation sets only (`manage.py engram_eval train-ranker`, memories/evaluation/
ranker_training.py), and the coefficients it prints are committed in ranker.json next
to this module. The model scores each candidate alone (pointwise logistic regression),
so recall stays one pass over its candidates. Pure: numpy only.

The model replaces the fusion's relevance only: recency and importance (with helpful /
harmful feedback) stay in the three-factor re-rank with their weights, since the
evaluation sets say nothing about them (every turn is as recent and as important as the
next) and a fit would learn to ignore what people's feedback says.
"""

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from .ranking import Ranked, Weights, min_max, normalised_cosine

COEFFICIENTS_PATH = Path(__file__).with_name("ranker.json")
EQUAL = Weights()

# What each candidate is described by; every value is 0..1.
FEATURES = (
    "cosine",       # cosine to the query, above the floor, scaled to 0..1
    "keyword",      # BM25 score as a share of the query's full BM25 mass
    "match",        # the hand-set fusion's relevance (links included), before min-max
    "relevance",    # the same, min-max normalised over the candidates
    "inherited",    # what links added over the memory's own match
    "dense_rank",   # 1 / (1 + rank) in the dense list, 0 when absent
    "keyword_rank",  # 1 / (1 + rank) in the keyword list, 0 when absent
    "date",         # a date the query names matches the memory's (engine/dates.py)
    "substance",    # words of three letters or more, per SUBSTANCE_WORDS, up to 1
    "question",     # 1 when the memory ends with a question: it asks, it does not tell
)

# "Go get 'em, Jon!" rarely answers anything: below this many words a memory says less.
# 20 was chosen on the dev splits (30 and 40 did worse there).
SUBSTANCE_WORDS = 20
# Words of three letters or more: "ok", "oh", "I" and numbers say little (counting every
# word split at white space did 0.01 R@10 worse on the dev split).
_SUBSTANTIVE_WORD = re.compile(r"[^\W\d_]{3,}")
# A question mark closing the text, before any bracketed note after it.
_ENDS_ASKING = re.compile(r"\?\s*(?:\[[^\]]*\]\s*)*$")
_TAIL = 300  # where a closing question mark and its notes are looked for


@dataclass(frozen=True, slots=True)
class Coefficients:
    intercept: float
    weights: tuple[float, ...]  # in the order of FEATURES

    def __post_init__(self):
        if len(self.weights) != len(FEATURES):
            raise ValueError(f"The ranker needs {len(FEATURES)} weights "
                             f"({', '.join(FEATURES)}), got {len(self.weights)}.")

    @classmethod
    def from_json(cls, data: dict) -> "Coefficients":
        weights = data["weights"]
        missing = [name for name in FEATURES if name not in weights]
        if missing:
            raise ValueError(f"ranker coefficients miss {', '.join(missing)}")
        return cls(float(data["intercept"]), tuple(float(weights[n]) for n in FEATURES))

    def to_json(self) -> dict:
        return {"intercept": round(self.intercept, 6),
                "weights": {n: round(w, 6) for n, w in zip(FEATURES, self.weights)}}


def load(path: Path = COEFFICIENTS_PATH) -> Coefficients:
    return Coefficients.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


def substance(text: str) -> float:
    return min(1.0, len(_SUBSTANTIVE_WORD.findall(text)) / SUBSTANCE_WORDS)


def asks(text: str) -> float:
    return 1.0 if _ENDS_ASKING.search(text[-_TAIL:]) else 0.0


def describe(ranked: Sequence[Ranked], *, cos_floor: float, keyword_scale: float | None,
             texts: Sequence[str], dates: Sequence[float] | None = None) -> np.ndarray:
    """One row of FEATURES per candidate, in the order given; `texts` are their contents."""
    best = keyword_scale or max((r.candidate.keyword_score or 0.0 for r in ranked),
                                default=0.0)
    rows = []
    for i, r in enumerate(ranked):
        b = r.breakdown
        cosine = normalised_cosine(b.similarity, cos_floor)
        keyword = min(1.0, max(0.0, (b.keyword_score or 0.0) / best)) if best > 0 else 0.0
        rows.append((cosine, keyword, b.match, b.relevance,
                     max(0.0, b.match - max(cosine, keyword)),
                     1.0 / (1 + b.dense_rank) if b.dense_rank else 0.0,
                     1.0 / (1 + b.keyword_rank) if b.keyword_rank else 0.0,
                     dates[i] if dates is not None else 0.0,
                     substance(texts[i]), asks(texts[i])))
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))


def rerank(ranked: Sequence[Ranked], features: np.ndarray, coefficients: Coefficients,
           weights: Weights = EQUAL, limit: int | None = None) -> list[Ranked]:
    """The best `limit` candidates (all without), re-ranked with the model's log-odds of
    being what was asked for as relevance (min-max normalised, like the fusion's), then
    the weighted mean of recency, importance and that relevance. Log-odds, not the
    probability: the probability squeezes every candidate but the best near 0, and
    recency alone would then order them. Ties keep the hand-set order."""
    if not ranked:
        return []
    logits = features @ np.asarray(coefficients.weights) + coefficients.intercept
    relevances = min_max([float(z) for z in logits])
    total = weights.recency + weights.importance + weights.relevance
    finals = [(weights.recency * r.breakdown.recency + weights.importance
               * r.breakdown.importance + weights.relevance * rel) / total
              for r, rel in zip(ranked, relevances)]
    order = sorted(range(len(ranked)), key=lambda i: (-finals[i], i))[:limit]
    return [replace(ranked[i], breakdown=replace(ranked[i].breakdown, relevance=relevances[i],
                                                 final=finals[i])) for i in order]


def fit(features: np.ndarray, labels: np.ndarray, sample_weights: np.ndarray | None = None,
        *, l2: float = 1.0, iterations: int = 50) -> Coefficients:
    """Weighted logistic regression by Newton's method, L2 on the weights only."""
    n, d = features.shape
    x = np.hstack([np.ones((n, 1)), features])
    w = np.ones(n) if sample_weights is None else np.asarray(sample_weights, dtype=float)
    beta = np.zeros(d + 1)
    penalty = np.eye(d + 1) * l2
    penalty[0, 0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        gradient = x.T @ (w * (p - labels)) + penalty @ beta
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return Coefficients(float(beta[0]), tuple(float(v) for v in beta[1:]))

