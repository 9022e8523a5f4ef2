"""Variants of the learned ranker scored on the dev splits only (docs/BENCHMARKS.md, §13
round seven). Not part of the product: a record of how those figures were made.

Step 1 dumps what recall's candidate path gives the ranker for every dev question of
LoCoMo (a store `engram_eval locomo PATH --reuse FILE` left) and for every dev query of
the paraphrase set; step 2 fits and scores the variants from the dump, without Django:

    .venv/bin/python manage.py shell -c "import runpy, sys; \
        sys.argv = ['x', 'dump', 'LOCOMO.json', 'REUSE.json', 'OUT.pkl']; \
        runpy.run_path('docs/bench/ranker_variants.py', run_name='__main__')"
    .venv/bin/python docs/bench/ranker_variants.py score OUT.pkl

LoCoMo variants are scored leaving one dev conversation out at a time (the paraphrase
dev queries always in the fit); the paraphrase figure leaves out a third of its queries
at a time. Held-out questions are never dumped.
"""

import pickle
import sys
from itertools import product
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the engine, from a checkout

DEPTH = 20  # recall's top 20, as engram_eval asks: 3 x 20 dense and keyword candidates


def dump(locomo_path: str, reuse: str, out: str) -> None:
    from memories.evaluation import locomo, paraphrases
    from memories.evaluation.runner import load_or_reuse, locomo_username, store_texts
    from memories.models import Memory
    from memories.services.recall import candidate_features

    rows = []
    for conversation, turn_format in product(locomo.load(Path(locomo_path)),
                                             locomo.TURN_FORMATS):
        if conversation.split != "dev":
            continue
        loaded = load_or_reuse(
            conversation, username=locomo_username(conversation.sample_id, turn_format),
            reuse=Path(reuse), turn_format=turn_format)
        sessions = dict(Memory.objects.filter(owner=loaded.owner)
                        .values_list("pk", "session_id"))
        for question in conversation.questions:
            if question.category not in (1, 2, 3, 4) or not question.evidence:
                continue
            ids, features = candidate_features(owner=loaded.owner, query=question.question,
                                               limit=DEPTH, now=conversation.asked_at)
            rows.append({"set": "locomo", "group": conversation.sample_id,
                         "format": turn_format,
                         "category": question.category, "ids": ids, "x": features,
                         "evidence": [loaded.dia_map[d] for d in question.evidence],
                         "sessions": [sessions.get(i, "") for i in ids]})
    pairs, distractors = paraphrases.load(paraphrases.DEFAULT_PATH)
    owner, stored = store_texts([pair.memory for pair in pairs] + list(distractors),
                                username="ranker-variants", reuse=Path(reuse))
    for number, (pair, memory_id) in enumerate(zip(pairs, stored)):
        if pair.split != "dev":
            continue
        ids, features = candidate_features(owner=owner, query=pair.query, limit=DEPTH)
        rows.append({"set": "paraphrase", "group": number % 3, "category": 0, "ids": ids,
                     "x": features, "evidence": [memory_id], "sessions": [""] * len(ids)})
    Path(out).write_bytes(pickle.dumps(rows))


def labels(row) -> np.ndarray:
    evidence = set(row["evidence"])
    return np.array([1.0 if i in evidence else 0.0 for i in row["ids"]])


def fit_pointwise(sets, shares, l2=1.0) -> np.ndarray:
    """ranker.fit_weights (pointwise, an intercept per set: the ranker's fit before round
    eight), every question of a set weighing the same and each set its share; the weights
    only."""
    from memories.engine import ranker

    xs, ys, ws, gs = [], [], [], []
    for number, (rows, share) in enumerate(zip(sets, shares)):
        for row in rows:
            y = labels(row)
            xs.append(row["x"])
            ys.append(y)
            ws.append(np.full(len(y), share / (len(y) * len(rows))))
            gs.append(np.full(len(y), number))
    y, w = np.concatenate(ys), np.concatenate(ws)
    w *= len(y) / w.sum()
    return ranker.fit_weights(np.vstack(xs), y, w, l2=l2, groups=np.concatenate(gs))[1]


def fit_listwise(sets, shares, l2=1.0) -> np.ndarray:
    """ranker.fit (listwise, the ranker's own), every question of a set weighing the same
    and each set its share; the weights only."""
    from memories.engine import ranker

    scale = sum(len(rows) for rows in sets) / len(sets)  # the L2 penalty's weight per question
    questions, weights = [], []
    for rows, share in zip(sets, shares):
        questions += [(row["x"], labels(row)) for row in rows]
        weights += [scale * share / len(rows)] * len(rows)
    return np.asarray(ranker.fit(questions, weights, l2=l2).weights)


def with_coverage(rows, columns):
    """Each row with `columns` (indexes into the features) times the query's keyword
    coverage (its best candidate's keyword share) appended."""
    from memories.engine.ranker import FEATURES
    keyword = FEATURES.index("keyword")
    return [{**row, "x": np.column_stack([row["x"]] + [row["x"][:, c] * row["x"][:, keyword].max()
                                                       for c in columns])} for row in rows]


def order(row, w, cap=None) -> list:
    """Candidate ids best first; with `cap`, at most that many from one session until the
    rest are taken in order."""
    ranked = list(np.argsort(-(row["x"] @ w), kind="stable"))
    if cap is not None:
        count, first, later = {}, [], []
        for i in ranked:
            session = row["sessions"][i]
            if session and count.get(session, 0) >= cap:
                later.append(i)
            else:
                first.append(i)
                count[session] = count.get(session, 0) + 1
        ranked = first + later
    return [row["ids"][i] for i in ranked]


def recall_at_10(row, w, cap=None) -> float:
    top = set(order(row, w, cap)[:10])
    return sum(e in top for e in row["evidence"]) / len(row["evidence"])


def hit_at_1(row, w) -> float:
    return float(order(row, w)[0] in set(row["evidence"]))


def out_of_fold(dialogue, para, fit, shares, asked=None):
    """LoCoMo R@10 leaving one conversation out (of `asked`, by default the rows fitted
    on), paraphrase hit@1 leaving a third out."""
    asked = dialogue if asked is None else asked
    recalls = []
    for group in sorted({row["group"] for row in dialogue}):
        w = fit([[r for r in dialogue if r["group"] != group], para], shares)
        recalls += [recall_at_10(r, w) for r in asked if r["group"] == group]
    hits = []
    for group in range(3):
        w = fit([dialogue, [r for r in para if r["group"] != group]], shares)
        hits += [hit_at_1(r, w) for r in para if r["group"] == group]
    return np.mean(recalls), np.mean(hits)


def score(path: str) -> None:
    from memories.engine import ranker
    from memories.engine.ranker import FEATURES

    rows = pickle.loads(Path(path).read_bytes())
    both = [r for r in rows if r["set"] == "locomo"]
    dialogue = [r for r in both if r["format"] == "dated"]  # the variants below: dated turns
    plain = [r for r in both if r["format"] == "plain"]
    para = [r for r in rows if r["set"] == "paraphrase"]
    for name, fitted, fit in (("dated turns, pointwise", dialogue, fit_pointwise),
                              ("both turn formats, pointwise", both, fit_pointwise),
                              ("both turn formats, listwise", both, fit_listwise)):
        figures = [out_of_fold(fitted, para, fit, (1, 1), asked)
                   for asked in (dialogue, plain)]
        print(f"fitted on {name}: R@10 dated {figures[0][0]:.4f}, plain {figures[1][0]:.4f}"
              f"  hit@1 {figures[0][1]:.3f}")
    committed = np.asarray(ranker.load().weights)
    print(f"committed (in-sample): R@10 {np.mean([recall_at_10(r, committed) for r in dialogue]):.4f}"
          f"  hit@1 {np.mean([hit_at_1(r, committed) for r in para]):.3f}")
    for shares in ((1, 1), (2, 1), (4, 1), (8, 1), (1, 0.001)):
        r, h = out_of_fold(dialogue, para, fit_pointwise, shares)
        print(f"pointwise, LoCoMo:paraphrase {shares}: R@10 {r:.4f}  hit@1 {h:.3f}")
    w = fit_listwise([dialogue, para], (1, 1))
    r, _ = out_of_fold(dialogue, para, fit_listwise, (1, 1))
    print(f"listwise: R@10 {r:.4f}  hit@1 (in-sample) {np.mean([hit_at_1(p, w) for p in para]):.3f}")
    names = {"keyword_rank": "KR", "dense_rank": "DR", "keyword": "K", "cosine": "C"}
    for chosen in (["keyword_rank", "dense_rank"], ["keyword_rank", "dense_rank", "keyword",
                                                    "cosine"], ["cosine", "keyword"]):
        columns = [FEATURES.index(name) for name in chosen]
        r, h = out_of_fold(with_coverage(dialogue, columns), with_coverage(para, columns),
                           fit_pointwise, (1, 1))
        print(f"pointwise + {'/'.join(names[n] for n in chosen)} x coverage: "
              f"R@10 {r:.4f}  hit@1 {h:.3f}")
    for cap in (2, 3, 5):
        r = np.mean([recall_at_10(row, committed, cap) for row in dialogue])
        print(f"committed, at most {cap} a session in the top ten: R@10 {r:.4f}")


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(*sys.argv[2:5])
    else:
        score(sys.argv[2])
