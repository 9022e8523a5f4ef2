"""LoCoMo recall with one split's conversations all stored under one owner, at several
shares of dense_query.COMMON_SHARE (docs/BENCHMARKS.md, §4 round eleven). Not part of
the product: a record of how those figures were made.

`engram_eval locomo` gives each conversation an owner of its own, so the speakers' names
are in half of each store. An owner who keeps many conversations has each name in a
smaller share of the store; this asks each conversation's questions of such a store:

    .venv/bin/python manage.py shell -c "import runpy, sys; \
        sys.argv = ['x', 'LOCOMO.json', 'dev', 'dated', 'STATE.json']; \
        runpy.run_path('docs/bench/locomo_one_owner.py', run_name='__main__')"

STATE.json records the stored turns' ids, so a second run asks the same store again.
"""

import json
import sys
from pathlib import Path

import numpy as np
from django.contrib.auth import get_user_model

from memories import selectors
from memories.engine import dense_query
from memories.evaluation import locomo
from memories.evaluation.locomo import turn_content
from memories.evaluation.runner import fresh_owner
from memories.models import Memory
from memories.services.recall import recall
from memories.services.remembering import NewMemory, remember_many

SHARES = (0.2, 0.1, 0.05, 1.01)  # 1.01: no word is that common, nothing is left out


def stored(conversations, username: str, turn_format: str, state: Path):
    """The owner of every conversation's turns, and per conversation its dia_id -> id."""
    owner = get_user_model().objects.filter(username=username).first()
    if owner is not None and state.exists():
        return owner, json.loads(state.read_text())
    owner, ids = fresh_owner(username), {}
    for conversation in conversations:
        ids[conversation.sample_id] = {}
        for number, turns in conversation.sessions.items():
            items = [NewMemory(content=turn_content(turn, turn_format), memory_type="episodic",
                               kind="episode", valid_from=turn.date,
                               session_id=f"{conversation.sample_id}-session_{number}")
                     for turn in turns]
            for turn, result in zip(turns, remember_many(owner=owner, items=items,
                                                         now=turns[0].date)):
                ids[conversation.sample_id][turn.dia_id] = str(result.memory.pk)
    state.write_text(json.dumps(ids))
    return owner, ids


def main(path: str, split: str, turn_format: str, state: str) -> None:
    conversations = [c for c in locomo.load(Path(path)) if c.split == split]
    owner, ids = stored(conversations, f"one-owner-{split}-{turn_format}", turn_format,
                        Path(state))
    print(f"{Memory.objects.filter(owner=owner).count()} memories")
    reader = selectors.Reader.of(owner)
    for share in SHARES:
        selectors.forget_common_terms()
        dense_query.COMMON_SHARE = share  # what recall reads
        terms = selectors.common_terms(reader, share=share, minimum=dense_query.COMMON_MINIMUM)
        found = {}
        for conversation in conversations:
            for question in conversation.questions:
                if question.category not in (1, 2, 3, 4) or not question.evidence:
                    continue
                top = {str(hit.memory.pk) for hit in recall(owner=owner, query=question.question)}
                evidence = [ids[conversation.sample_id][d] for d in question.evidence]
                found.setdefault(question.category, []).append(
                    sum(e in top for e in evidence) / len(evidence))
        every = [r for recalls in found.values() for r in recalls]
        print(f"share {share}: {len(terms)} common terms {sorted(terms)[:12]}; R@10 "
              + ", ".join(f"{c}: {np.mean(r):.3f}" for c, r in sorted(found.items()))
              + f"; all {np.mean(every):.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:5])
