"""An export carries the contradictions between its memories, open or as a person resolved
them: imported into another account, a pair dismissed as both valid stays dismissed and
is not raised again, a winner stays the winner, and an open verdict keeps its reason."""

import json

import pytest

from memories.maintenance.contradictions import resolve_contradiction
from memories.models import Contradiction, ContradictionStatus, Memory, Resolution
from memories.services.remembering import remember
from memories.services.transfer import export_lines, import_jsonl

pytestmark = pytest.mark.django_db

OLD, NEW = "The orders API listens on port 8080", "The orders API listens on port 9090"


def disputed(owner, old=OLD, new=NEW, project="", **fields) -> Contradiction:
    a = remember(owner=owner, content=old, project=project).memory
    b = remember(owner=owner, content=new, project=project).memory
    return Contradiction.objects.create(owner=owner, memory_a=a, memory_b=b, **fields)


def records(owner, **options) -> list[dict]:
    return [json.loads(line) for line in export_lines(owner, **options)]


def jsonl(lines: list[dict]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_a_dismissed_contradiction_comes_back_dismissed_and_is_not_raised_again(
        alice, bob, charlie, django_capture_on_commit_callbacks):
    resolve_contradiction(disputed(alice), resolution=Resolution.BOTH_VALID, by=alice,
                          note="8080 inside the cluster, 9090 at the load balancer")
    exported = records(alice)
    with django_capture_on_commit_callbacks(execute=True):  # embedded, then checked
        report = import_jsonl(bob, jsonl(exported))
    assert report.bad == [] and report.as_dict()["imported"]["contradictions"] == 1
    kept = Contradiction.objects.get(owner=bob)
    assert (kept.memory_a.content, kept.memory_b.content) == (OLD, NEW)
    assert kept.memory_a.owner == kept.memory_b.owner == bob
    assert (kept.status, kept.resolution, kept.resolved_by) == (
        ContradictionStatus.RESOLVED, Resolution.BOTH_VALID, bob)
    assert kept.note == "8080 inside the cluster, 9090 at the load balancer"
    # the control: the same memories without their contradiction are checked and raised
    with django_capture_on_commit_callbacks(execute=True):
        import_jsonl(charlie, jsonl([r for r in exported if r.get("record") != "contradiction"]))
    raised = Contradiction.objects.get(owner=charlie)
    assert raised.status == ContradictionStatus.OPEN and raised.detected_by == "rules"


def test_an_open_contradiction_keeps_its_verdict(alice, bob):
    disputed(alice, detected_by="anthropic:claude-haiku", confidence=0.83,
             reason="the port of the orders API: 8080 against 9090")
    import_jsonl(bob, jsonl(records(alice)))
    kept = Contradiction.objects.get(owner=bob)
    original = Contradiction.objects.get(owner=alice)
    assert (kept.status, kept.resolution, kept.resolved_by, kept.resolved_at) == (
        ContradictionStatus.OPEN, "", None, None)
    assert (kept.detected_by, kept.confidence, kept.reason, kept.detected_at) == (
        original.detected_by, original.confidence, original.reason, original.detected_at)


def test_a_winner_stays_the_winner_whichever_side_a_file_names_it_on(alice, bob):
    resolve_contradiction(disputed(alice), resolution=Resolution.B_WINS, by=alice)
    exported = records(alice)
    line = next(r for r in exported if r.get("record") == "contradiction")
    assert line["resolution"] == Resolution.B_WINS
    # written by hand the other way round: the newer memory first, so "a wins"
    line.update(memory_a=line["memory_b"], memory_b=line["memory_a"],
                resolution=Resolution.A_WINS)
    import_jsonl(bob, jsonl(exported))
    kept = Contradiction.objects.get(owner=bob)
    assert kept.memory_a.content == OLD  # the older is a, as the scanner records it
    assert kept.resolution == Resolution.B_WINS
    loser = Memory.objects.get(owner=bob, content=OLD)
    assert loser.superseded_by.content == NEW


def test_a_contradiction_engram_closed_comes_back_closed(alice, bob):
    settled = disputed(alice)
    third = remember(owner=alice, content="The orders API listens on port 7070").memory
    moot = Contradiction.objects.create(owner=alice, memory_a=settled.memory_a,
                                        memory_b=third)
    resolve_contradiction(settled, resolution=Resolution.B_WINS, by=alice)
    moot.refresh_from_db()
    assert (moot.status, moot.resolution) == (ContradictionStatus.RESOLVED, "")
    report = import_jsonl(bob, jsonl(records(alice)))
    assert report.bad == [] and report.contradictions == 2
    closed = Contradiction.objects.get(owner=bob, memory_b__content=third.content)
    assert (closed.status, closed.resolution) == (ContradictionStatus.RESOLVED, "")
    assert closed.note.startswith("Closed: memory")


def test_an_import_raises_no_contradiction_about_a_memory_already_superseded(
        alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        resolve_contradiction(disputed(alice), resolution=Resolution.B_WINS, by=alice)
        remember(owner=alice, content="The orders API listens on port 7070")
    assert Contradiction.objects.filter(owner=alice, status=ContradictionStatus.OPEN).count() == 1
    with django_capture_on_commit_callbacks(execute=True):  # embedded, then checked
        import_jsonl(bob, jsonl(records(alice)))
    still_open = Contradiction.objects.get(owner=bob, status=ContradictionStatus.OPEN)
    assert {still_open.memory_a.content, still_open.memory_b.content} == {
        NEW, "The orders API listens on port 7070"}


def test_a_merged_contradiction_names_the_merged_text(alice, bob):
    resolve_contradiction(disputed(alice), resolution=Resolution.MERGED, by=alice,
                          merged_content="The orders API listens on 8080, exposed as 9090")
    import_jsonl(bob, jsonl(records(alice)))
    kept = Contradiction.objects.get(owner=bob)
    assert kept.merged_into.owner == bob
    assert kept.merged_into.content == "The orders API listens on 8080, exposed as 9090"


def test_importing_an_export_twice_adds_no_second_contradiction(alice, bob):
    disputed(alice)
    data = jsonl(records(alice))
    import_jsonl(bob, data)
    again = import_jsonl(bob, data)
    assert again.contradictions == 0 and again.bad == []
    assert Contradiction.objects.filter(owner=bob).count() == 1


def test_a_project_export_holds_the_contradictions_inside_the_project_only(alice):
    disputed(alice, project="lighthouse")
    disputed(alice, old="Backups run at 02:00 UTC", new="Backups run at 04:30 UTC")
    lines = [r for r in records(alice, project="lighthouse") if r.get("record") == "contradiction"]
    assert len(lines) == 1
    contents = {r["id"]: r["content"] for r in records(alice, project="lighthouse")
                if r.get("record", "memory") == "memory"}
    assert (contents[lines[0]["memory_a"]], contents[lines[0]["memory_b"]]) == (OLD, NEW)
    assert len([r for r in records(alice) if r.get("record") == "contradiction"]) == 2


@pytest.mark.parametrize(("change", "message"), [
    ({"memory_b": "8d1b5a7e-0000-4000-8000-000000000000"}, "not in the file"),
    ({"memory_b": None}, "memory_b None is not an id"),
    ({"resolution": "a_wins"}, "an open contradiction has no resolution"),
    ({"status": "dismissed"}, "status 'dismissed' is not one of"),
    ({"confidence": 2}, "confidence must be a number from 0 to 1"),
    ({"status": "resolved", "resolution": "both_valid",
      "merged_into": "8d1b5a7e-0000-4000-8000-000000000000"}, "merged_into is for"),
    ({"note": "x" * 2001}, "note"),
])
def test_a_bad_contradiction_line_is_named_and_the_rest_imported(alice, bob, change, message):
    disputed(alice)
    exported = records(alice)
    line = next(r for r in exported if r.get("record") == "contradiction")
    line.update(change)
    report = import_jsonl(bob, jsonl(exported))
    assert [number for number, _ in report.bad] == [exported.index(line) + 1]
    assert message in report.bad[0][1]
    assert report.created == 2 and not Contradiction.objects.filter(owner=bob).exists()


def test_a_contradiction_of_a_memory_with_itself_is_refused(alice, bob):
    disputed(alice)
    exported = records(alice)
    line = next(r for r in exported if r.get("record") == "contradiction")
    line["memory_b"] = line["memory_a"]
    report = import_jsonl(bob, jsonl(exported))
    assert "one memory" in report.bad[0][1]
    assert not Contradiction.objects.filter(owner=bob).exists()


def test_a_second_import_says_its_contradictions_were_there_already(alice, bob):
    disputed(alice)
    data = jsonl(records(alice))
    import_jsonl(bob, data)
    again = import_jsonl(bob, data).as_dict()
    assert again["imported"]["contradictions"] == 0
    assert again["contradictions_already_stored"] == 1
    assert again["already_stored"] == 2


def test_the_history_of_a_loser_names_its_winner_as_imported(alice, bob):
    resolve_contradiction(disputed(alice), resolution=Resolution.B_WINS, by=alice)
    import_jsonl(bob, jsonl(records(alice)))
    loser = Memory.objects.get(owner=bob, content=OLD)
    change = loser.versions.get(change="updated")
    assert change.after["superseded_by"] == str(loser.superseded_by_id)
    assert change.before["superseded_by"] is None


def test_a_resolution_in_the_file_settles_the_verdict_a_check_reached_first(
        alice, bob, django_capture_on_commit_callbacks):
    resolve_contradiction(disputed(alice), resolution=Resolution.BOTH_VALID, by=alice,
                          note="two listeners")
    exported = records(alice)
    with django_capture_on_commit_callbacks(execute=True):  # an older export, checked
        import_jsonl(bob, jsonl([r for r in exported if r.get("record") != "contradiction"]))
    assert Contradiction.objects.get(owner=bob).status == ContradictionStatus.OPEN
    report = import_jsonl(bob, jsonl(exported))
    assert (report.contradictions, report.contradictions_already_stored) == (1, 0)
    settled = Contradiction.objects.get(owner=bob)
    assert (settled.status, settled.resolution, settled.note, settled.resolved_by) == (
        ContradictionStatus.RESOLVED, Resolution.BOTH_VALID, "two listeners", bob)


def test_an_open_line_leaves_a_resolution_already_recorded_as_it_is(alice, bob):
    disputed(alice)
    data = jsonl(records(alice))
    import_jsonl(bob, data)
    resolve_contradiction(Contradiction.objects.get(owner=bob), by=bob,
                          resolution=Resolution.A_WINS)
    again = import_jsonl(bob, data)
    assert (again.contradictions, again.contradictions_already_stored) == (0, 1)
    assert Contradiction.objects.get(owner=bob).resolution == Resolution.A_WINS


@pytest.mark.parametrize("reversed_", [False, True])
def test_a_second_line_for_one_pair_is_a_bad_line(alice, bob, reversed_):
    disputed(alice)
    exported = records(alice)
    line = next(r for r in exported if r.get("record") == "contradiction")
    second = dict(line, status="resolved", resolution="both_valid")
    if reversed_:
        second.update(memory_a=line["memory_b"], memory_b=line["memory_a"])
    exported.append(second)
    report = import_jsonl(bob, jsonl(exported))
    first = exported.index(line) + 1
    assert report.bad == [(len(exported), f"the pair of memories is on line {first} already")]
    assert Contradiction.objects.get(owner=bob).status == ContradictionStatus.OPEN


def test_a_contradiction_of_a_memory_whose_line_was_refused_says_so(alice, bob):
    disputed(alice, project="home")
    exported = records(alice)
    report = import_jsonl(bob, jsonl(exported), within="shop")  # a key of project shop
    refused = {number for number, message in report.bad if "restricted" in message}
    contradiction = exported.index(next(r for r in exported
                                        if r.get("record") == "contradiction")) + 1
    message = dict(report.bad)[contradiction]
    assert "whose line" in message and int(message.split("line ")[1].split()[0]) in refused


def test_a_contradiction_without_its_memories_in_the_file_says_where_it_belongs(alice, bob):
    disputed(alice)
    only = [r for r in records(alice) if r.get("record") == "contradiction"]
    report = import_jsonl(bob, jsonl(only))
    assert "a contradiction goes in the file that holds its two memories" in report.bad[0][1]
