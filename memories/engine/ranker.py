"""The learned ranker: a logistic model over what recall already knows of each candidate.

Hand-set fusion (`ranking.rank`) mixes cosine, keyword share, links, recency and
importance with weights chosen by eye; here the mix is fitted, on the dev splits of the
evaluation sets only (`manage.py engram_eval train-ranker`, memories/evaluation/
ranker_training.py), and the coefficients it prints are committed in ranker.json next
to this module. The model scores each candidate alone (a weighted sum of its features),
so recall stays one pass over its candidates; it is fitted listwise, over each question's
candidates together (`fit`). Pure: numpy only.

The model replaces the fusion's relevance only: recency and importance (with helpful /
harmful feedback) stay in the three-factor re-rank with their weights, since the
evaluation sets say nothing about them (every turn is as recent and as important as the
next) and a fit would learn to ignore what people's feedback says.
"""

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from . import dates
from .ranking import Ranked, Weights, min_max

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
    "own_date",     # ... by the memory's own date alone: its text names no such date
    "substance",    # words of three letters or more, per SUBSTANCE_WORDS, up to 1
    "question",     # 1 when the memory ends with a question: it asks, it does not tell
    "neighbour",    # best fusion relevance (min-max) among the candidates linked to it
    "session",      # best fusion relevance (min-max) among the other candidates of its session
    "speaker",      # 1 when the memory opens with a speaker ("Name: ...") the query names
    "answer",       # 1 when the query asks for a time, count or place and the memory has one
)

# "Go get 'em, Jon!" rarely answers anything: below this many words a memory says less.
# 20 was chosen on the dev splits (30 and 40 did worse there).
SUBSTANCE_WORDS = 20
# Words of three letters or more: "ok", "oh", "I" and numbers say little (counting every
# word split at white space did 0.01 R@10 worse on the dev split).
_SUBSTANTIVE_WORD = re.compile(r"[^\W\d_]{3,}")
_ASCII_WORD = re.compile(r"[A-Za-z]{3,}")  # the same, where the text is all ASCII
# A question mark closing the text, before any bracketed note after it.
_ENDS_ASKING = re.compile(r"\?\s*(?:\[[^\]]*\]\s*)*$")
_TAIL = 300  # where a closing question mark and its notes are looked for
# "[8 May 2023] Caroline: ..." or "Jon Smith: ...": a transcript line names who speaks
# before a colon, after any bracketed note (a date); one or two capitalised words.
_NOTE = r"\s*(?:\[[^\]]*\]\s*)?"
_NAME = r"[A-Z][^\W\d_]*(?: [A-Z][^\W\d_]*)?"
_SPEAKER = re.compile(rf"^{_NOTE}({_NAME}):\s")
_WORD = re.compile(r"[^\W\d_]+")
# What a question asks for, by its opening words, and what in a memory can answer it: a
# time (engine/dates.py's dates, months, years and relative times), a count (a number, in
# digits or a word), a place (a capitalised name after a word of place). Plain English
# question words, none from an evaluation set; the weight is fitted on the dev splits.
_ASKS_WHEN = re.compile(r"\s*(?:when|what (?:year|month|day|date|time)|how long ago)\b",
                        re.IGNORECASE)
_ASKS_COUNT = re.compile(r"\s*how (?:many|much|often|long)\b", re.IGNORECASE)
_ASKS_WHERE = re.compile(r"\s*(?:where|(?:which|what) (?:city|cities|country|countries|"
                         r"place|places|state|town))\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_COUNT_WORD = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twice|once|"
                         r"several|few|dozens?)\b")  # searched in lowercased text
_PLACE = re.compile(r"\b(?:in|at|to|from|near|visit(?:ed|ing)?)\s+(?:the\s+)?[A-Z][^\W\d_]+")
# A transcript line's own date and speaker ("[8 May 2023] Caroline: ") say nothing of
# what the line answers: the date would match every "when".
_LABELS = re.compile(rf"{_NOTE}(?:{_NAME}:\s)?")


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
    # In ASCII text the letters are A-Z and a-z, which the regex engine checks faster than
    # Unicode categories (recall asks this of every candidate).
    words = _ASCII_WORD if text.isascii() else _SUBSTANTIVE_WORD
    return min(1.0, len(words.findall(text)) / SUBSTANCE_WORDS)


def asks(text: str) -> float:
    return 1.0 if _ENDS_ASKING.search(text[-_TAIL:]) else 0.0


def speaks(text: str, query_words: set[str]) -> float:
    """1 when `text` opens with a speaker label whose name the query uses (lowercase
    words of the query), 0 otherwise or without a label."""
    said = _SPEAKER.match(text)
    return 1.0 if said and any(part.lower() in query_words
                               for part in said.group(1).split()) else 0.0


def asked_for(query: str) -> Callable[[str], bool] | None:
    """What, in a memory, can answer `query` (a function of the memory's text), or None
    for a query that asks for no time, count or place."""
    if _ASKS_WHEN.match(query):
        return dates.names_a_date
    if _ASKS_COUNT.match(query):
        return _holds_a_count
    if _ASKS_WHERE.match(query):
        return lambda text: _PLACE.search(text) is not None
    return None


def _holds_a_count(text: str) -> bool:
    # A digit, else a number word; lowercasing the text first is quicker than a case-blind
    # search (4.6 against 12.8 µs a LoCoMo turn).
    return _DIGIT.search(text) is not None or _COUNT_WORD.search(text.lower()) is not None


def answers(holds, text: str) -> float:
    """1 when `text`, past its own date and speaker labels, holds what `holds` (from
    asked_for) looks for."""
    return 1.0 if holds is not None and holds(text[_LABELS.match(text).end():]) else 0.0


def _neighbours(ranked: Sequence[Ranked]) -> list[set[int]]:
    """Per candidate, the positions of the candidates one link away from it, in either
    direction (the graph walk's view: `linked`, else the memory it was reached from)."""
    index = {r.id: i for i, r in enumerate(ranked)}
    near: list[set[int]] = [set() for _ in ranked]
    for i, r in enumerate(ranked):
        c = r.candidate
        for other in (*c.linked, c.graph_from):
            j = index.get(other)
            if j is not None and j != i:
                near[i].add(j)
                near[j].add(i)
    return near


def _best_of_session(ranked: Sequence[Ranked], sessions: Sequence[str]) -> list[float]:
    """Per candidate, the best relevance among the other candidates of its session; 0 for
    a memory without a session (those are no conversation together)."""
    best: dict[str, list[float]] = {}  # session -> its two best relevances
    for r, session in zip(ranked, sessions):
        if session:
            top = best.setdefault(session, [0.0, 0.0])
            top[:] = sorted([*top, r.breakdown.relevance], reverse=True)[:2]
    return [0.0 if not session else
            best[session][1] if r.breakdown.relevance >= best[session][0] else best[session][0]
            for r, session in zip(ranked, sessions)]


def describe(ranked: Sequence[Ranked], *, cos_floor: float, keyword_scale: float | None,
             texts: Sequence[str], dates: Sequence[float] | None = None,
             own_dates: Sequence[float] | None = None,
             sessions: Sequence[str] | None = None, query: str = "") -> np.ndarray:
    """One row of FEATURES per candidate, in the order given; `texts` are their contents,
    `dates` and `own_dates` how a date the query names matches them (by their own date
    or their text, and by their own date alone where their text names none),
    `sessions` their session ids ("" for none). Column by column: recall describes
    dozens of candidates on every call."""
    n = len(ranked)
    if not n:
        return np.zeros((0, len(FEATURES)))
    breakdowns = [r.breakdown for r in ranked]
    best = keyword_scale or max((r.candidate.keyword_score or 0.0 for r in ranked),
                                default=0.0)
    # The same arithmetic as ranking.normalised_cosine, elementwise (None: 0).
    similarity = np.array([np.nan if b.similarity is None else b.similarity
                           for b in breakdowns])
    cosine = np.nan_to_num(np.minimum(1.0, np.maximum(0.0, (similarity - cos_floor)
                                                     / (1.0 - cos_floor))), nan=0.0)
    if best > 0:
        keyword = np.minimum(1.0, np.maximum(0.0, np.array(
            [b.keyword_score or 0.0 for b in breakdowns]) / best))
    else:
        keyword = np.zeros(n)
    match = np.array([b.match for b in breakdowns])
    relevance = [b.relevance for b in breakdowns]
    near = _neighbours(ranked)
    query_words = {w.lower() for w in _WORD.findall(query)}
    holds = asked_for(query)
    column = {
        "cosine": cosine, "keyword": keyword, "match": match, "relevance": relevance,
        "inherited": np.maximum(0.0, match - np.maximum(cosine, keyword)),
        "dense_rank": [1.0 / (1 + b.dense_rank) if b.dense_rank else 0.0 for b in breakdowns],
        "keyword_rank": [1.0 / (1 + b.keyword_rank) if b.keyword_rank else 0.0
                         for b in breakdowns],
        "date": np.zeros(n) if dates is None else dates,
        "own_date": np.zeros(n) if own_dates is None else own_dates,
        "substance": [substance(text) for text in texts],
        "question": [asks(text) for text in texts],
        "neighbour": [max((relevance[j] for j in others), default=0.0) for others in near],
        "session": np.zeros(n) if sessions is None else _best_of_session(ranked, sessions),
        "speaker": [speaks(text, query_words) for text in texts],
        "answer": np.zeros(n) if holds is None else [answers(holds, text) for text in texts],
    }
    return np.column_stack([np.asarray(column[name], dtype=np.float64) for name in FEATURES])


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


def fit(questions: Sequence[tuple[np.ndarray, np.ndarray]], question_weights: Sequence[float],
        *, l2: float = 1.0, iterations: int = 100) -> Coefficients:
    """The ranker's coefficients, fitted listwise: for each question (its candidates' rows
    of FEATURES, and a label per candidate, 1 for what it asked for), a softmax over its
    candidates should put the probability on its evidence, the evidence sharing it
    alike. Recall only ever compares the candidates of one query, and this is that
    comparison; a pointwise fit (fit_weights) also learns to tell candidates of one
    question from those of another, which ranking never asks (on LoCoMo's dev split the
    listwise fit ranked better, docs/BENCHMARKS.md). Questions with no evidence say
    nothing and are left out.
    Newton's method with step halving; L2 on the weights; no intercept, which a softmax
    over one question's candidates cancels."""
    asked = [(np.asarray(x, dtype=float), np.asarray(y, dtype=float) / np.sum(y), weight)
             for (x, y), weight in zip(questions, question_weights, strict=True)
             if np.sum(y) > 0]
    if not asked:
        raise ValueError("No question has a relevant candidate to fit on.")

    def loss(w: np.ndarray) -> float:
        total = 0.5 * l2 * w @ w
        for x, target, weight in asked:
            z = x @ w
            top = z.max()
            total += weight * (top + np.log(np.exp(z - top).sum()) - target @ z)
        return total

    w = np.zeros(asked[0][0].shape[1])
    current = loss(w)
    for _ in range(iterations):
        gradient, hessian = l2 * w, l2 * np.eye(len(w))
        for x, target, weight in asked:
            z = x @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            gradient += weight * (x.T @ (p - target))
            mean = x.T @ p
            hessian += weight * ((x.T * p) @ x - np.outer(mean, mean))
        step, size = np.linalg.solve(hessian, gradient), 1.0
        while loss(w - size * step) > current and size > 1e-6:
            size /= 2
        w = w - size * step
        previous, current = current, loss(w)
        if previous - current < 1e-9:
            break
    return Coefficients(0.0, tuple(float(v) for v in w))


def fit_weights(features: np.ndarray, labels: np.ndarray,
                sample_weights: np.ndarray | None = None, *, l2: float = 1.0,
                iterations: int = 50, groups: np.ndarray | None = None,
                ) -> tuple[float, np.ndarray]:
    """(intercept, a weight per column): weighted pointwise logistic regression by
    Newton's method, L2 on the weights only, over columns of any number: the fit the
    ranker had before it was fitted listwise, kept for docs/bench/ranker_variants.py,
    which compares the two and tries features the ranker does not have.

    `groups` (an integer per row, 0 first) gives each group of rows an intercept of its
    own: where one evaluation set's candidates are likelier relevant than another's, a
    shared intercept would push that difference into whichever feature tells the sets
    apart (a feature one set never has). Ranking compares candidates of one query only,
    where an intercept cancels, so the first group's is the one kept."""
    n, d = features.shape
    groups = np.zeros(n, dtype=int) if groups is None else np.asarray(groups, dtype=int)
    intercepts = int(groups.max()) + 1
    x = np.hstack([np.eye(intercepts)[groups], features])
    w = np.ones(n) if sample_weights is None else np.asarray(sample_weights, dtype=float)
    beta = np.zeros(intercepts + d)
    penalty = np.eye(intercepts + d) * l2
    penalty[:intercepts, :intercepts] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        gradient = x.T @ (w * (p - labels)) + penalty @ beta
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return float(beta[0]), beta[intercepts:]
