"""LoCoMo recall measured as issue 12 measured it: every turn stored through the REST API
with its session, every question asked through `/search` (docs/BENCHMARKS.md, §4). Not
part of the product: a record of how those figures were made.

`engram_eval locomo` stores turns in process as episodes, each with its date as
`valid_from` and as its creation time, and asks each question at the conversation's
own date. An agent, or someone checking Engram from outside, posts a turn with what the
API asks for and nothing more, now, and searches now. This does that, in process through
DRF's test client (the same views, serializers and throttles), one owner a conversation:

    ENGRAM_RATE_MEMORIES=100000/min ENGRAM_RATE_SEARCH=100000/min \\
    .venv/bin/python manage.py shell -c "import runpy, sys; \\
        sys.argv = ['x', 'LOCOMO.json', 'heldout', 'plain', 'bare']; \\
        runpy.run_path('docs/bench/locomo_through_api.py', run_name='__main__')"

The third argument is the turn's text (`dated`: "[8 May 2023] Caroline: ...", `plain`:
"Caroline: ..."); the fourth says whether the turn's date is sent as `valid_from`
(`valid_from`) or not (`bare`). Everything else is the API's default: a semantic fact.
"""

import sys
import time
from collections import defaultdict
from pathlib import Path

from rest_framework.test import APIClient

from memories.evaluation import locomo, metrics
from memories.evaluation.runner import fresh_owner

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)


def stored(conversation, client, turn_format: str, dated: bool) -> dict[str, str]:
    """dia_id -> the id of the memory the API answered with (a repeat's is the first's)."""
    ids = {}
    for number, turns in conversation.sessions.items():
        for turn in turns:
            body = {"content": locomo.turn_content(turn, turn_format),
                    "session_id": f"{conversation.sample_id}-session_{number}"}
            if dated and turn.date:
                body["valid_from"] = turn.date.isoformat()
            answer = client.post("/api/v1/memories", body, format="json")
            if answer.status_code not in (200, 201):
                raise SystemExit(f"{turn.dia_id}: {answer.status_code} {answer.content[:300]}")
            ids[turn.dia_id] = answer.json()["memory"]["id"]
    return ids


def main(path: str, split: str, turn_format: str, dates: str) -> None:
    conversations = [c for c in locomo.load(Path(path)) if c.split == split]
    found = defaultdict(lambda: defaultdict(list))  # category -> k -> recall of each question
    for conversation in conversations:
        owner = fresh_owner(f"api-{conversation.sample_id}-{turn_format}-{dates}")
        client = APIClient(HTTP_HOST="localhost")
        client.force_authenticate(owner)
        started = time.monotonic()
        ids = stored(conversation, client, turn_format, dates == "valid_from")
        stored_in = time.monotonic() - started
        asked = 0
        for question in conversation.questions:
            if question.category not in CATEGORIES or not question.evidence:
                continue
            answer = client.post("/api/v1/memories/search",
                                 {"query": question.question, "limit": max(KS)},
                                 format="json")
            ranked = [hit["memory"]["id"] for hit in answer.json()["results"]]
            evidence = [ids[dia_id] for dia_id in question.evidence]
            for k in KS:
                found[question.category][k].append(metrics.recall_at_k(ranked, evidence, k))
            asked += 1
        print(f"{conversation.sample_id}: {len(ids)} turns stored in {stored_in:.0f} s, "
              f"{asked} questions", flush=True)
    every = {k: [r for category in found.values() for r in category[k]] for k in KS}
    print(f"{split}, {turn_format} turns, {dates}: " + ", ".join(
        f"{CATEGORIES[c]} R@10 {metrics.mean(found[c][10]):.3f}" for c in sorted(found))
        + "; all " + ", ".join(f"R@{k} {metrics.mean(every[k]):.3f}" for k in KS)
        + f" ({len(every[10])} questions)")


if __name__ == "__main__":
    main(*sys.argv[1:5])
