"""New memories are judged against their nearest neighbours; contradictions are recorded."""

import json

from django.core.management import call_command

from memories.maintenance.contradictions import (
    check_contradictions,
    resolve_contradiction,
)
from memories.models import (
    Contradiction,
    ContradictionStatus,
    JudgedPair,
    Memory,
    ModelCall,
    Resolution,
)
from memories.selectors import contradiction_queue, count_open_contradictions
from memories.services import remembering
from tests.helpers import anthropic_error, anthropic_reply


def test_a_changed_value_for_the_same_fact_is_recorded_as_open(alice, remember):
    old = remember(alice, "The orders API listens on port 8080")
    new = remember(alice, "The orders API listens on port 9090")
    contradiction = Contradiction.objects.for_owner(alice).get()
    assert (contradiction.memory_a, contradiction.memory_b) == (old, new)
    assert contradiction.status == ContradictionStatus.OPEN
    assert contradiction.detected_by == "rules" and contradiction.reason


def test_compatible_memories_are_not_flagged(alice, remember):
    remember(alice, "The orders API listens on port 8080")
    remember(alice, "The orders API is written in Go")
    remember(alice, "Lunch is at noon")
    assert not Contradiction.objects.exists()


def test_memories_of_other_owners_are_never_compared(alice, bob, remember):
    remember(alice, "The orders API listens on port 8080")
    remember(bob, "The orders API listens on port 9090")
    assert not Contradiction.objects.exists()
    # the control: the same statement from alice herself is flagged
    remember(alice, "The orders API listens on port 9090")
    assert Contradiction.objects.get().owner == alice


def test_a_full_scan_finds_each_pair_once_and_a_rerun_adds_nothing(alice, remember, capsys):
    remembering.remember(owner=alice, content="Staging deploys run on Fridays")
    remembering.remember(owner=alice, content="Staging deploys never run on Fridays")
    call_command("scan_contradictions", "--dry-run")
    assert json.loads(capsys.readouterr().out)["found"] >= 1
    assert not Contradiction.objects.exists()
    call_command("scan_contradictions")
    assert Contradiction.objects.count() == 1
    call_command("scan_contradictions")
    assert Contradiction.objects.count() == 1


def test_a_scan_judges_no_memory_a_person_has_superseded(alice, remember):
    old = remember(alice, "The orders API listens on port 8080")
    new = remember(alice, "The orders API listens on port 9090")
    resolve_contradiction(Contradiction.objects.get(), resolution=Resolution.B_WINS, by=alice)
    newest = remember(alice, "The orders API listens on port 7070")
    disputed = {(c.memory_a_id, c.memory_b_id) for c in Contradiction.objects.filter(
        status=ContradictionStatus.OPEN)}
    assert disputed == {(new.pk, newest.pk)}
    call_command("scan_contradictions")
    assert {(c.memory_a_id, c.memory_b_id) for c in Contradiction.objects.filter(
        status=ContradictionStatus.OPEN)} == disputed
    # the control: held again, the old memory is judged, and disputes the newest
    Memory.objects.filter(pk=old.pk).update(superseded_by=None, valid_to=None)
    call_command("scan_contradictions")
    assert Contradiction.objects.filter(memory_a=old, memory_b=newest).exists()


def judged(contradicts):
    return anthropic_reply({"contradicts": contradicts, "reason": "different ports",
                            "subject": "the orders API port", "value_a": "8080",
                            "value_b": "9090", "confidence": 0.9}, 50, 12)


def test_a_configured_model_judges_and_its_verdicts_are_cached_per_pair(alice, settings,
                                                                        fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    route = fake_anthropic.always(judged(True))
    a = remembering.remember(owner=alice, content="The orders API listens on port 8080").memory
    b = remembering.remember(owner=alice, content="The orders API listens on port 9090").memory
    check_contradictions([b.pk])
    assert route.call_count == 1
    found = Contradiction.objects.get()
    assert found.detected_by == "anthropic" and found.confidence == 0.9
    assert found.reason.startswith("the orders API port: '8080' against '9090'.")
    assert JudgedPair.objects.get().contradicts
    assert ModelCall.objects.get().purpose == "judge"
    check_contradictions([b.pk, a.pk])
    assert route.call_count == 1  # both directions hit the cached verdict


def test_a_failing_model_falls_back_to_the_rules(alice, settings, fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    fake_anthropic.always(anthropic_error(500, "Internal server error"))
    remembering.remember(owner=alice, content="The orders API listens on port 8080")
    b = remembering.remember(owner=alice, content="The orders API listens on port 9090").memory
    check_contradictions([b.pk])
    assert Contradiction.objects.get().detected_by == "rules"
    assert ModelCall.objects.filter(ok=False).exists()


def test_long_memories_are_checked_and_their_contradiction_recorded(alice, remember):
    """For long memories the verdict's reason outgrew 500 characters and the check task
    crashed on every retry: contradictions between long memories were never found."""
    detail = " ".join(f"component{i}" for i in range(80))
    old = remember(alice, f"The deploy script must run the migrations for {detail} first.")
    new = remember(alice, f"The deploy script must not run the migrations for {detail} first.")
    assert len(old.content) > 500
    found = Contradiction.objects.for_owner(alice).get()
    assert {found.memory_a_id, found.memory_b_id} == {old.pk, new.pk}
    assert found.confident and 0 < len(found.reason) <= 500


def test_an_unsure_verdict_is_kept_but_not_queued(alice, remember):
    remember(alice, "The staging database is wiped every night, you know!")
    remember(alice, "The staging database is never wiped, I told you!")
    unsure = Contradiction.objects.for_owner(alice).get()
    assert unsure.status == ContradictionStatus.OPEN and not unsure.confident
    assert count_open_contradictions(alice) == 0
    assert list(contradiction_queue(alice, status=ContradictionStatus.OPEN)) == []
    assert list(contradiction_queue(alice, status=ContradictionStatus.OPEN,
                                    unsure=True)) == [unsure]
    # a plain statement of the same clash is queued
    remember(alice, "Nightly builds are published to the beta channel.")
    remember(alice, "Nightly builds are not published to the beta channel.")
    assert count_open_contradictions(alice) == 1


def test_a_check_counts_each_memory_once_in_its_progress_after_its_pairs(alice, remember):
    first = remember(alice, "The orders API listens on port 8080")
    second = remember(alice, "The orders API listens on port 9090")
    alone = remembering.remember(owner=alice, content="Lunch is at noon on Fridays").memory
    steps = []
    found = check_contradictions([first.pk, second.pk, alone.pk], dry_run=True,
                                 advance=lambda n=1: steps.append(n))
    assert found and sum(steps) == 3
    # each memory's step comes once its pairs are judged, not all at the end
    assert len(steps) >= 2
