"""Consolidation: merge duplicates, cluster what is alike, summarise, compress, re-rank.

Seed 002, "Memory Consolidation Algorithm": pick candidates by a strategy (age,
importance or a token budget), cluster them at cosine >= 0.85, summarise each cluster
of two or more into one semantic memory of importance 0.9 x the cluster's highest, and
archive the originals. Seed 001, "Consolidation Engine": merge duplicates (>= 0.92)
first, give old episodes a summary (after 7 days) and a compressed line and index key
(after 30 days), promote and demote by usage (adjust_rankings), and link related
memories (discover_connections).

Vectors are compared by cosine; they are normalised here, and a zero vector (a memory
without an embedding) is similar to nothing. The summaries of the `rules` provider are
extractive: whole sentences and words of the originals, never new text.
"""

import math
import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from pydantic import Field

from memories.engine.context import count_tokens
from memories.engine.dedup import (
    conflicting_arrangement,
    content_hash,
    details,
    first_duplicate_in_batch,
)
from memories.engine.importance import clamp_importance
from memories.engine.llm_json import StrictReply

CLUSTER_THRESHOLD = 0.85  # seed 002 step 2
DUPLICATE_THRESHOLD = 0.92  # seed 001 merge_similar_facts
RELATED_THRESHOLD = 0.75  # discover_connections; the seeds give no figure
_EPSILON = 1e-9  # cosines computed in floating point may miss an exact threshold

# --- Clustering ------------------------------------------------------------------------


def _unit(vectors, n: int) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != n:
        raise ValueError(f"Expected {n} vectors, one per id, as rows of a 2-D array.")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def _neighbours(unit: np.ndarray, threshold: float) -> np.ndarray:
    adjacent = unit @ unit.T >= threshold - _EPSILON
    zero = ~unit.any(axis=1)
    adjacent[zero, :] = False
    adjacent[:, zero] = False
    np.fill_diagonal(adjacent, False)
    return adjacent


def cluster(vectors, ids: Sequence[Hashable], *, threshold: float = CLUSTER_THRESHOLD
            ) -> list[list[Hashable]]:
    """Groups of two or more memories whose vectors are alike, by leader clustering.

    Seed 002 takes each candidate in turn as a leader and gathers the unclustered
    candidates within the threshold of it. Every member is then close to its leader,
    so a cluster keeps to one subject; single linkage would chain A~B~C into a cluster
    whose ends have nothing in common. Like Butina's clustering (J. Chem. Inf. Comput.
    Sci. 1999), the next leader is the unclustered memory with the most unclustered
    neighbours (the earliest on ties), so a leader sits in the middle of its group
    rather than at its edge. Deterministic; O(n^2). Members are in input order; clusters
    in the order they were formed, largest first.
    """
    n = len(ids)
    if n == 0:
        return []
    adjacent = _neighbours(_unit(vectors, n), threshold)
    counts = adjacent.sum(axis=1)
    free = np.ones(n, dtype=bool)
    clusters = []
    while True:
        open_counts = np.where(free, counts, -1)
        leader = int(np.argmax(open_counts))  # the first of equals
        if open_counts[leader] < 1:
            break
        members = np.flatnonzero(adjacent[leader] & free)
        group = sorted([leader, *members.tolist()])
        free[group] = False
        counts = counts - adjacent[:, group].sum(axis=1)
        clusters.append([ids[i] for i in group])
    return clusters


def near_duplicate_groups(vectors, ids: Sequence[Hashable], contents: Sequence[str],
                          threshold: float = DUPLICATE_THRESHOLD, *, strict: bool = True
                          ) -> list[list[Hashable]]:
    """Groups of memories that say the same thing; the first of each group is the one to keep.

    Exact duplicates (same content_hash: case and spacing aside) group first, whatever
    their vectors. Then each distinct content joins the earliest earlier one it
    duplicates at cosine >= threshold, which with `strict` (as in dedup.decide) must
    also say the same details: "5 replicas in us-east-2" and "3 replicas in eu-west-1"
    are a change to surface, not a repeat to merge. Pass memories oldest first to keep
    the original. Groups of two or more, in input order of their first member.
    """
    n = len(ids)
    if len(contents) != n:
        raise ValueError(f"Expected {n} contents, one per id, got {len(contents)}.")
    if n == 0:
        return []
    unit = _unit(vectors, n)
    by_hash: dict[str, list[int]] = {}
    firsts = []  # the first index of each distinct content
    for i, text in enumerate(contents):
        key = content_hash(text)
        if key not in by_hash:
            by_hash[key] = []
            firsts.append(i)
        by_hash[key].append(i)
    originals = first_duplicate_in_batch([contents[i] for i in firsts], unit[firsts],
                                         threshold - _EPSILON, strict=strict)
    groups: dict[int, list[int]] = {}
    for k, i in enumerate(firsts):
        root = k if originals[k] is None else originals[k]
        groups.setdefault(root, []).extend(by_hash[content_hash(contents[i])])
    return [[ids[i] for i in sorted(members)]
            for _, members in sorted(groups.items()) if len(members) >= 2]


def related_pairs(vectors, ids: Sequence[Hashable], *, threshold: float = RELATED_THRESHOLD,
                  entities: Sequence[Iterable[str]] | None = None, max_links: int = 5
                  ) -> list[tuple[Hashable, Hashable, float]]:
    """Seed 001 discover_connections: pairs close in meaning or sharing an entity.

    Strength is the cosine, or for a pair below the threshold that shares entities, the
    Jaccard overlap of their entity sets. Each memory keeps its `max_links` strongest
    links (a pair stays when either side keeps it). Pairs are (earlier, later) in input
    order, strongest first.
    """
    n = len(ids)
    if n < 2:
        return []
    unit = _unit(vectors, n)
    sims = unit @ unit.T
    close = _neighbours(unit, threshold)
    sets = [frozenset(e) for e in entities] if entities is not None else None
    if sets is not None and len(sets) != n:
        raise ValueError(f"Expected {n} entity sets, one per id, got {len(sets)}.")
    strength: dict[tuple[int, int], float] = {}
    for i in range(n):
        for j in range(i + 1, n):
            if close[i, j]:
                strength[i, j] = float(sims[i, j])
            elif sets is not None and sets[i] & sets[j]:
                strength[i, j] = len(sets[i] & sets[j]) / len(sets[i] | sets[j])
    kept = set()
    for i in range(n):
        mine = sorted((pair for pair in strength if i in pair),
                      key=lambda pair: (-strength[pair], pair))
        kept.update(mine[:max_links])
    ordered = sorted(kept, key=lambda pair: (-strength[pair], pair))
    return [(ids[i], ids[j], strength[i, j]) for i, j in ordered]


# --- Candidates ------------------------------------------------------------------------

STRATEGIES = ("age_based", "importance_based", "token_budget")
# The seeds leave these to the request; the defaults are Engram's.
DEFAULT_AGE_DAYS = 30  # when episodes are compressed (seed 001)
DEFAULT_MIN_IMPORTANCE = 4.0  # below "general" (5): tool output, file reads
DEFAULT_TOKEN_BUDGET = 8000  # the context budget of seed 001


@dataclass(frozen=True, slots=True)
class ConsolidationState:
    """What candidate selection needs to know of an active memory."""

    id: Hashable
    created_at: datetime
    importance: float
    tokens: int
    pinned: bool = False


def candidates(states: Sequence[ConsolidationState], strategy: str, now: datetime, *,
               age_days: float = DEFAULT_AGE_DAYS,
               min_importance: float = DEFAULT_MIN_IMPORTANCE,
               token_budget: int = DEFAULT_TOKEN_BUDGET) -> list[ConsolidationState]:
    """Seed 002 step 1: the active memories a strategy would consolidate, in its order.

    - age_based: made before now - age_days, oldest first.
    - importance_based: importance below min_importance, least important first.
    - token_budget: going down by importance (newest first on ties), every memory from
      the one whose tokens take the running total past token_budget.
    Pinned memories are never candidates; under token_budget their tokens count first,
    since they stay whatever happens.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"Unknown strategy {strategy!r}; strategies are "
                         f"{', '.join(STRATEGIES)}.")
    pool = [s for s in states if not s.pinned]
    if strategy == "age_based":
        cutoff = now - timedelta(days=age_days)
        return sorted((s for s in pool if s.created_at < cutoff), key=lambda s: s.created_at)
    if strategy == "importance_based":
        return sorted((s for s in pool if s.importance < min_importance),
                      key=lambda s: (s.importance, s.created_at))
    running = sum(s.tokens for s in states if s.pinned)
    chosen = []
    newest_first = sorted(pool, key=lambda s: s.created_at, reverse=True)
    for s in sorted(newest_first, key=lambda s: -s.importance):
        running += s.tokens
        if running > token_budget:
            chosen.append(s)
    return chosen


# --- Extractive summaries and compression levels --------------------------------------

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
_WORD = re.compile(r"[\w][\w.\-/]*[\w]|[\w]")
_SPECIFIC = re.compile(r"\d|[_/]|\w\.\w")  # numbers, identifiers, paths, versions
SPECIFICS_BONUS = 0.25
REDUNDANT_OVERLAP = 0.8
ELLIPSIS = "…"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s and s.strip()]


def _overlap(a: frozenset, b: frozenset) -> float:
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def _has_specifics(sentence: str) -> bool:
    words = _WORD.findall(sentence)
    names = any(w[0].isupper() for w in words[1:])
    return names or any(_SPECIFIC.search(w) for w in words)


def _truncate(sentence: str, max_tokens: int) -> str:
    words, kept = sentence.split(), []
    for word in words:
        if count_tokens(" ".join([*kept, word]) + ELLIPSIS) > max_tokens:
            break
        kept.append(word)
    return " ".join(kept) + ELLIPSIS if kept else ""


# The sentences a summary is chosen from: each memory's first, and so many in all.
# Centrality compares every pair, and two memories of 100 KB of short sentences held a
# consolidation (a dry run inside its request) for most of a minute.
SUMMARY_SENTENCES_PER_MEMORY = 40
SUMMARY_SENTENCES = 400


def extractive_summary(contents: Sequence[str], *, max_tokens: int) -> str:
    """The most central sentences of the contents, verbatim, within max_tokens.

    A sentence's centrality is the sum of its word overlap (cosine of the sets of
    stemmed content words, as dedup.details) with every other sentence, as in degree
    centrality (LexRank): what several memories of a cluster say scores highest.
    Sentences with numbers, names, identifiers or paths get a small bonus, so details
    survive. Near-repeats of a chosen sentence are skipped, unless they arrange the
    words otherwise (a direction swapped, "must" against "may": dedup's
    conflicting_arrangement), which is another fact. The chosen sentences keep
    their original order. Nothing is rewritten, so no number or name can change; only a
    single sentence longer than the budget is cut at a word, and marked with "…".
    """
    if max_tokens <= 0:
        return ""
    sentences = [s for text in contents
                 for s in _sentences(text)[:SUMMARY_SENTENCES_PER_MEMORY]][:SUMMARY_SENTENCES]
    words = [details(s) for s in sentences]
    if any(words):  # sentences with no content words at all ("OK.") say nothing
        sentences, words = zip(*((s, w) for s, w in zip(sentences, words) if w), strict=True)
    if not sentences:
        return ""
    scores = [sum(_overlap(words[i], words[j]) for j in range(len(sentences)) if j != i)
              + (SPECIFICS_BONUS if _has_specifics(sentences[i]) else 0.0)
              for i in range(len(sentences))]
    chosen: list[int] = []
    for i in sorted(range(len(sentences)), key=lambda i: (-scores[i], i)):
        if any((words[i] == words[j] or _overlap(words[i], words[j]) >= REDUNDANT_OVERLAP)
               and not conflicting_arrangement(sentences[i], sentences[j]) for j in chosen):
            continue
        trial = " ".join(sentences[j] for j in sorted([*chosen, i]))
        if count_tokens(trial) <= max_tokens:
            chosen.append(i)
    if not chosen:
        best = min(range(len(sentences)), key=lambda i: (-scores[i], i))
        return _truncate(sentences[best], max_tokens)
    return " ".join(sentences[j] for j in sorted(chosen))


SUMMARY_AFTER_DAYS = 7  # seed 001 summarize_episodes(older_than=days(7))
COMPRESS_AFTER_DAYS = 30  # seed 001 compress_episodes(older_than=days(30))
SUMMARY_MAX_TOKENS = 60  # level 1: a few sentences
COMPRESSED_MAX_TOKENS = 24  # level 2: one line
INDEX_KEY_WORDS = 3  # level 3: a topic key
INDEX_KEY_MAX_CHARS = 50  # seed 001 content_index VARCHAR(50)
LEVELS = ("summary", "compressed", "index_key")


def compression_due(created_at: datetime, now: datetime) -> set[str]:
    """The compression levels an episode of this age should have (fields of Memory)."""
    age = now - created_at
    due = set()
    if age > timedelta(days=SUMMARY_AFTER_DAYS):
        due.add("summary")
    if age > timedelta(days=COMPRESS_AFTER_DAYS):
        due.update(("compressed", "index_key"))
    return due


@dataclass(slots=True)
class _Word:
    surface: str  # as first written
    stem: str
    position: int  # of its first use
    uses: int = 0
    specific: bool = False  # a number, name, identifier or path

    @property
    def salience(self) -> float:
        return self.uses + (SPECIFICS_BONUS if self.specific else 0.0)


def _content_words(text: str) -> list[_Word]:
    """Each distinct content word of the text, by stem, in order of first use."""
    found: dict[str, _Word] = {}
    position = 0
    for sentence in _sentences(text):
        for k, surface in enumerate(_WORD.findall(sentence)):
            stems = details(surface)
            if not stems:
                continue  # a function word
            stem = next(iter(stems))
            word = found.setdefault(stem, _Word(surface, stem, position))
            word.uses += 1
            # A capital after the first word of a sentence marks a name.
            word.specific |= bool(_SPECIFIC.search(surface)) or (k > 0 and surface[0].isupper())
            position += 1
    return list(found.values())


def _index_key(words: list[_Word]) -> tuple[str, set[str]]:
    """A topic key of the most used plain words, in text order; and their stems."""
    plain = [w for w in words if re.fullmatch(r"[^\W\d_]+(-[^\W\d_]+)*", w.surface)] or words
    best = sorted(plain, key=lambda w: (-w.uses, w.position))[:INDEX_KEY_WORDS]
    key, stems = "", set()
    for word in sorted(best, key=lambda w: w.position):
        part = re.sub(r"[\W_]+", "_", word.surface.casefold()).strip("_")
        candidate = f"{key}_{part}" if key else part
        if not part or len(candidate) > INDEX_KEY_MAX_CHARS:
            continue
        key = candidate
        stems.add(word.stem)
    return key, stems


def compress(content: str) -> tuple[str, str, str]:
    """The rules provider's compression levels of seed 001: (summary, compressed, index key).

    Summary: the extractive summary of the content, at most SUMMARY_MAX_TOKENS. Index key:
    the content's most salient words (frequent, or numbers, names, identifiers; not bare
    numbers), in text order, joined by "_". Compressed line: when the content fits on one
    line of COMPRESSED_MAX_TOKENS it is that line; else the key, a colon, and the most
    salient of the other words in text order. Only words of the content are used.
    """
    line = " ".join(content.split())
    if not line:
        return "", "", ""
    summary = extractive_summary([content], max_tokens=SUMMARY_MAX_TOKENS)
    words = _content_words(content)
    key, key_stems = _index_key(words)
    if count_tokens(line) <= COMPRESSED_MAX_TOKENS:
        return summary, line, key
    chosen: list[_Word] = []
    for word in sorted((w for w in words if w.stem not in key_stems),
                       key=lambda w: (-w.salience, w.position)):
        trial = sorted([*chosen, word], key=lambda w: w.position)
        if count_tokens(f"{key}: " + " ".join(w.surface for w in trial)) <= COMPRESSED_MAX_TOKENS:
            chosen = trial
    compressed = f"{key}: " + " ".join(w.surface for w in chosen) if chosen else key
    return summary, compressed, key


# --- Importance ------------------------------------------------------------------------

CONSOLIDATED_FACTOR = 0.9  # seed 002 step 4: max_importance * 0.9
MAX_RANK_STEP = 1.0


def consolidated_importance(importances: Iterable[float]) -> float:
    """Seed 002 step 4: 0.9 x the highest importance of the cluster, kept within 1..10."""
    values = list(importances)
    if not values:
        raise ValueError("A consolidated memory needs at least one original.")
    return clamp_importance(CONSOLIDATED_FACTOR * max(values))


def adjust_ranking(importance: float, *, retrieved: int = 0, cited: int = 0, ignored: int = 0,
                   helpful: int = 0, harmful: int = 0) -> float:
    """Seed 001 adjust_rankings: promote what gets used, demote what gets passed over.

    The counts are those since the last adjustment. Use is citations plus helpful marks;
    disuse is ignores plus twice the harmful marks (a memory that misled is worse than
    one passed over). The change is MAX_RANK_STEP x (use - disuse) / (retrievals + 2):
    a share of the retrievals, shrunk towards none when there were few, so one citation
    moves a memory by a third of a step and one citation in fifty retrievals barely at
    all. Retrievals with no recorded outcome count only in the denominator; with no
    outcome at all, nothing changes (disuse is decay's business). Clamped to 1..10.
    """
    counts = {"retrieved": retrieved, "cited": cited, "ignored": ignored,
              "helpful": helpful, "harmful": harmful}
    negative = [name for name, value in counts.items() if value < 0]
    if negative:
        raise ValueError(f"Usage counts cannot be negative: {', '.join(negative)}.")
    used, unused = cited + helpful, ignored + 2 * harmful
    outcomes = used + unused
    if outcomes == 0:
        return clamp_importance(importance)
    step = MAX_RANK_STEP * (used - unused) / (max(retrieved, outcomes) + 2)
    return clamp_importance(importance + step)


SUMMARY_CAP_TOKENS = 120  # a consolidated memory: a few sentences at most


class ClusterSummary(StrictReply):
    """A model's summary of a cluster of memories, parsed strictly."""
    summary: str = Field(min_length=1, max_length=2_000)


def summary_budget(token_counts: Sequence[int], *, cap: int = SUMMARY_CAP_TOKENS) -> int:
    """Tokens a cluster's summary may take: room for its longest original or half of all
    of them, whichever is more, and never more than `cap`, so the summary saves tokens."""
    if not token_counts:
        raise ValueError("A summary needs at least one original.")
    return min(cap, max(max(token_counts), sum(token_counts) // 2))
