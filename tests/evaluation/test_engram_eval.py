"""engram_eval: LoCoMo evidence recall and the paraphrase set, with their baselines."""

import json
import math
from collections import Counter
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memories.evaluation import locomo, metrics, paraphrases, runner
from memories.evaluation.bm25 import BM25, tokenize
from memories.models import Memory, MemoryLink

FIXTURE = Path(__file__).parent.parent / "fixtures" / "locomo_tiny.json"


# ------------------------------------------------------------------ metrics (pure)

def test_recall_at_k_is_the_share_of_evidence_in_the_top_k():
    ranked = ["a", "b", "c", "d"]
    assert metrics.recall_at_k(ranked, ["c", "x"], 2) == 0.0
    assert metrics.recall_at_k(ranked, ["c", "x"], 3) == 0.5
    assert metrics.recall_at_k(ranked, ["d", "a", "b"], 4) == 1.0
    # two evidence turns merged into one memory: both found when it is returned
    assert metrics.recall_at_k(ranked, ["b", "b"], 2) == 1.0
    with pytest.raises(ValueError):
        metrics.recall_at_k(ranked, [], 5)


def test_the_budget_check_counts_tokens_as_the_context_endpoint_does():
    from memories.engine.context import count_tokens

    text = "[8 May 2023] Caroline: I went to the LGBTQ support group yesterday."
    assert metrics.estimate_tokens(text) == count_tokens(text) > 0
    assert metrics.estimate_tokens("") == 0


def test_the_budget_takes_memories_in_order_and_stops_at_the_first_overflow():
    tokens = {"a": 200, "b": 250, "c": 100}.__getitem__
    assert metrics.fits_in_budget(["a", "b", "c"], ["b"], tokens, 500)        # 450
    assert metrics.fits_in_budget(["a", "b", "c"], ["a", "b"], tokens, 450)   # exactly full
    assert not metrics.fits_in_budget(["a", "b", "c"], ["c"], tokens, 500)    # 550: no skipping
    assert not metrics.fits_in_budget(["a", "b", "c"], ["a"], tokens, 199)
    assert not metrics.fits_in_budget(["a", "b"], ["z"], tokens, 500)         # never ranked


def test_hit_reciprocal_rank_and_rrf():
    ranked = list("abcdefghijk")
    assert metrics.hit_at_k(ranked, "e", 5) == 1.0 and metrics.hit_at_k(ranked, "f", 5) == 0.0
    assert metrics.reciprocal_rank(ranked, "c") == pytest.approx(1 / 3)
    assert metrics.reciprocal_rank(ranked, "k", 10) == 0.0  # rank 11
    # a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62
    assert metrics.rrf([["a", "b", "c"], ["c", "a"]], k=60) == ["a", "c", "b"]
    # c: 1/63 + 1/61 = 0.0322664 edges out b: 2/62 = 0.0322581
    assert metrics.rrf([["a", "b", "c"], ["c", "b"]], k=60, limit=2) == ["c", "b"]
    assert metrics.rrf([["a", "b"], ["b", "a"]]) == ["a", "b"]  # a tie: first seen first


# ------------------------------------------------------------------ BM25 (pure)

def test_tokenize_lowercases_drops_stopwords_and_stems():
    assert tokenize("The Running dogs' BARKING, and it's loud!") == ["run", "dog", "bark", "loud"]


def test_bm25_scores_a_toy_corpus_like_okapi_by_hand():
    index = BM25([("d1", "the cat sat"), ("d2", "cats and dogs"), ("d3", "dogs dogs dogs bark")])
    # avgdl = 8/3; idf(dog) = ln(1 + 1.5/2.5), idf(bark) = ln(1 + 2.5/1.5)
    idf_dog, idf_bark = math.log(1.6), math.log(1 + 2.5 / 1.5)
    norm_d3 = 1.2 * (0.25 + 0.75 * 4 / (8 / 3))
    norm_d2 = 1.2 * (0.25 + 0.75 * 2 / (8 / 3))
    d3 = idf_dog * 3 * 2.2 / (3 + norm_d3) + idf_bark * 2.2 / (1 + norm_d3)
    d2 = idf_dog * 2.2 / (1 + norm_d2)
    found = index.search("barking dog", 10)
    assert [doc for doc, _ in found] == ["d3", "d2"]  # d1 scores 0 and is left out
    assert [score for _, score in found] == pytest.approx([d3, d2])
    assert index.search("the and", 10) == []
    assert [doc for doc, _ in index.search("cat", 1)] == ["d1"]  # equal scores: corpus order


# ------------------------------------------------------------------ LoCoMo parsing (pure)

def test_evidence_defects_are_normalised():
    known = {"D8:6", "D9:17", "D9:1", "D4:4", "D11:26", "D30:5"}
    assert locomo.normalise_evidence(["D8:6; D9:17"], known) == (["D8:6", "D9:17"],
                                                                 Counter(split=1))
    assert locomo.normalise_evidence(["D9:1 D4:4 D9:1"], known)[0] == ["D9:1", "D4:4"]
    assert locomo.normalise_evidence(["D:11:26"], known) == (["D11:26"], Counter(reformatted=1))
    assert locomo.normalise_evidence(["D30:05"], known) == (["D30:5"], Counter(reformatted=1))
    assert locomo.normalise_evidence(["D", "D10:19", "D8:6"], known) == (
        ["D8:6"], Counter(dropped_malformed=1, dropped_unknown=1))
    assert locomo.normalise_evidence([], known) == ([], Counter())


def test_the_fixture_parses_with_dates_captions_and_every_defect_fixed():
    first, second = locomo.load(FIXTURE)
    assert first.evidence_fixes == Counter(split=2, reformatted=2, dropped_unknown=1,
                                           dropped_malformed=1)
    assert [q.evidence for q in first.questions] == [
        ["D1:3"], ["D1:3", "D2:4"], ["D2:1"], ["D3:1"], [], ["D1:6"], ["D1:6", "D2:1"]]
    assert locomo.parse_session_date("1:56 pm on 8 May, 2023") == datetime(
        2023, 5, 8, 13, 56, tzinfo=UTC)
    assert first.sessions[1][2].content == (
        "[8 May 2023] Ana: She is a beagle, very curious and loud. "
        "[shared a photo: a photo of a small beagle puppy on a red blanket]")
    assert second.sessions[2][0].date is None  # "spring 2024" does not parse: kept as text
    assert second.sessions[2][2].content == "[spring 2024] Dev: Did Mira like it?"
    assert len(first.turns) + len(second.turns) == 29


# ------------------------------------------------------------------ loading (database)

def test_each_turn_becomes_a_dated_episode_and_a_merged_repeat_maps_to_its_memory(db):
    conversation = locomo.load(FIXTURE)[0]
    loaded = runner.load_conversation(conversation, username="locomo-conv-t1")
    assert loaded.turns == 16 and loaded.created == 15
    assert loaded.merges == [("D1:7", "D1:4")]  # "See you soon!" said twice that day
    assert loaded.dia_map["D1:7"] == loaded.dia_map["D1:4"]
    assert len(set(loaded.dia_map.values())) == 15
    assert Memory.objects.filter(owner=loaded.owner).count() == 15

    memory = Memory.objects.get(pk=loaded.dia_map["D2:3"])
    assert memory.content.startswith("[15 May 2023] Ben: Two hours and five minutes")
    assert (memory.memory_type, memory.kind) == ("episodic", "episode")
    assert memory.metadata == {"dia_id": "D2:3", "session": 2}
    assert memory.session_id == "session_2"
    assert memory.valid_from == memory.created_at == datetime(2023, 5, 15, 10, 0,
                                                              tzinfo=UTC)
    # remember() linked it to the turn before it in its session, as it would for an agent
    assert MemoryLink.objects.filter(from_memory=memory,
                                     to_memory_id=loaded.dia_map["D2:2"]).exists()
    # the merged turn counts as found whenever its memory is returned
    ranked = [loaded.dia_map["D1:4"]]
    assert metrics.recall_at_k(ranked, [loaded.dia_map["D1:7"]], 1) == 1.0

    again = runner.load_conversation(conversation, username="locomo-conv-t1")
    assert Memory.objects.filter(owner=again.owner).count() == 15  # wiped, not doubled
    assert again.merges == [("D1:7", "D1:4")]


# ------------------------------------------------------------------ the command

def _run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("engram_eval", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_locomo_end_to_end_on_the_fixture(db):
    out, err = _run("locomo", str(FIXTURE), "--json")
    report = json.loads(out)
    assert "conv-t1: 16 turns -> 15 memories (1 merged)" in err
    assert (report["turns"], report["memories"], report["merged_turns"]) == (29, 28, 1)
    assert report["questions"] == 9 and report["skipped_without_evidence"] == 1
    assert report["evidence_fixes"] == {"split": 2, "reformatted": 2, "dropped_unknown": 1,
                                        "dropped_malformed": 1}
    assert [c["owner"] for c in report["conversations"]] == ["locomo-conv-t1",
                                                             "locomo-conv-t2"]
    assert set(report["methods"]) == {"recall", "bm25", "dense", "rrf"}
    for method in ("recall", "dense", "rrf"):
        groups = report["methods"][method]
        assert {name: g["n"] for name, g in groups.items()} == {
            "1": 3, "2": 2, "3": 0, "4": 4, "all": 9}
        assert groups["3"]["r@10"] is None
        # 15 memories per owner at most, so r@20 is 1.0 by construction; in a random order
        # the top 5 would hold a third of the evidence, a working ranking holds most of it
        assert groups["all"]["r@5"] >= 0.6
        assert groups["all"]["fit@500"] >= 0.6
    assert 0.5 <= report["methods"]["recall"]["all"]["r@5"] <= 1
    assert report["methods"]["bm25"]["4"]["r@20"] == 1.0
    assert report["timing"]["recall_mean_ms"] > 0 and report["timing"]["load_seconds"] > 0


def test_locomo_table_and_category_choice(db):
    out, _ = _run("locomo", str(FIXTURE), "--categories", "5", "--limit-conversations", "1")
    assert out.startswith("LoCoMo: 1 conversations, 16 turns (dated) -> 15 memories")
    assert "1 questions (0 without evidence skipped)" in out
    lines = out.splitlines()
    assert any(line.split()[1:5] == ["recall", "5", "adversarial", "1"] for line in lines)
    assert any(line.split()[1:4] == ["rrf", "all", "1"] for line in lines)
    assert "recall mean" in out
    with pytest.raises(CommandError):
        _run("locomo")
    with pytest.raises(CommandError):
        _run("locomo", str(FIXTURE), "--categories", "6")


# ------------------------------------------------------------------ paraphrases

def test_the_paraphrase_set_is_large_clean_and_worded_apart():
    pairs, distractors = paraphrases.load()
    assert len(pairs) >= 60 and len(distractors) >= 35
    assert paraphrases.problems(pairs, distractors) == []
    assert all(len(paraphrases.shared_content_words(m, q)) <= 1 for m, q, _ in pairs)


def test_the_paraphrase_check_catches_shared_words_and_repeats():
    assert paraphrases.shared_content_words("The router drops packets",
                                            "routers dropping out") == {"router", "drop"}
    found = paraphrases.problems([("The router drops packets", "routers dropping out"),
                                  ("Use ruff", "which linter")], ["use ruff"])
    assert len(found) == 2 and "shares ['drop', 'router']" in found[0]
    assert "repeated memory" in found[1]


def test_paraphrase_end_to_end_on_a_small_set(db, tmp_path):
    path = tmp_path / "set.jsonl"
    rows = [
        {"memory": "The office router hands out DHCP leases that expire every 10 minutes.",
         "query": "the wireless keeps cutting out"},
        {"memory": "Startup is slow because heavy modules are imported eagerly at boot.",
         "query": "why is the app so sluggish to open"},
        {"memory": "Production deploys go through the release pipeline with a canary stage.",
         "query": "how do I ship my change to customers"},
        {"memory": "The coffee machine on the third floor is descaled every Friday."},
        {"memory": "Hackathon week is in June; projects are demoed on Friday afternoon."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    report = json.loads(_run("paraphrase", str(path), "--json")[0])
    assert (report["pairs"], report["distractors"], report["memories"]) == (3, 2, 5)
    assert report["problems"] == [] and report["merged"] == []
    for method in ("recall", "dense", "rrf"):
        # 5 memories in all, so hit@5 is 1.0 by construction; a random order puts the
        # right one first a fifth of the time, a working ranking for 2 queries of 3
        assert report["methods"][method]["hit@1"] >= 2 / 3
    assert report["methods"]["recall"] == report["methods"]["dense"]
    table = _run("paraphrase", str(path))[0]
    assert "3 pairs + 2 distractors -> 5 memories" in table
    assert table.splitlines()[3].split()[0] == "recall"
