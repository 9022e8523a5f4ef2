"""The usage tracker against hand-labelled turns: how often its cited / ignored marking
agrees with a person's.

usage_turns.jsonl holds one injected memory and one turn a line:
    {"id", "split": "dev" | "heldout", "prompt", "memory", "reply",
     "tools": [{"tool_name", "tool_input"}], "label": "cited" | "ignored", "why"}
The turns were written and labelled by someone who had not seen the tracker; its
thresholds were then set on the "dev" split only.
"""
import json
from pathlib import Path

from engram_client.usage import Evidence, reflected

DEFAULT_PATH = Path(__file__).with_name("usage_turns.jsonl")
SPLITS = ("dev", "heldout")
LABELS = ("cited", "ignored")


def load(path: Path = DEFAULT_PATH) -> list[dict]:
    turns = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            turn = json.loads(line)
            if turn["label"] not in LABELS or turn.get("split", "dev") not in SPLITS:
                raise ValueError(f"label must be one of {LABELS}, split one of {SPLITS}")
            if not isinstance(turn["memory"], str) or not isinstance(turn["tools"], list):
                raise TypeError("memory must be text and tools a list")
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from exc
        turns.append(turn)
    return turns


def evaluate(path: Path = DEFAULT_PATH) -> dict:
    """Agreement, and precision / recall of `cited`, per split."""
    report = {"path": str(path), "splits": {}, "disagreements": []}
    for split in SPLITS:
        counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
        turns = [turn for turn in load(path) if turn.get("split", "dev") == split]
        for turn in turns:
            marked = reflected(turn["memory"], Evidence(turn.get("reply", ""), turn["tools"]))
            truth = turn["label"] == "cited"
            counts[("t" if marked == truth else "f") + ("p" if marked else "n")] += 1
            if marked != truth:
                report["disagreements"].append(
                    {"id": turn["id"], "split": split, "label": turn["label"]})
        n = len(turns)
        cited = counts["tp"] + counts["fp"]
        actual = counts["tp"] + counts["fn"]
        report["splits"][split] = {
            "turns": n,
            "agreement": round((counts["tp"] + counts["tn"]) / n, 3) if n else None,
            "precision": round(counts["tp"] / cited, 3) if cited else None,
            "recall": round(counts["tp"] / actual, 3) if actual else None,
        }
    return report
