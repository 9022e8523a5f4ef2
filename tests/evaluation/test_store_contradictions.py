"""A labelled store of facts, stored and scanned: the open queue against the labels."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memories.evaluation import store_contradictions
from memories.models import Memory

STATEMENTS = [
    {"id": "s1", "project": "shop", "text": "The orders API listens on port 8080."},
    {"id": "s2", "project": "shop", "text": "Invoices are rendered as PDF files."},
    {"id": "s3", "project": "shop", "text": "The orders API listens on port 9090."},
    {"id": "s4", "project": "lab", "text": "The orders API listens on port 9090."},
    {"id": "s5", "project": "lab", "text": "Nightly backups are kept for two weeks."},
]


def _write(tmp_path, statements, labels, name="store"):
    store = tmp_path / f"{name}.jsonl"
    store.write_text("".join(json.dumps(s) + "\n" for s in statements), encoding="utf-8")
    (tmp_path / f"{name}_contradictions.jsonl").write_text(
        "".join(json.dumps(pair) + "\n" for pair in labels), encoding="utf-8")
    return store


@pytest.mark.django_db
def test_a_labelled_contradiction_in_the_queue_counts_as_found_and_other_projects_stay_apart(
        tmp_path):
    # s4 says what s1 contradicts, but in another project: no pair, so no false flag
    path = _write(tmp_path, STATEMENTS, [{"a": "s1", "b": "s3", "kind": "value"}])
    report = store_contradictions.evaluate(store_contradictions.load(path))
    assert (report["open"], report["true"], report["false"]) == (1, 1, 0)
    assert (report["precision"], report["recall"]) == (1.0, 1.0)
    assert report["memories"] == 5 and report["merged_contradictions"] == 0


@pytest.mark.django_db
def test_a_flag_without_a_label_is_false_and_a_label_never_flagged_is_missed(tmp_path):
    path = _write(tmp_path, STATEMENTS, [{"a": "s2", "b": "s5", "kind": "value"}])
    report = store_contradictions.evaluate(store_contradictions.load(path))
    assert (report["open"], report["true"], report["false"]) == (1, 0, 1)
    assert (report["precision"], report["recall"]) == (0.0, 0.0)


@pytest.mark.django_db
def test_a_statement_dedup_merges_is_counted_and_its_contradiction_reported_buried(tmp_path):
    statements = [*STATEMENTS[:3],
                  {"id": "s6", "project": "shop", "text": "The orders API listens on port 8080."}]
    path = _write(tmp_path, statements, [{"a": "s1", "b": "s6", "kind": "value"}])
    report = store_contradictions.evaluate(store_contradictions.load(path))
    assert report["merged"] == 1 and report["memories"] == 3
    assert report["merged_contradictions"] == 1 and report["recall"] == 0.0


@pytest.mark.parametrize("labels", [
    [{"a": "s1", "b": "s9", "kind": "value"}],  # no such statement
    [{"a": ["s1"], "b": "s3"}],  # not an id
    [{"a": "s1", "b": "s1"}],  # not a pair
])
def test_labels_that_name_no_pair_of_the_store_are_refused(tmp_path, labels):
    path = _write(tmp_path, STATEMENTS, labels)
    with pytest.raises(ValueError, match="store_contradictions.jsonl: not a pair of the store's ids"):
        store_contradictions.load(path)


@pytest.mark.parametrize("statements, message", [
    ([STATEMENTS[0], {"id": "s1", "project": "x", "text": "y"}], "ids repeat"),
    ([], "no statements"),
    ([{"id": "s1", "project": "shop", "text": "nul \x00 inside"}], "'s1' cannot be stored"),
    ([{"id": "s1", "project": "shop", "text": "   "}], "'s1' cannot be stored"),
    ([{"id": "s1", "project": "shop", "text": 7}], "needs id, project and text"),
])
def test_a_store_remember_would_refuse_is_refused_before_anything_is_stored(
        tmp_path, statements, message):
    with pytest.raises(ValueError, match=message):
        store_contradictions.load(_write(tmp_path, statements, []))


def test_a_line_that_is_no_json_is_named_by_its_file_and_line(tmp_path):
    path = _write(tmp_path, STATEMENTS, [])
    (tmp_path / "store_contradictions.jsonl").write_text('{"a": "s1"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"store_contradictions.jsonl:1: not JSON"):
        store_contradictions.load(path)
    path.write_bytes(b"\xff\xfe not text")
    with pytest.raises(ValueError, match="not UTF-8"):
        store_contradictions.load(path)
    path.write_text("[" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="store.jsonl:1: not JSON"):
        store_contradictions.load(path)


@pytest.mark.django_db
def test_the_command_reports_the_queue_and_refuses_a_broken_store_before_storing(tmp_path):
    path = _write(tmp_path, STATEMENTS, [{"a": "s1", "b": "s3", "kind": "value"}])
    out = StringIO()
    call_command("engram_eval", "store-contradictions", str(path), "--json", stdout=out)
    assert json.loads(out.getvalue())["recall"] == 1.0
    broken = _write(tmp_path, STATEMENTS, [{"a": "s1"}], name="broken")
    before = Memory.objects.count()
    with pytest.raises(CommandError, match="cannot read the store: .*broken_contradictions"):
        call_command("engram_eval", "store-contradictions", str(broken))
    assert Memory.objects.count() == before


def test_the_held_out_stores_flags_are_never_listed():
    with pytest.raises(CommandError, match="not for the held-out store"):
        call_command("engram_eval", "store-contradictions", "--show-flags")
    for path in store_contradictions.HELDOUT_PATHS:
        with pytest.raises(CommandError, match="not for the held-out store"):
            call_command("engram_eval", "store-contradictions", str(path), "--show-flags")


@pytest.mark.django_db
@pytest.mark.parametrize("path, precision, recall", [
    # dev: its false flags were read in issue 12's tenth round (0.444 / 0.400 before)
    (store_contradictions.DEV1_PATH, 0.70, 0.38),
    # dev, written on 2026-11-28 and scored before it was read: 0.667 / 0.400 (0.727 /
    # 0.400 after its false flags were read); the fourth likewise 0.700 / 0.350 (0.778 /
    # 0.350)
    (store_contradictions.DEV3_PATH, 0.70, 0.38),
    (store_contradictions.DEV4_PATH, 0.75, 0.33),
    # held out, figures only: 0.500 / 0.350 before the tenth round and after it
    (store_contradictions.HELDOUT11_PATH, 0.45, 0.30),
    # held out, written after the round: 0.600 / 0.150 on its rules and on the rules before;
    # 0.500 / 0.150 once a thing both statements name pinned a subject (2026-11-28), a
    # reading chosen on the dev pairs and stores that added one false flag here
    (store_contradictions.HELDOUT12_PATH, 0.45, 0.12),
])
def test_the_rules_hold_their_floors_on_a_shipped_store(path, precision, recall):
    report = store_contradictions.evaluate(store_contradictions.load(path))
    assert report["statements"] == 240 and report["labelled"] == 20
    assert report["precision"] >= precision and report["recall"] >= recall
