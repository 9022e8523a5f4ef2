"""The contradiction scorer on a tiny hand-computed set, and the set Engram ships."""

import json
import re
from collections import Counter
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memories.engine.contradiction import JudgeVerdict, rules_verdict
from memories.evaluation import contradictions

TINY = [
    {"id": "port", "split": "dev", "kind": "value", "contradicts": True,
     "a": "PORT 8080", "b": "PORT 9090"},
    {"id": "db", "split": "dev", "kind": "choice", "contradicts": True,
     "a": "DB mysql", "b": "DB postgres"},
    {"id": "owner", "split": "heldout", "kind": "owner", "contradicts": True,
     "a": "OWNER alice", "b": "OWNER bob"},
    {"id": "servers", "split": "dev", "kind": "different_subject", "contradicts": False,
     "a": "SERVERS api", "b": "SERVERS admin"},
    {"id": "redis", "split": "heldout", "kind": "paraphrase", "contradicts": False,
     "a": "REDIS sessions", "b": "REDIS stores sessions"},
]


def canned(flagged: set[str], confidence: float = 0.9):
    """A judge that says "contradicts" for the pairs whose marker is in `flagged`."""
    def judge(a, b):
        marker = a.split()[0]
        return JudgeVerdict(contradicts=marker in flagged, reason=marker,
                            confidence=confidence)
    return judge


def _write(tmp_path, rows, name="set.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_it_scores_precision_and_recall_as_computed_by_hand(tmp_path):
    # flags port (right), owner (right) and servers (wrong); misses db
    report = contradictions.evaluate(_write(tmp_path, TINY),
                                     canned({"PORT", "OWNER", "SERVERS"}))
    assert (report["tp"], report["fp"], report["fn"], report["tn"]) == (2, 1, 1, 1)
    assert report["precision"] == pytest.approx(2 / 3)
    assert report["recall"] == pytest.approx(2 / 3)
    assert report["accuracy"] == pytest.approx(3 / 5)
    assert (report["pairs"], report["contradictory"]) == (5, 3)
    assert [m["id"] for m in report["misses"]] == ["db", "servers"]


def test_an_unsure_verdict_is_counted_apart_not_as_flagged(tmp_path):
    """Only a confident verdict reaches the queue a person works through."""
    report = contradictions.evaluate(_write(tmp_path, TINY),
                                     canned({"PORT", "OWNER", "SERVERS"}, confidence=0.6))
    assert (report["tp"], report["fp"], report["unsure"]) == (0, 0, 3)
    sure = contradictions.evaluate(_write(tmp_path, TINY), canned({"PORT"}, confidence=0.75))
    assert (sure["tp"], sure["unsure"]) == (1, 0)


def test_it_breaks_the_figures_down_per_split_and_per_kind(tmp_path):
    report = contradictions.evaluate(_write(tmp_path, TINY),
                                     canned({"PORT", "OWNER", "SERVERS"}))
    dev, heldout = report["per_split"]["dev"], report["per_split"]["heldout"]
    assert (dev["pairs"], dev["recall"], dev["precision"]) == (3, 0.5, 0.5)
    assert (heldout["pairs"], heldout["recall"], heldout["precision"]) == (2, 1.0, 1.0)
    assert report["per_kind"]["choice"]["recall"] == 0.0
    assert report["per_kind"]["paraphrase"]["accuracy"] == 1.0
    assert report["per_kind"]["paraphrase"]["recall"] is None  # nothing to find


def test_a_pair_without_a_label_is_refused_with_its_line(tmp_path):
    path = _write(tmp_path, [TINY[0], {"id": "x", "a": "a", "b": "b", "contradicts": "yes"}])
    with pytest.raises(ValueError, match=r"set.jsonl:2"):
        contradictions.load(path)


def test_recorded_replies_are_replayed_through_the_strict_parser_in_either_order(tmp_path):
    path = _write(tmp_path, [
        {"note": "hand-written for the test"},
        {"a": "PORT 8080", "b": "PORT 9090",
         "reply": '```json\n{"contradicts": true, "reason": "r", "confidence": 0.9}\n```'},
        {"a": "DB mysql", "b": "DB postgres", "reply": '{"contradicts": "no"}'},
    ], name="replies.jsonl")
    judge = contradictions.RecordedJudge(path)

    assert judge.note == "hand-written for the test"
    assert judge("PORT 9090", "PORT 8080").contradicts is True
    with pytest.raises(ValueError, match="unusable"):
        judge("DB mysql", "DB postgres")
    with pytest.raises(KeyError, match="no recorded reply"):
        judge("OWNER alice", "OWNER bob")


def test_the_shipped_dev_set_has_enough_pairs_the_batches_half_of_them_contradictory():
    pairs = [pair for path in contradictions.DEV_PATHS for pair in contradictions.load(path)]
    assert len(pairs) >= 1570 and {p.split for p in pairs} == {"dev"}
    batches = [pair for path in contradictions.DEV_PATHS if path != contradictions.DEV_AGREEING_PATH
               for pair in contradictions.load(path)]
    assert sum(p.contradicts for p in batches) == len(batches) / 2
    # the agreeing pairs are mostly what a store's neighbours are: statements that agree
    agreeing = contradictions.load(contradictions.DEV_AGREEING_PATH)
    assert sum(not p.contradicts for p in agreeing) == 3 * sum(p.contradicts for p in agreeing)
    assert len({p.id for p in pairs}) == len(pairs)
    # every kind is either a kind of contradiction or a kind of look-alike, never both
    labels = Counter((p.kind, p.contradicts) for p in pairs)
    assert len({kind for kind, _ in labels}) == len(labels)


def test_the_default_paths_are_the_dev_files_then_the_held_out_ones():
    assert contradictions.DEFAULT_PATHS == (*contradictions.DEV_PATHS,
                                            *contradictions.HELDOUT_PATHS)
    assert not set(contradictions.HELDOUT_PATHS) & set(contradictions.DEV_PATHS)
    assert [p.name for p in contradictions.HELDOUT_PATHS] == [
        "contradictions_heldout7.jsonl", "contradictions_heldout8.jsonl",
        "contradictions_heldout9.jsonl", "contradictions_heldout10.jsonl",
        "contradictions_heldout11.jsonl", "contradictions_heldout12.jsonl"]


def test_the_available_paths_leave_out_a_held_out_file_only_while_it_is_unwritten(
        tmp_path, monkeypatch):
    dev = _write(tmp_path, TINY[:1], name="dev.jsonl")
    heldout = tmp_path / "heldout.jsonl"
    monkeypatch.setattr(contradictions, "DEFAULT_PATHS", (dev, heldout))
    monkeypatch.setattr(contradictions, "HELDOUT_PATHS", (heldout,))
    assert contradictions.available_paths() == (dev,)
    _write(tmp_path, TINY[2:3], name="heldout.jsonl")
    assert contradictions.available_paths() == (dev, heldout)


def test_the_rules_keep_their_figures_on_the_dev_pairs_they_were_tuned_on():
    """Tuned on these pairs (the six earlier held-out batches and five batches written
    while the rules were reworked among them). When the fourth held-out batch was
    folded in, before its misses were read: precision 0.989, recall 0.789 (1.000 / 0.580
    on the third held-out batch alone, 0.765 / 0.260 on the fourth). After issue 12's
    fifth round studied them: precision 1.000, recall 0.861 (1.000 / 0.660 on the third,
    1.000 / 0.760 on the fourth). When the fifth was folded in: 0.995 / 0.810 (0.900 /
    0.360 on the fifth); after the sixth round studied it: 0.995 / 0.835 (0.935 / 0.580
    on the fifth, whose two false flags are updates both true). The seventh round studied
    the sixth batch (0.833 / 0.300 before): 0.995 / 0.837 on the other 992, 0.931 / 0.540
    on the sixth, 0.991 / 0.810 on those 1,092. The tenth round added 480 pairs that
    mostly agree, as a store's neighbours do (0.897 / 0.508 on them, unchanged by its
    readings): 0.979 / 0.755 on all 1,572. 200 pairs written blind in the style of the
    twelfth held-out batch were folded in before any rule read them (0.894 / 0.420 on
    them): 0.977 / 0.718 on all 1,772. Reading a thing both name as their subject, and
    moves off one thing onto another as flows: 0.983 / 0.734 (0.942 / 0.490 on the 200); a
    language tag as a locale and a thing that feeds another as a flow: 0.983 / 0.736 (0.944 /
    0.510); one size in decimal and binary units, and a state "at first" or before an event
    as history: 0.988 / 0.736 (1.000 / 0.510); a log level in small letters beside its
    kind: 0.988 / 0.738 (1.000 / 0.520); a plain word both end on as what the thing is:
    0.988 / 0.739. A phrase one side adds, more members of closed categories, holders and
    sources said in more ways: 0.988 / 0.769 (1.000 / 0.590 on the 200). Two blind batches
    of the kinds held-out scores worst on were folded in (1.000 / 0.140 and 0.941 / 0.320
    on them, before any rule read them; 1.000 / 0.140 and 1.000 / 0.560 once studied):
    0.989 / 0.721 on all 1,972. Two more blind batches in the issue's style were folded in
    (1.000 / 0.640 and 1.000 / 0.460 before any rule read them): reading crons with their
    zone, image tags, a product by its category's name and pages as one measure, 0.990 /
    0.711 on all 2,172 (1.000 / 0.590 on the two). Two more in the issue's style (0.905 /
    0.380 and 0.800 / 0.400 before any rule read them), their seven false flags taken out:
    0.990 / 0.682 on all 2,372 (1.000 / 0.495 on the four). Two more in the issue's style
    (1.000 / 0.340 and 0.840 / 0.420 before any rule read them): products of several words
    and what runs them, ranked holders of a role, a primary where it is said to be, history
    until an event and two quantities apart, 0.991 / 0.665 on all 2,572 (1.000 / 0.480 on
    the six). Two more in the issue's style (1.000 / 0.180 and 0.571 / 0.080 before any
    rule read them), with more readings from all eight (category jobs, switches, branches,
    style scales, settings as configuration): 0.990 / 0.644 on all 2,772 (0.994 / 0.435 on
    the eight). Two more in the issue's style (0.800 / 0.160 and 1.000 / 0.240 before any
    rule read them; 0.889 / 0.160 and 1.000 / 0.200 on the rules this round began with),
    their two false flags taken out: 0.991 / 0.615 on all 2,972 (0.995 / 0.398 on the
    ten); at the round's end 0.992 / 0.616 (1.000 / 0.400). Two more blind batches
    weighted to the kinds held out worst (always/never, negation, preference, owner,
    direction: 1.000 / 0.260 and 0.923 / 0.240 before any rule read them), with needs
    read in both directions, rules for every case against their denials and states that
    undo a participle: 0.991 / 0.605 on all 3,172 (0.969 / 0.310 on the two). Two more
    blind batches in the issue's style, written to measure those readings on data they
    never saw (0.871 / 0.270 at first scoring, against 0.867 / 0.260 for the rules the
    round began with), with history before a named year and a place swapped with its
    value: 0.990 / 0.587 on all 3,372 (0.964 / 0.270 on the two). Two more blind batches
    (0.920 / 0.230 at first scoring, against 0.917 / 0.220 for the rules when 14m and 14n
    arrived), with a state at an event in the past tense as history: 0.990 / 0.568 on all
    3,572 (0.958 / 0.230 on the two); with a version beside one identifier both name,
    0.990 / 0.570 (0.960 / 0.240). A measure narrowed on one side only and exceptions to a
    rule for every case: 0.990 / 0.591 on those 3,572. Two more blind batches (0.889 /
    0.400 at first scoring, the same on the rules of that session's start) folded in,
    with history, years and a preference's scope kept out: 0.988 / 0.582 on all 3,772
    (0.957 / 0.440 on the two). Two more blind batches, written to measure that session's
    readings (0.906 / 0.290 at first scoring, 0.897 / 0.260 on the session's first rules),
    folded in with objectless denials, "no exceptions", years as months and a thing moved
    off: 0.988 / 0.571 on all 3,972 (0.968 / 0.300 on the two). Two more blind batches,
    scored once and folded in unread by any rule (0.857 / 0.240): 0.985 / 0.554 on all
    4,172.
    The floors sit just under, so a regression fails."""
    report = contradictions.evaluate(contradictions.DEV_PATHS, rules_verdict)
    assert report["pairs"] == 4172 and report["per_split"].keys() == {"dev"}
    assert report["precision"] >= 0.983 and report["recall"] >= 0.55
    balanced = contradictions.evaluate(
        [p for p in contradictions.DEV_PATHS if p != contradictions.DEV_AGREEING_PATH],
        rules_verdict)
    assert balanced["precision"] >= 0.985 and balanced["recall"] >= 0.54
    agreeing = contradictions.evaluate(contradictions.DEV_AGREEING_PATH, rules_verdict)
    assert agreeing["precision"] >= 0.94 and agreeing["recall"] >= 0.68
    third = contradictions.evaluate((contradictions.DEV_HELDOUT3_PATH,), rules_verdict)
    assert third["precision"] >= 0.99 and third["recall"] >= 0.65
    fourth = contradictions.evaluate((contradictions.DEV_HELDOUT4_PATH,), rules_verdict)
    assert fourth["precision"] >= 0.99 and fourth["recall"] >= 0.75
    fifth = contradictions.evaluate((contradictions.DEV_HELDOUT5_PATH,), rules_verdict)
    assert fifth["precision"] >= 0.93 and fifth["recall"] >= 0.67
    sixth = contradictions.evaluate((contradictions.DEV_HELDOUT6_PATH,), rules_verdict)
    assert sixth["precision"] >= 0.92 and sixth["recall"] >= 0.52
    issue_style = contradictions.evaluate((contradictions.DEV_ISSUE13_PATH,), rules_verdict)
    assert issue_style["precision"] >= 0.98 and issue_style["recall"] >= 0.65
    fresh = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS, rules_verdict)
    assert fresh["precision"] >= 0.975 and fresh["recall"] >= 0.38
    # the pairs each floor held before the round added harder batches to them
    first_four = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS[:4], rules_verdict)
    assert first_four["precision"] >= 0.99 and first_four["recall"] >= 0.58
    first_ten = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS[:10], rules_verdict)
    assert first_ten["precision"] >= 0.99 and first_ten["recall"] >= 0.46
    kinds_held_out_worst = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS[10:12],
                                                   rules_verdict)
    assert (kinds_held_out_worst["precision"] >= 0.96
            and kinds_held_out_worst["recall"] >= 0.335)
    written_to_measure = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS[12:14],
                                                 rules_verdict)
    assert written_to_measure["precision"] >= 0.96 and written_to_measure["recall"] >= 0.32
    mixed = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS[14:16], rules_verdict)
    assert mixed["precision"] >= 0.95 and mixed["recall"] >= 0.26
    studied = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS[16:18], rules_verdict)
    assert studied["precision"] >= 0.94 and studied["recall"] >= 0.44
    measuring = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS[18:20], rules_verdict)
    assert measuring["precision"] >= 0.95 and measuring["recall"] >= 0.29
    unread = contradictions.evaluate(contradictions.DEV_ISSUE14_PATHS[20:], rules_verdict)
    assert unread["precision"] >= 0.84 and unread["recall"] >= 0.23
    earlier = contradictions.evaluate(
        [p for p in contradictions.DEV_PATHS if p not in contradictions.DEV_ISSUE14_PATHS[4:]],
        rules_verdict)
    assert earlier["precision"] >= 0.988 and earlier["recall"] >= 0.73
    always = contradictions.evaluate((contradictions.DEV_ALWAYS_NEGATION_PATH,), rules_verdict)
    assert always["precision"] >= 0.99 and always["recall"] >= 0.31
    owners = contradictions.evaluate((contradictions.DEV_PREFERENCE_OWNER_DIRECTION_PATH,),
                                     rules_verdict)
    assert owners["precision"] >= 0.99 and owners["recall"] >= 0.61


@pytest.mark.parametrize("path", contradictions.HELDOUT_PATHS, ids=lambda p: p.stem)
def test_each_held_out_set_is_balanced_and_apart_from_dev(path):
    heldout = contradictions.load(path)
    assert len(heldout) >= 60 and {p.split for p in heldout} == {"heldout"}
    assert sum(p.contradicts for p in heldout) == len(heldout) / 2
    dev = {(p.a, p.b) for path in contradictions.DEV_PATHS for p in contradictions.load(path)}
    assert not dev & {(p.a, p.b) for p in heldout}


def test_the_rules_hold_their_floors_on_the_held_out_pairs():
    """The seventh held-out batch, written apart by a session that read nothing of the
    repository, scored once before the seventh round (precision 0.917, recall 0.220) and
    once after it (0.923 / 0.240): the floors sit just under; the issue's target is
    0.8 / 0.8."""
    heldout = contradictions.load(contradictions.HELDOUT7_PATH)
    report = contradictions.evaluate(contradictions.HELDOUT7_PATH, rules_verdict)
    assert report["pairs"] == len(heldout) and report["per_split"].keys() == {"heldout"}
    assert report["precision"] >= 0.90
    assert report["recall"] >= 0.22


@pytest.mark.parametrize("path, precision, recall", [
    (contradictions.HELDOUT8_PATH, 0.70, 0.16),
    (contradictions.HELDOUT9_PATH, 0.75, 0.14),
    (contradictions.HELDOUT10_PATH, 0.85, 0.24),
    (contradictions.HELDOUT11_PATH, 0.88, 0.38),
    (contradictions.HELDOUT12_PATH, 0.86, 0.60),
])
def test_the_rules_alone_hold_their_floors_on_the_later_held_out_batches(path, precision,
                                                                         recall):
    """Scored for figures only, on the rules of the seventh round: the eighth batch 0.750
    / 0.180, the ninth 0.800 / 0.160, the tenth 0.938 / 0.300 (precision / recall). On
    the tenth round's: the eighth and ninth the same, the tenth 0.882 / 0.300 (one new
    false flag), the eleventh (written for that round) 0.850 / 0.340 before it and
    after. The twelfth, written in the style of the issue's own held-out pairs, 0.879 /
    0.580 on the rules of 2026-11-28. Once a named thing pinned a subject (the same day,
    later): the eleventh 0.909 / 0.400, the twelfth 0.886 / 0.620; once a name before a
    word of its own was read as saying which kind of thing (chosen on the dev stores), the
    tenth 0.867 / 0.260, two contradictions fewer found there."""
    report = contradictions.evaluate(path, rules_verdict)
    assert report["precision"] >= precision and report["recall"] >= recall


def test_the_recorded_fixture_answers_every_shipped_pair_and_says_it_is_hand_written():
    judge = contradictions.RecordedJudge(contradictions.RECORDED_PATH)
    assert "NOT A MEASURED MODEL RUN" in judge.note
    recorded = [json.loads(line) for line in
                contradictions.RECORDED_PATH.read_text(encoding="utf-8").splitlines()
                if '"reply"' in line]
    # every shipped pair is replayed, each verdict as its recorded reply says (no figure:
    # the replies were written by hand and agree with the labels by construction)
    assert len(recorded) == len(contradictions.load()) >= 70
    for item in recorded:
        verdict = judge(item["a"], item["b"])
        said = re.search(r'"contradicts"\s*:\s*(true|false)', item["reply"]).group(1)
        assert verdict.contradicts is (said == "true")
        assert verdict.reason and verdict.reason[:30] in item["reply"]


def test_engram_eval_contradictions_prints_a_table_with_the_misses(tmp_path):
    out = StringIO()
    call_command("engram_eval", "contradictions", str(_write(tmp_path, TINY[:2])), stdout=out)
    text = out.getvalue()
    assert "Contradictions: 2 pairs (2 contradictory); judge rules" in text
    assert "precision  recall accuracy" in text and "split dev" in text


def test_engram_eval_contradictions_shows_the_dev_misses_and_only_counts_the_held_out_ones(
        tmp_path):
    path = _write(tmp_path, TINY)
    missed = {m["id"]: m["split"] for m in contradictions.evaluate(path, rules_verdict)["misses"]}
    assert set(missed.values()) == {"dev", "heldout"}  # the set holds both kinds of miss
    out = StringIO()
    call_command("engram_eval", "contradictions", str(path), stdout=out)
    shown = {row["id"] for row in TINY if f"  {row['id']} (" in out.getvalue()}
    assert shown == {name for name, split in missed.items() if split == "dev"}
    held_out = sum(split == "heldout" for split in missed.values())
    assert f"{held_out} held-out misses not shown" in out.getvalue()
    as_json = StringIO()
    call_command("engram_eval", "contradictions", str(path), "--json", stdout=as_json)
    report = json.loads(as_json.getvalue())
    assert {m["split"] for m in report["misses"]} == {"dev"}
    assert report["misses_held_out_hidden"] == held_out


def test_engram_eval_contradictions_says_so_when_the_held_out_file_is_unwritten(
        tmp_path, monkeypatch):
    dev = _write(tmp_path, TINY[:2], name="dev.jsonl")
    monkeypatch.setattr(contradictions, "DEFAULT_PATHS", (dev, tmp_path / "heldout.jsonl"))
    monkeypatch.setattr(contradictions, "HELDOUT_PATHS", (tmp_path / "heldout.jsonl",))
    out, err = StringIO(), StringIO()
    call_command("engram_eval", "contradictions", "--json", stdout=out, stderr=err)
    assert "held-out pairs missing: heldout.jsonl not written" in err.getvalue()
    assert json.loads(out.getvalue())["per_split"].keys() == {"dev"}


def test_engram_eval_contradictions_replays_recorded_replies_as_json():
    out = StringIO()
    call_command("engram_eval", "contradictions", "--json",
                 f"--judge=recorded:{contradictions.RECORDED_PATH}", stdout=out)
    report = json.loads(out.getvalue())
    assert report["judge"].startswith("recorded replies in ")
    assert "NOT A MEASURED MODEL RUN" in report["judge_note"]
    assert set(report["per_split"]) == {"dev"}  # replies were written for the dev pairs only


def test_engram_eval_contradictions_refuses_an_unknown_judge():
    with pytest.raises(CommandError, match="--judge takes rules"):
        call_command("engram_eval", "contradictions", "--judge", "oracle")


def _locomo(tmp_path, *conversations):
    """A LoCoMo file of one conversation a list of (speaker, text) turns."""
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([{"sample_id": f"conv-{n}", "qa": [], "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben", "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": speaker, "dia_id": f"D1:{i}", "text": text}
                      for i, (speaker, text) in enumerate(turns, 1)]}}
        for n, turns in enumerate(conversations, 1)]), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_engram_eval_chat_contradictions_counts_the_open_queue_per_1000_turns(tmp_path):
    small_talk = [("Ana", "Hi Ben! How are you?"), ("Ben", "Thanks, Ana! Great to hear!"),
                  ("Ana", "Wow, that sounds awesome!"), ("Ben", "What's new with you?")]
    clash = [("Ana", "The book club meets in the library on Mondays."),
             ("Ana", "The book club never meets in the library on Mondays.")]
    out = StringIO()
    call_command("engram_eval", "chat-contradictions", str(_locomo(tmp_path, small_talk)),
                 "--conversations", "1", "--json", stdout=out, stderr=StringIO())
    quiet = json.loads(out.getvalue())["splits"]["dev"]
    assert (quiet["turns"], quiet["open"], quiet["open_per_1000_turns"]) == (4, 0, 0.0)
    out = StringIO()
    call_command("engram_eval", "chat-contradictions",
                 str(_locomo(tmp_path, small_talk + clash)), "--conversations", "1",
                 "--json", stdout=out, stderr=StringIO())
    loud = json.loads(out.getvalue())["splits"]["dev"]
    assert (loud["turns"], loud["open"]) == (6, 1)
    assert loud["open_per_1000_turns"] == pytest.approx(1000 / 6, abs=0.01)


@pytest.mark.django_db
def test_engram_eval_chat_contradictions_takes_the_split_and_never_shows_held_out_flags(
        tmp_path):
    clash = [("Ana", "The book club meets in the library on Mondays."),
             ("Ana", "The book club never meets in the library on Mondays.")]
    chat = [("Ana", "Hi Ben!")]
    path = _locomo(tmp_path, *[chat] * 5, clash)  # the sixth is held out
    out = StringIO()
    call_command("engram_eval", "chat-contradictions", str(path), "--split", "heldout",
                 stdout=out, stderr=StringIO())
    shown = out.getvalue()
    assert "heldout     1" in shown and "dev " not in shown
    assert "library" not in shown and "1 held-out flags not shown" in shown
    out = StringIO()
    call_command("engram_eval", "chat-contradictions", str(path), "--conversations", "6",
                 "--json", stdout=out, stderr=StringIO())
    report = json.loads(out.getvalue())
    assert report["splits"]["heldout"]["open"] == 1 and report["flags_held_out_hidden"] == 1
    assert report["conversations"][0]["flags"] == []
    # a dev conversation's flags are shown, to read
    out = StringIO()
    call_command("engram_eval", "chat-contradictions", str(_locomo(tmp_path, clash)),
                 "--split", "dev", stdout=out, stderr=StringIO())
    assert "library" in out.getvalue()


def test_engram_eval_chat_contradictions_refuses_a_bad_conversation_range(tmp_path):
    with pytest.raises(CommandError, match="--conversations takes"):
        call_command("engram_eval", "chat-contradictions", str(_locomo(tmp_path, [])),
                     "--conversations", "one")
    with pytest.raises(CommandError, match="has 1 conversations"):
        call_command("engram_eval", "chat-contradictions",
                     str(_locomo(tmp_path, [("Ana", "Hi.")])), "--conversations", "6-10")
