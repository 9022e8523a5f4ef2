"""Loads evaluation data into Engram through the services and ranks it four ways:
`recall` (what the API answers) and three baselines computed on the very same
stored memories: BM25 over their texts, exact cosine over their stored embeddings, and
the reciprocal rank fusion of those two."""

import hashlib
import json
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.contrib.auth import get_user_model

from memories.models import Memory
from memories.providers.embeddings import get_provider
from memories.services.context import assemble_context
from memories.services.recall import recall
from memories.services.remembering import NewMemory, remember_many

from . import metrics
from .bm25 import BM25
from .locomo import CATEGORY_NAMES, SPLITS, Conversation, turn_content
from .paraphrases import Pair

METHODS = ("recall", "bm25", "dense", "rrf")
RRF_K = 60
FUSION_DEPTH = 100  # each baseline list RRF fuses
TOKEN_BUDGET = 500


def fresh_owner(username: str):
    """The evaluation owner, with every memory it had deleted (history goes with them)."""
    owner, _ = get_user_model().objects.get_or_create(username=username)
    Memory.objects.filter(owner=owner).delete()
    return owner


class Rankers:
    """Ranked memory ids for a query, by each method, over one owner's active memories."""

    def __init__(self, owner):
        self.owner = owner
        self.provider = get_provider()
        rows = list(Memory.objects.for_owner(owner).active().order_by("created_at", "id")
                    .values_list("id", "content", "embedding", "embedding_model"))
        self.texts = {memory_id: content for memory_id, content, _, _ in rows}
        self.bm25 = BM25([(memory_id, content) for memory_id, content, _, _ in rows])
        embedded = [(memory_id, vector) for memory_id, _, vector, model in rows
                    if vector is not None and model == self.provider.model_id]
        self.dense_ids = [memory_id for memory_id, _ in embedded]
        self.matrix = (np.vstack([np.asarray(v, dtype=np.float32) for _, v in embedded])
                       if embedded else np.zeros((0, self.provider.dimensions), np.float32))
        self.recall_ms: list[float] = []

    def tokens(self, memory_id) -> int:
        return metrics.estimate_tokens(self.texts[memory_id])

    def recall(self, query: str, k: int) -> list:
        started = time.perf_counter()
        hits = recall(owner=self.owner, query=query, limit=k)
        self.recall_ms.append((time.perf_counter() - started) * 1000)
        for hit in hits:  # normally known already; recall must not depend on our cache
            self.texts.setdefault(hit.memory.pk, hit.memory.content)
        return [hit.memory.pk for hit in hits]

    def bm25_ranking(self, query: str, k: int) -> list:
        return [memory_id for memory_id, _ in self.bm25.search(query, k)]

    def dense(self, query: str, k: int) -> list:
        if not len(self.dense_ids):
            return []
        scores = self.matrix @ np.asarray(self.provider.embed_query(query), dtype=np.float32)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]
        return [self.dense_ids[i] for i in top]

    def rankings(self, query: str, k: int) -> dict[str, list]:
        """Recall is asked first, so its latency includes embedding the query."""
        recalled = self.recall(query, k)
        lexical = self.bm25_ranking(query, FUSION_DEPTH)
        dense = self.dense(query, FUSION_DEPTH)
        return {"recall": recalled, "bm25": lexical[:k], "dense": dense[:k],
                "rrf": metrics.rrf([lexical, dense], k=RRF_K, limit=k)}


# ---------------------------------------------------------------- LoCoMo

@dataclass
class LoadedConversation:
    sample_id: str
    owner: object
    dia_map: dict  # dia_id -> id of the memory that holds the turn
    turns: int
    created: int
    seconds: float
    merges: list = field(default_factory=list)  # (dia_id, dia_id of the memory it joined)


def locomo_username(sample_id: str, turn_format: str = "dated") -> str:
    """The owner a LoCoMo conversation is stored under, one per turn format."""
    return f"locomo-{sample_id}" if turn_format == "dated" else f"locomo-{turn_format}-{sample_id}"


def load_conversation(conversation: Conversation, *, username: str,
                      batch_size: int = 128, turn_format: str = "dated") -> LoadedConversation:
    """One memory per turn (its text in `turn_format`, locomo.TURN_FORMATS), a session at
    a time (in chunks of batch_size), stamped with the session's date and tagged with its
    session, as an agent would hand them over (`remember` links each turn to the one
    before it in the session). Keeps dia_id -> memory id, merged turns included."""
    owner = fresh_owner(username)
    dia_map, first_turn_of = {}, {}
    created, merges = 0, []
    started = time.perf_counter()
    for number, turns in conversation.sessions.items():
        for start in range(0, len(turns), batch_size):
            chunk = turns[start:start + batch_size]
            items = [
                NewMemory(
                    content=turn_content(turn, turn_format), memory_type="episodic",
                    kind="episode",
                    session_id=f"session_{number}",
                    metadata={"dia_id": turn.dia_id, "session": number},
                    valid_from=turn.date,
                )
                for turn in chunk
            ]
            results = remember_many(owner=owner, items=items, now=chunk[0].date)
            for turn, result in zip(chunk, results):
                dia_map[turn.dia_id] = result.memory.pk
                if result.created:
                    created += 1
                    first_turn_of[result.memory.pk] = turn.dia_id
                else:
                    merges.append((turn.dia_id, first_turn_of.get(result.memory.pk)))
    return LoadedConversation(conversation.sample_id, owner, dia_map, len(conversation.turns),
                              created, time.perf_counter() - started, merges)


def _fingerprint(texts: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(texts).encode()).hexdigest()


def reuse_records(reuse: Path) -> dict:
    """What a reuse file recorded, a store per owner; {} for a file not written yet.
    Raises ValueError for a file that is not one, before anything is stored."""
    if not reuse.exists():
        if not reuse.parent.is_dir():
            raise ValueError(f"{reuse}: its folder does not exist")
        return {}
    try:
        known = json.loads(reuse.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{reuse} is not a reuse file: {exc}") from exc
    if not isinstance(known, dict) or not all(isinstance(e, dict) for e in known.values()):
        raise ValueError(f"{reuse} is not a reuse file: expected a JSON object of stores "
                         "by owner")
    return known


def _ids(entry: dict) -> dict[str, uuid.UUID] | None:
    try:
        return {key: uuid.UUID(pk) for key, pk in entry["ids"].items()}
    except (KeyError, AttributeError, TypeError, ValueError):
        return None


def _reused(reuse: Path, username: str, fingerprint: str):
    """The owner and the memory ids `reuse` recorded of it, when it recorded this very set
    stored under this owner (same texts, every memory still there); (None, None)
    otherwise, an entry an older version wrote (or one mangled by hand) included."""
    entry = reuse_records(reuse).get(username)
    if not entry or entry.get("fingerprint") != fingerprint:
        return None, None
    recorded = _ids(entry)
    if recorded is None or not isinstance(entry.get("created"), int):
        return None, None
    owner = get_user_model().objects.filter(username=username).first()
    ids = set(recorded.values())
    if owner is None or Memory.objects.for_owner(owner).count() != entry["created"] \
            or Memory.objects.filter(owner=owner, pk__in=ids).count() != len(ids):
        return None, None
    return owner, entry | {"ids": recorded}


def _record(reuse: Path, username: str, entry: dict) -> None:
    known = reuse_records(reuse)
    known[username] = entry
    reuse.write_text(json.dumps(known))


def load_or_reuse(conversation: Conversation, *, username: str, batch_size: int = 128,
                  reuse: Path | None = None, turn_format: str = "dated") -> LoadedConversation:
    """load_conversation, or, with a `reuse` file that recorded this very conversation
    stored under this owner, the store as it is: embedding 3,000 turns takes minutes,
    and tuning asks the same store many questions."""
    if reuse is None:
        return load_conversation(conversation, username=username, batch_size=batch_size,
                                 turn_format=turn_format)
    fingerprint = _fingerprint([f"{t.dia_id}\t{turn_content(t, turn_format)}"
                                for t in conversation.turns])
    owner, entry = _reused(reuse, username, fingerprint)
    if owner is not None:
        return LoadedConversation(conversation.sample_id, owner, entry["ids"],
                                  len(conversation.turns), entry["created"], 0.0,
                                  [tuple(m) for m in entry.get("merges", [])])
    loaded = load_conversation(conversation, username=username, batch_size=batch_size,
                               turn_format=turn_format)
    _record(reuse, username, {"fingerprint": fingerprint, "created": loaded.created,
                              "ids": {dia: str(pk) for dia, pk in loaded.dia_map.items()},
                              "merges": loaded.merges})
    return loaded


def store_texts(texts: Sequence[str], *, username: str, reuse: Path | None = None):
    """The owner and the id of the memory holding each text, every text stored as a
    fact; with `reuse`, the store an earlier call recorded there. A fresh store gives its
    memories new ids, and candidates that tie are told apart by id, so a fit on the same
    texts is repeatable only on the same store."""
    fingerprint = _fingerprint(texts)
    owner, entry = _reused(reuse, username, fingerprint) if reuse else (None, None)
    if owner is not None:
        return owner, [entry["ids"][str(i)] for i in range(len(texts))]
    owner = fresh_owner(username)
    results = remember_many(owner=owner, items=[
        NewMemory(content=text, memory_type="semantic", kind="fact") for text in texts])
    ids = [result.memory.pk for result in results]
    if reuse:
        _record(reuse, username, {"fingerprint": fingerprint,
                                  "created": sum(result.created for result in results),
                                  "ids": {str(i): str(pk) for i, pk in enumerate(ids)}})
    return owner, ids


def context_fit(owner, query: str, evidence: Sequence, budget: int = TOKEN_BUDGET) -> bool:
    """Whether every evidence memory is in the context /context would hand out for the
    query within `budget` tokens: measured through the context path itself (its header,
    its line per memory, its minimum match), not by adding up memory texts."""
    used = assemble_context(owner=owner, query=query, max_tokens=budget, track=False)
    return set(evidence) <= {hit.memory.pk for hit in used.used}


def evaluate_locomo(conversations: Sequence[Conversation], *, categories: Sequence[int],
                    batch_size: int = 128, ks: Sequence[int] = (5, 10, 20),
                    reuse: Path | None = None, turn_format: str = "dated",
                    progress: Callable[[str], None] = lambda message: None) -> dict:
    depth = max(ks)
    rows: list[dict] = []  # one per (question, method)
    loaded_info, fixes, skipped = [], Counter(), 0
    total_load = 0.0
    recall_ms: list[float] = []
    for conversation in conversations:
        loaded = load_or_reuse(conversation,
                               username=locomo_username(conversation.sample_id, turn_format),
                               batch_size=batch_size, reuse=reuse, turn_format=turn_format)
        total_load += loaded.seconds
        fixes += conversation.evidence_fixes
        rankers = Rankers(loaded.owner)
        asked = 0
        for question in conversation.questions:
            if question.category not in categories:
                continue
            if not question.evidence:
                skipped += 1
                continue
            asked += 1
            evidence = [loaded.dia_map[dia_id] for dia_id in question.evidence]
            for method, ranked in rankers.rankings(question.question, depth).items():
                # recall through the context path; a baseline has none: its raw texts
                fit = (context_fit(loaded.owner, question.question, evidence)
                       if method == "recall" else
                       metrics.fits_in_budget(ranked, evidence, rankers.tokens, TOKEN_BUDGET))
                row = {"method": method, "category": question.category,
                       "split": conversation.split, "fit": fit}
                for k in ks:
                    row[f"r@{k}"] = metrics.recall_at_k(ranked, evidence, k)
                rows.append(row)
        recall_ms += rankers.recall_ms
        evidence_turns = {d for q in conversation.questions for d in q.evidence}
        info = {
            "sample_id": conversation.sample_id, "split": conversation.split,
            "owner": loaded.owner.username,
            "turns": loaded.turns, "memories": loaded.created,
            "merged_turns": len(loaded.merges),
            "merged_evidence_turns": sum(1 for d, _ in loaded.merges if d in evidence_turns),
            "merges": [{"turn": d, "into": into} for d, into in loaded.merges],
            "load_seconds": round(loaded.seconds, 2), "questions": asked,
        }
        loaded_info.append(info)
        progress(f"{conversation.sample_id}: {loaded.turns} turns -> {loaded.created} "
                 f"memories ({len(loaded.merges)} merged) in {loaded.seconds:.1f} s; "
                 f"{asked} questions")

    present = [split for split in SPLITS if any(row["split"] == split for row in rows)]
    return {
        "benchmark": "locomo",
        "turn_format": turn_format,
        "categories": {str(c): CATEGORY_NAMES.get(c, str(c)) for c in sorted(categories)},
        "questions": len(rows) // len(METHODS),
        "skipped_without_evidence": skipped,
        "evidence_fixes": dict(fixes),
        "conversations": loaded_info,
        "turns": sum(c["turns"] for c in loaded_info),
        "memories": sum(c["memories"] for c in loaded_info),
        "merged_turns": sum(c["merged_turns"] for c in loaded_info),
        "methods": _by_method(rows, categories, ks),
        "splits": {split: _by_method([r for r in rows if r["split"] == split], categories, ks)
                   for split in present},
        "timing": {
            "load_seconds": round(total_load, 2),
            "turns_per_second": round(sum(c["turns"] for c in loaded_info) / total_load, 1)
            if total_load else None,
            "recall_mean_ms": round(statistics.fmean(recall_ms), 2) if recall_ms else None,
            "recall_p95_ms": round(_percentile(recall_ms, 95), 2) if recall_ms else None,
        },
        "token_budget": TOKEN_BUDGET,
    }


def _by_method(rows: list[dict], categories, ks) -> dict:
    methods = {}
    for method in METHODS:
        mine = [row for row in rows if row["method"] == method]
        groups = {str(c): [r for r in mine if r["category"] == c] for c in sorted(categories)}
        groups["all"] = mine
        methods[method] = {name: _summary(group, ks) for name, group in groups.items()}
    return methods


def _summary(rows: list[dict], ks) -> dict:
    result = {"n": len(rows)}
    for k in ks:
        result[f"r@{k}"] = _round(metrics.mean([row[f"r@{k}"] for row in rows]))
    result[f"fit@{TOKEN_BUDGET}"] = _round(metrics.mean([float(row["fit"]) for row in rows]))
    return result


def _round(value):
    return None if value is None else round(value, 4)


def _percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


# ---------------------------------------------------------------- paraphrases

def evaluate_paraphrases(pairs: Sequence[Pair], distractors: Sequence[str], *,
                         username: str = "paraphrase-eval", reuse: Path | None = None) -> dict:
    """All memories (answers and distractors) go to one owner; each query must find its
    own memory. Reports hit@1, hit@5 and MRR@10 per method, overall and per split.
    With `reuse`, the store an earlier run recorded there is asked again (store_texts), so
    that two runs tell tied candidates apart by the same ids and report the same."""
    texts = [pair.memory for pair in pairs] + list(distractors)
    started = time.perf_counter()
    owner, ids = store_texts(texts, username=username, reuse=reuse)
    load_seconds = time.perf_counter() - started
    # a fresh owner's store: a text merged into another shares that memory's id
    contents = dict(Memory.objects.filter(pk__in=ids).values_list("pk", "content"))
    merged = [{"memory": text, "into": contents[pk]}
              for i, (text, pk) in enumerate(zip(texts, ids)) if pk in ids[:i]]
    rankers = Rankers(owner)
    rows, misses = [], []
    for i, pair in enumerate(pairs):
        target = ids[i]
        rankings = rankers.rankings(pair.query, 10)
        for method, ranked in rankings.items():
            rows.append({"method": method, "split": pair.split,
                         "hit@1": metrics.hit_at_k(ranked, target, 1),
                         "hit@5": metrics.hit_at_k(ranked, target, 5),
                         "mrr@10": metrics.reciprocal_rank(ranked, target, 10)})
        if rankings["recall"][:1] != [target]:
            top = rankings["recall"][0] if rankings["recall"] else None
            misses.append({"query": pair.query, "split": pair.split, "expected": texts[i],
                           "got": rankers.texts.get(top)})

    def scores(chosen):
        return {method: {name: _round(metrics.mean([r[name] for r in chosen
                                                    if r["method"] == method]))
                         for name in ("hit@1", "hit@5", "mrr@10")} for method in METHODS}

    return {
        "benchmark": "paraphrase",
        "pairs": len(pairs), "distractors": len(distractors),
        "memories": len(set(ids)), "merged": merged,
        "methods": scores(rows),
        "splits": {split: scores([r for r in rows if r["split"] == split])
                   for split in SPLITS if any(pair.split == split for pair in pairs)},
        "recall_misses_at_1": misses,
        "timing": {
            "load_seconds": round(load_seconds, 2),
            "recall_mean_ms": round(statistics.fmean(rankers.recall_ms), 2)
            if rankers.recall_ms else None,
        },
    }
