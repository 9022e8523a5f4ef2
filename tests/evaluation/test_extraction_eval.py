"""The extraction scorer on a tiny hand-computed set, and the set Engram ships."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from memories.engine import rules_extractor
from memories.engine.extraction import ExtractedMemory, Extraction, GateDecision
from memories.evaluation import extraction


class CannedExtractor:
    """Says yes to every chunk but the one named, and returns canned memories."""

    def __init__(self, replies: dict[str, list[str]], rejects: str = ""):
        self.replies, self.rejects = replies, rejects

    def gate(self, text):
        return GateDecision(worth_remembering=not (self.rejects and self.rejects in text))

    def extract(self, text):
        contents = next((c for marker, c in self.replies.items() if marker in text), [])
        return Extraction(memories=[ExtractedMemory(content=c) for c in contents])


def _write(tmp_path, chunks) -> str:
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in chunks) + "\n", encoding="utf-8")
    return path


TINY = [
    {"id": "db", "messages": [["user", "DB chunk: we use Postgres 16 on port 5433."]],
     "must_remember": [{"keywords": ["postgres", "16"]}, {"keywords": ["5433"]}],
     "must_not": []},
    {"id": "queue", "messages": [["user", "QUEUE chunk: maybe Celery? no, Huey."]],
     "must_remember": [{"keywords": ["Huey"]}],
     "must_not": [{"keywords": ["maybe"]}]},
    {"id": "chatter", "messages": [["user", "CHATTER chunk: thanks!"]],
     "must_remember": [], "must_not": []},
    {"id": "hello", "messages": [["system", "You are helpful."], ["user", "HELLO chunk"]],
     "must_remember": [], "must_not": []},
]


def test_it_scores_recall_precision_and_the_gate_as_computed_by_hand(tmp_path):
    extractor = CannedExtractor({
        "DB chunk": ["The database is Postgres 16.", "Redis is not used."],  # 1 of 2 right
        "QUEUE chunk": ["Maybe Huey would do."],  # matches Huey, but also a must_not
        "CHATTER chunk": ["The user said thanks."],  # noise let through: a false positive
    }, rejects="HELLO chunk")
    report = extraction.evaluate(_write(tmp_path, TINY), extractor)
    # recall: "postgres 16" found, "5433" missed, "Huey" found -> 2 / 3
    assert report["recall"] == pytest.approx(2 / 3)
    # precision: 4 extracted, only "The database is Postgres 16." counts -> 1 / 4
    assert report["precision"] == pytest.approx(1 / 4)
    assert (report["chunks"], report["noise_chunks"], report["must_not_hits"]) == (4, 2, 1)
    # gate: both content chunks passed, one of the two noise chunks turned away
    assert report["gate_noise_accuracy"] == 0.5
    assert report["gate_content_accuracy"] == 1.0
    assert report["gate_accuracy"] == 0.75
    rows = {row["id"]: row for row in report["per_chunk"]}
    assert rows["db"]["missed"] == [["5433"]]
    assert rows["queue"]["false_positives"] == ["Maybe Huey would do."]
    assert rows["hello"]["gate"] is False and rows["hello"]["precision"] is None


def test_each_split_is_scored_on_its_own_chunks(tmp_path):
    chunks = [{**TINY[0], "split": "dev"}, {**TINY[1], "split": "heldout"}, TINY[2]]
    extractor = CannedExtractor({"DB chunk": ["Postgres 16 on 5433."],
                                 "QUEUE chunk": ["Celery was dropped."]})
    report = extraction.evaluate(_write(tmp_path, chunks), extractor)
    dev, heldout = report["splits"]["dev"], report["splits"]["heldout"]
    # dev: "db" (both found, 1 of 1 right) and "chatter" (no split given: dev, gate let it by)
    assert (dev["chunks"], dev["recall"], dev["precision"]) == (2, 1.0, 1.0)
    assert dev["gate_noise_accuracy"] == 0.0
    # held-out: "Huey" missed, the one memory kept is wrong
    assert (heldout["chunks"], heldout["recall"], heldout["precision"]) == (1, 0.0, 0.0)
    assert report["recall"] == pytest.approx(2 / 3)
    assert [row["split"] for row in report["per_chunk"]] == ["dev", "heldout", "dev"]


def test_a_split_outside_dev_and_heldout_is_refused(tmp_path):
    with pytest.raises(ValueError, match="set.jsonl:1"):
        extraction.load(_write(tmp_path, [{**TINY[0], "split": "train"}]))


def test_memories_are_not_extracted_when_the_gate_says_no(tmp_path):
    extractor = CannedExtractor({"DB chunk": ["Postgres 16 on 5433."]}, rejects="DB chunk")
    report = extraction.evaluate(_write(tmp_path, TINY[:1]), extractor)
    assert (report["recall"], report["extracted"], report["precision"]) == (0.0, 0, None)


def test_keywords_match_case_insensitively_and_all_must_be_present():
    assert extraction.matches("We run POSTGRES 16", ["postgres", "16"])
    assert not extraction.matches("We run Postgres 15", ["postgres", "16"])


def test_a_malformed_line_is_reported_with_its_number(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "messages": []}\n{"id": "b"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        extraction.load(path)


def test_the_shipped_set_loads_with_enough_chunks_and_noise_in_both_splits():
    chunks = extraction.load()
    for split, least in (("dev", 160), ("heldout", 60)):
        in_split = [c for c in chunks if c.split == split]
        assert len(in_split) >= least
        assert sum(1 for c in in_split if c.is_noise) >= 10
    assert len({c.id for c in chunks}) == len(chunks)
    for chunk in chunks:
        assert chunk.messages and all(role in {"user", "assistant", "system", "tool"}
                                      for role, _ in chunk.messages)
        assert all(keywords for keywords in chunk.must_remember + chunk.must_not)


def test_the_rules_extractor_holds_its_measured_figures_on_the_held_out_split():
    """Floors just under the fresh held-out batch's figures (recall 0.580, 29 of 50;
    precision 0.553, 26 of 47 kept): losing two annotated memories, or two correct ones,
    fails."""
    heldout = extraction.evaluate(extraction.DEFAULT_PATH, rules_extractor)["splits"]["heldout"]
    assert heldout["recall"] >= 0.54
    assert heldout["precision"] >= 0.51


def test_the_rules_extractor_holds_its_figures_on_the_dev_split_it_was_tuned_on():
    dev = extraction.evaluate(extraction.DEFAULT_PATH, rules_extractor)["splits"]["dev"]
    assert dev["recall"] >= 0.95  # 0.970, 128 of 132
    assert dev["precision"] >= 0.89  # 0.908, 118 of 130


def test_engram_eval_extraction_prints_a_table(tmp_path):
    out = StringIO()
    chunks = [*TINY[:3], {**TINY[3], "split": "heldout"}]
    call_command("engram_eval", "extraction", str(_write(tmp_path, chunks)), stdout=out)
    text = out.getvalue()
    assert "Extraction: 4 chunks (2 with nothing to keep), 3 annotated memories" in text
    assert "recall precision" in text
    rows = [line.split() for line in text.splitlines() if line[:1] not in ("", " ")]
    chunks_by_split = {row[0]: row[1] for row in rows if row[0] in ("dev", "heldout", "all")}
    assert chunks_by_split == {"dev": "3", "heldout": "1", "all": "4"}


def test_engram_eval_extraction_prints_json_on_request():
    out = StringIO()
    call_command("engram_eval", "extraction", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["extractor"] == "rules" and report["chunks"] >= 220
    assert set(report["splits"]) == {"dev", "heldout"}
