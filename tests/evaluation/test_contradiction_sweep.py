"""The contradiction sweep: a judge among nearest neighbours, as a store of facts has them."""

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from memories.engine.contradiction import JudgeVerdict
from memories.evaluation import contradictions

LINES = [
    {"id": "port", "split": "dev", "kind": "value", "contradicts": True,
     "a": "The orders API listens on port 8080.", "b": "Orders API port: 8081."},
    {"id": "port-2", "split": "dev", "kind": "value", "contradicts": True,
     "a": "The orders API listens on port 9090.", "b": "The orders API moved to port 7070."},
    {"id": "lunch", "split": "dev", "kind": "different_subject", "contradicts": False,
     "a": "The team has lunch at noon.", "b": "Lunch is served in the kitchen."},
]


def _write(tmp_path, rows):
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_a_statement_is_judged_against_its_nearest_others_never_its_own_pair(tmp_path):
    seen = []

    def judge(a, b):
        seen.append({a, b})
        return JudgeVerdict(contradicts="9090" in a + b, reason="", confidence=0.9)

    # statements 0-1 share line 0, 2-3 line 1, 4-5 line 2; 0's nearest is 1, then 2
    vectors = np.array([[1, 0, 0], [1, 0, 0], [0.9, 0.44, 0], [0, 1, 0], [0, 0, 1],
                        [0, 0, 1]], dtype=np.float32)
    report = contradictions.sweep([_write(tmp_path, LINES)], judge, lambda texts: vectors,
                                  statements=6, neighbours=1)
    texts = [t for row in LINES for t in (row["a"], row["b"])]
    assert {texts[0], texts[1]} not in seen  # the pair it was written in
    assert {texts[0], texts[2]} in seen
    assert report["pairs"] == len(seen) and report["statements"] == 6
    assert report["queued"] == sum("9090" in " ".join(pair) for pair in seen) >= 1
    assert all("9090" in item["a"] + item["b"] for item in report["shown"])


def test_a_statement_is_never_judged_against_itself_or_its_own_pair(tmp_path):
    seen = []

    def judge(a, b):
        seen.append((a, b))
        return JudgeVerdict(contradicts=True, reason="", confidence=0.9)

    vectors = np.eye(6, dtype=np.float32)
    report = contradictions.sweep([_write(tmp_path, LINES[:1])], judge, lambda t: vectors[:2],
                                  statements=2, neighbours=5)
    assert (report["pairs"], report["queued"], seen) == (0, 0, [])
    report = contradictions.sweep([_write(tmp_path, LINES)], judge, lambda t: vectors,
                                  statements=6, neighbours=10)
    assert report["pairs"] == 12 == len(seen)  # every pair of other lines, once
    assert all(a != b for a, b in seen)


def test_engram_eval_sweeps_with_the_local_model_and_the_rules(tmp_path):
    """A positive control: port 8080 and port 9090 are in other lines, nearest neighbours
    in the real model's space, and the rules queue them."""
    out = StringIO()
    call_command("engram_eval", "contradiction-sweep", str(_write(tmp_path, LINES)),
                 "--statements", "6", "--neighbours", "2", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["judge"] == "rules" and report["pairs"] >= 6
    assert any({item["a"], item["b"]} == {"The orders API listens on port 8080.",
                                          "The orders API listens on port 9090."}
               for item in report["shown"])
    assert not any("unch" in item["a"] + item["b"] for item in report["shown"])


def test_engram_eval_refuses_a_sweep_of_no_statements():
    with pytest.raises(CommandError, match="must be positive"):
        call_command("engram_eval", "contradiction-sweep", "--statements", "0")
