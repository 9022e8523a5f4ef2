"""Dev and held-out splits of the retrieval sets, floors on the held-out splits, and the
ranker's training, which reads the dev splits only."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memories.engine import ranker
from memories.evaluation import locomo, paraphrases, runner
from memories.models import Memory

FIXTURES = Path(__file__).parent.parent / "fixtures"
HELDOUT = FIXTURES / "locomo_heldout.json"  # two conversations written for these tests
TINY = FIXTURES / "locomo_tiny.json"


def _run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("engram_eval", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _samples(count: int) -> list[dict]:
    return [{"sample_id": f"conv-{i}", "conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": f"hello {i}"}]},
        "qa": []} for i in range(count)]


def test_conversations_one_to_five_are_dev_and_the_rest_held_out(tmp_path):
    path = tmp_path / "seven.json"
    path.write_text(json.dumps(_samples(7)))
    assert [c.split for c in locomo.load(path)] == ["dev"] * 5 + ["heldout"] * 2


def test_a_sample_may_name_its_split_and_an_unknown_split_is_refused(tmp_path):
    assert {c.split for c in locomo.load(HELDOUT)} == {"heldout"}
    samples = _samples(1)
    samples[0]["split"] = "test"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(samples))
    with pytest.raises(ValueError, match="split must be one of dev, heldout"):
        locomo.load(path)


def test_every_paraphrase_query_has_a_split_and_each_split_has_half():
    pairs, _ = paraphrases.load()
    counts = {split: sum(p.split == split for p in pairs) for split in paraphrases.SPLITS}
    assert counts["dev"] + counts["heldout"] == len(pairs)
    assert abs(counts["dev"] - counts["heldout"]) <= 1


def test_recall_on_the_held_out_conversations_stays_above_its_floors(db):
    report = json.loads(_run("locomo", str(HELDOUT), "--split", "heldout", "--json")[0])
    assert set(report["splits"]) == {"heldout"}
    mine = report["splits"]["heldout"]["recall"]
    # measured 0.951 / 0.854 / 0.708 / 0.917 (docs/BENCHMARKS.md); floors close under.
    # R@5 was 0.889 before the neighbour, session and speaker features: a temporal and a
    # single-hop question of these 24 lost their evidence from the top five, multi-hop
    # ones gained (0.333 -> 0.625), while LoCoMo's held-out R@5 rose 0.596 -> 0.654.
    # On an AMD EPYC with AVX2 and no VNNI the commit that measured those measures 0.910
    # / 0.840 / 0.708 / 0.917: one single-hop question of 24 loses its evidence from the
    # top ten. ONNX Runtime picks its int8 kernels by instruction set, the likeliest cause.
    # The ranker refitted once the speakers' names left the embedded query (round eleven)
    # measures 0.910 / 0.812 / 0.708 / 0.917 on that machine: a temporal question's
    # evidence left the top five (the stores here are too small for names to be common).
    assert mine["all"]["r@10"] >= 0.90
    assert mine["all"]["r@5"] >= 0.79
    assert mine["1"]["r@10"] >= 0.70
    assert mine["all"]["fit@500"] >= 0.80
    assert mine["all"]["r@10"] > report["splits"]["heldout"]["bm25"]["all"]["r@10"]


def test_paraphrase_recall_on_the_held_out_queries_stays_above_its_floors(db):
    pairs, distractors = paraphrases.load()
    report = runner.evaluate_paraphrases(pairs, distractors)
    held_out = report["splits"]["heldout"]["recall"]
    # measured 0.606 / 0.849 / 0.735 with memories embedded glossed (0.606 / 0.879 /
    # 0.729 before; docs/BENCHMARKS.md); floors close under
    assert held_out["hit@1"] >= 0.57
    assert held_out["hit@5"] >= 0.81
    assert held_out["mrr@10"] >= 0.70


def test_paraphrase_recall_on_the_second_held_out_batch_stays_above_its_floors(db):
    pairs, distractors = paraphrases.load(paraphrases.DEFAULT_PATH.with_name(
        "paraphrases_heldout2.jsonl"))
    assert {pair.split for pair in pairs} == {"heldout"}
    report = runner.evaluate_paraphrases(pairs, distractors)
    held_out = report["methods"]["recall"]
    # never tuned on: 0.550 / 0.800 / 0.669 (dense alone 0.550 / 0.883 / 0.685); with
    # memories embedded glossed 0.583 / 0.817 / 0.693 (docs/BENCHMARKS.md); floors close
    # under
    assert held_out["hit@1"] >= 0.53
    assert held_out["hit@5"] >= 0.78
    assert held_out["mrr@10"] >= 0.65


@pytest.mark.parametrize("name, floors", [
    # dev batches, measured 0.500 / 0.757 / 0.615 and 0.514 / 0.714 / 0.608 before
    # memories were embedded glossed, 0.500 / 0.829 / 0.633 and 0.586 / 0.786 / 0.671 after
    ("paraphrases_dev2.jsonl", (0.47, 0.79, 0.61)),
    ("paraphrases_dev3.jsonl", (0.55, 0.75, 0.64)),
])
def test_paraphrase_recall_on_the_blind_dev_batches_stays_above_its_floors(db, name, floors):
    pairs, distractors = paraphrases.load(paraphrases.DEFAULT_PATH.with_name(name))
    assert {pair.split for pair in pairs} == {"dev"}
    mine = runner.evaluate_paraphrases(pairs, distractors)["methods"]["recall"]
    measured = (mine["hit@1"], mine["hit@5"], mine["mrr@10"])
    assert all(got >= floor for got, floor in zip(measured, floors, strict=True)), measured


def test_a_reused_store_is_asked_again_instead_of_stored_anew(db, tmp_path):
    reuse = tmp_path / "stored.json"
    first = json.loads(_run("locomo", str(TINY), "--json", "--reuse", str(reuse))[0])
    ids = set(Memory.objects.values_list("id", flat=True))
    second = json.loads(_run("locomo", str(TINY), "--json", "--reuse", str(reuse))[0])
    assert set(Memory.objects.values_list("id", flat=True)) == ids
    assert second["methods"] == first["methods"]
    assert [c["load_seconds"] for c in second["conversations"]] == [0.0, 0.0]


def test_a_reuse_file_an_older_version_wrote_is_stored_anew_not_misread(db, tmp_path):
    reuse = tmp_path / "stored.json"
    _run("locomo", str(TINY), "--json", "--reuse", str(reuse))
    known = json.loads(reuse.read_text())
    for entry in known.values():  # how the file recorded a store before it kept ids
        entry["dia_map"] = entry.pop("ids")
    reuse.write_text(json.dumps(known))
    ids = set(Memory.objects.values_list("id", flat=True))
    _run("locomo", str(TINY), "--json", "--reuse", str(reuse))
    assert ids.isdisjoint(Memory.objects.values_list("id", flat=True))
    assert all("ids" in entry for entry in json.loads(reuse.read_text()).values())


@pytest.mark.parametrize("benchmark", ["locomo", "paraphrase", "train-ranker"])
def test_a_file_that_is_no_reuse_file_is_refused_and_nothing_is_stored(db, tmp_path,
                                                                       benchmark):
    args = [] if benchmark == "paraphrase" else [str(TINY)]
    for written in ("not json", '["a list"]', '{"locomo-conv-t1": 3}'):
        reuse = tmp_path / "stored.json"
        reuse.write_text(written)
        with pytest.raises(CommandError, match="is not a reuse file"):
            _run(benchmark, *args, "--reuse", str(reuse))
        assert reuse.read_text() == written
    with pytest.raises(CommandError, match="its folder does not exist"):
        _run(benchmark, *args, "--reuse", str(tmp_path / "missing" / "stored.json"))
    assert not Memory.objects.exists()


def test_an_entry_mangled_by_hand_is_stored_anew_not_misread(db, tmp_path):
    reuse = tmp_path / "stored.json"
    _run("locomo", str(TINY), "--json", "--reuse", str(reuse))
    known = json.loads(reuse.read_text())
    for entry in known.values():
        entry["ids"] = dict.fromkeys(entry["ids"], "not-a-uuid")
    reuse.write_text(json.dumps(known))
    ids = set(Memory.objects.values_list("id", flat=True))
    report = json.loads(_run("locomo", str(TINY), "--json", "--reuse", str(reuse))[0])
    assert report["questions"] > 0
    assert ids.isdisjoint(Memory.objects.values_list("id", flat=True))


def test_a_fit_on_a_reused_store_is_repeatable_and_stores_nothing_anew(db, tmp_path):
    reuse = tmp_path / "stored.json"
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    _run("train-ranker", str(TINY), "--reuse", str(reuse), "--write", str(first))
    ids = set(Memory.objects.values_list("id", flat=True))
    assert Memory.objects.filter(owner__username="paraphrase-train").exists()
    _run("train-ranker", str(TINY), "--reuse", str(reuse), "--write", str(second))
    assert set(Memory.objects.values_list("id", flat=True)) == ids
    assert second.read_text() == first.read_text()


def test_a_paraphrase_run_on_a_reused_store_reports_the_same_and_stores_nothing_anew(
        db, tmp_path):
    path, reuse = tmp_path / "set.jsonl", tmp_path / "stored.json"
    repeated = "Production deploys go through the release pipeline with a canary stage."
    rows = [{"memory": "The office router hands out DHCP leases that expire every 10 "
                       "minutes.", "query": "the wireless keeps cutting out"},
            {"memory": repeated, "query": "how do I ship my change to customers"},
            {"memory": "The coffee machine on the third floor is descaled every Friday."},
            {"memory": repeated}]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    first = json.loads(_run("paraphrase", str(path), "--json", "--reuse", str(reuse))[0])
    ids = set(Memory.objects.values_list("id", flat=True))
    second = json.loads(_run("paraphrase", str(path), "--json", "--reuse", str(reuse))[0])
    assert set(Memory.objects.values_list("id", flat=True)) == ids and len(ids) == 3
    assert second["methods"] == first["methods"]
    assert second["memories"] == first["memories"] == 3
    # the repeated text was merged into the memory that holds it, and is reported so
    assert second["merged"] == first["merged"] == [{"memory": repeated, "into": repeated}]


def test_a_conversations_questions_are_asked_as_its_last_turn_was_said(tmp_path):
    conversation = locomo.load(TINY)[0]
    said = [turn.date for turn in conversation.turns if turn.date]
    assert said and conversation.asked_at == max(said) != min(said)
    path = tmp_path / "undated.json"
    undated = _samples(1)
    del undated[0]["conversation"]["session_1_date_time"]
    path.write_text(json.dumps(undated))
    assert locomo.load(path)[0].asked_at is None


def test_plain_turns_are_stored_without_their_date_which_stays_their_own(db):
    report = json.loads(_run("locomo", str(TINY), "--turns", "plain", "--json")[0])
    assert report["turn_format"] == "plain" and report["questions"] > 0
    stored = Memory.objects.filter(owner__username="locomo-plain-conv-t1")
    assert stored.filter(content="Ana: Hi Ben! I finally adopted a puppy named Biscuit "
                                 "last weekend.").exists()
    assert not stored.filter(content__startswith="[").exists()
    assert {m.valid_from.date().isoformat() for m in stored} >= {"2023-05-08"}
    dated = json.loads(_run("locomo", str(TINY), "--json")[0])
    assert dated["turn_format"] == "dated"
    assert Memory.objects.filter(owner__username="locomo-conv-t1",
                                 content__startswith="[8 May 2023] Ana: Hi Ben!").exists()
    stored_before = sorted(Memory.objects.values_list("id", "content"))
    with pytest.raises(CommandError, match="invalid choice: 'undated'"):
        _run("locomo", str(TINY), "--turns", "undated")
    assert sorted(Memory.objects.values_list("id", "content")) == stored_before


def test_the_ranker_is_fitted_on_both_turn_formats(db, tmp_path):
    err = _run("train-ranker", str(TINY), "--write", str(tmp_path / "ranker.json"))[1]
    assert "conv-t1 (dated):" in err and "conv-t1 (plain):" in err
    assert Memory.objects.filter(owner__username="locomo-plain-conv-t1").exists()


def test_the_ranker_is_fitted_on_dev_conversations_and_written_where_asked(db, tmp_path):
    written = tmp_path / "ranker.json"
    out, err = _run("train-ranker", str(TINY), "--write", str(written))
    assert "conv-t1 (dated):" in err and "fitted on the dev splits" in out
    assert all(name in out for name in ranker.FEATURES)
    coefficients = ranker.load(written)
    assert len(coefficients.weights) == len(ranker.FEATURES)
    with pytest.raises(CommandError, match="no dev conversation"):
        _run("train-ranker", str(HELDOUT))
