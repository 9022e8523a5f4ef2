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


def test_the_shipped_set_loads_with_enough_chunks_and_noise():
    chunks = extraction.load()
    assert len(chunks) >= 45
    assert sum(1 for c in chunks if c.is_noise) >= 10
    assert len({c.id for c in chunks}) == len(chunks)
    for chunk in chunks:
        assert chunk.messages and all(role in {"user", "assistant", "system", "tool"}
                                      for role, _ in chunk.messages)
        assert all(keywords for keywords in chunk.must_remember + chunk.must_not)


def test_the_rules_extractor_meets_its_target_on_the_shipped_set():
    report = extraction.evaluate(extraction.DEFAULT_PATH, rules_extractor)
    assert report["recall"] >= 0.80
    assert report["precision"] >= 0.70


def test_engram_eval_extraction_prints_a_table(tmp_path):
    out = StringIO()
    call_command("engram_eval", "extraction", str(_write(tmp_path, TINY)), stdout=out)
    text = out.getvalue()
    assert "Extraction: 4 chunks (2 with nothing to keep), 3 annotated memories" in text
    assert "recall precision" in text


def test_engram_eval_extraction_prints_json_on_request():
    out = StringIO()
    call_command("engram_eval", "extraction", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["extractor"] == "rules" and report["chunks"] >= 45
