"""Contradictions in a store of facts: what the queue holds when most neighbours agree.

The balanced pairs (contradictions.py) are half contradicting and nearly all about one
subject, so a judge that queues two statements because they share a subject scores well
on them and floods a real queue. A store file is a team's memory as it accumulates, one
JSON line a statement in the order it was written:

    {"id": "s001", "project": "tidewater", "text": "Tidewater's warehouse is Snowflake."}

and its labels file names the pairs in it that really contradict, one a line:

    {"a": "s022", "b": "s187", "kind": "number"}

Every other pair of the store is meant to hold together (restatements, additions, other
components). The store goes through the product as an agent would hand it over: each
project's statements through `remember_many` in order (so dedup merges what it merges),
then the on-demand scan judges every memory against its neighbours. Precision and recall
are of the open queue (open and confident) against the labels; a labelled statement that
dedup merged into another is reported apart, since then no judge can see the pair.

store_heldout11.jsonl (240 statements of four projects, 20 contradictions labelled) was
written by a session that read nothing of the repository and committed alone (0e0a0ad)
before anything judged it: held out. Only figures are printed for it, as for
store_heldout12.jsonl, written the same way by another session and committed alone
(922a6b2) after the round's readings. store_dev1.jsonl and store_dev2.jsonl were written
the same way, to be read: dev. store_dev3.jsonl was written the same way on 2026-11-28 and
scored once before it was read (the rules of 8d1919d: 10 open, precision 0.700, recall
0.350; of 325d992: 12 open, 0.667 / 0.400); dev too. So was store_dev4.jsonl, written
after that (8d1919d: 9 open, 0.556 / 0.250; the rules of its day: 10 open, 0.700 /
0.350).
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memories.maintenance.contradictions import scan_contradictions
from memories.models import Contradiction, ContradictionStatus
from memories.services.remembering import NewMemory, new_memory_errors, remember_many

from .runner import fresh_owner

HELDOUT11_PATH = Path(__file__).with_name("store_heldout11.jsonl")
HELDOUT12_PATH = Path(__file__).with_name("store_heldout12.jsonl")
HELDOUT_PATHS = (HELDOUT11_PATH, HELDOUT12_PATH)
DEV1_PATH = Path(__file__).with_name("store_dev1.jsonl")
DEV3_PATH = Path(__file__).with_name("store_dev3.jsonl")
DEV4_PATH = Path(__file__).with_name("store_dev4.jsonl")


@dataclass(frozen=True)
class Store:
    statements: list[dict]  # {"id", "project", "text"} in the order written
    contradicting: set[frozenset]  # pairs of statement ids


def labels_path(store_path: Path) -> Path:
    """The labels beside a store: store.jsonl -> store_contradictions.jsonl."""
    return store_path.with_name(f"{store_path.stem}_contradictions.jsonl")


def _lines(path: Path) -> list[dict]:
    """The JSON objects of a JSON-lines file; ValueError names the file and line of the
    first that is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc})") from exc
        if not isinstance(row, dict):
            # a file's content, refused with the other bad lines (ValueError)
            raise ValueError(f"{path}:{number}: not a JSON object")  # noqa: TRY004
        rows.append(row)
    return rows


def load(store_path: Path) -> Store:
    """A store and its labels, every statement one `remember` would take; ValueError
    names the first line that is not one, before anything is stored."""
    statements = _lines(store_path)
    if not statements:
        raise ValueError(f"{store_path}: no statements")
    for row in statements:
        if not all(isinstance(row.get(key), str) and row[key]
                   for key in ("id", "project", "text")):
            raise ValueError(f"{store_path}: a statement needs id, project and text: {row}")
        refused = new_memory_errors(NewMemory(content=row["text"], project=row["project"]))
        if refused:
            raise ValueError(f"{store_path}: statement {row['id']!r} cannot be stored: "
                             + "; ".join(f"{field}: {' '.join(errors)}"
                                         for field, errors in refused.items()))
    known = {row["id"] for row in statements}
    if len(known) != len(statements):
        raise ValueError(f"{store_path}: statement ids repeat")
    labels = labels_path(store_path)
    contradicting = set()
    for row in _lines(labels):
        ends = (row.get("a"), row.get("b"))
        if not all(isinstance(end, str) for end in ends) or len(set(ends)) != 2 or not (
                set(ends) <= known):
            raise ValueError(f"{labels}: not a pair of the store's ids: {row}")
        contradicting.add(frozenset(ends))
    return Store(statements, contradicting)


def evaluate(store: Store, *, username: str = "store-contradictions",
             progress: Callable[[str], None] = lambda message: None) -> dict:
    owner = fresh_owner(username)
    memory_of: dict[str, object] = {}  # statement id -> the memory that holds it
    merged = 0
    for project in dict.fromkeys(row["project"] for row in store.statements):
        rows = [row for row in store.statements if row["project"] == project]
        results = remember_many(owner=owner, items=[
            NewMemory(content=row["text"], project=project) for row in rows])
        for row, result in zip(rows, results, strict=True):
            memory_of[row["id"]] = result.memory.pk
        stored = sum(result.created for result in results)
        merged += len(rows) - stored
        progress(f"{project}: {len(rows)} statements, {stored} stored")
    scan_contradictions(owner=owner)
    statements_of: dict[object, set[str]] = {}
    for statement, memory in memory_of.items():
        statements_of.setdefault(memory, set()).add(statement)
    queue = list(Contradiction.objects.filter(owner=owner, status=ContradictionStatus.OPEN)
                 .confident().select_related("memory_a", "memory_b"))
    found, false, flags = set(), 0, []
    for contradiction in queue:
        labelled = {frozenset((x, y)) for x in statements_of.get(contradiction.memory_a_id, ())
                    for y in statements_of.get(contradiction.memory_b_id, ())} & store.contradicting
        found |= labelled
        false += not labelled
        flags.append({"labelled": bool(labelled), "a": contradiction.memory_a.content,
                      "b": contradiction.memory_b.content, "reason": contradiction.reason,
                      "confidence": contradiction.confidence})
    buried = [pair for pair in store.contradicting if len({memory_of[i] for i in pair}) == 1]
    labelled = len(store.contradicting)
    return {
        "statements": len(store.statements), "memories": len(statements_of),
        "merged": merged, "labelled": labelled, "open": len(queue),
        "true": len(queue) - false, "false": false,
        "precision": (len(queue) - false) / len(queue) if queue else None,
        "recall": len(found) / labelled if labelled else None,
        "merged_contradictions": len(buried),
        "open_per_1000": round(1000 * len(queue) / len(store.statements), 2),
        "flags": flags, "missed": [sorted(pair) for pair in store.contradicting - found],
    }
