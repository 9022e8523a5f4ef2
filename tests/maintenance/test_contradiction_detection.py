"""New memories are judged against their nearest neighbours; contradictions are recorded."""

import json

import pytest
from django.core.management import call_command

from memories.maintenance.contradictions import check_contradictions
from memories.services import remembering
from memories.models import Contradiction, ContradictionStatus, JudgedPair, ModelCall
from tests.helpers import anthropic_error, anthropic_reply


@pytest.fixture
def remember(django_capture_on_commit_callbacks):
    """remember(), then the contradiction check its commit queues."""
    def store(owner, content, **fields):
        with django_capture_on_commit_callbacks(execute=True):
            return remembering.remember(owner=owner, content=content, **fields).memory
    return store


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


def judged(contradicts):
    return anthropic_reply({"contradicts": contradicts, "reason": "different ports",
                            "confidence": 0.9}, 50, 12)


def test_a_configured_model_judges_and_its_verdicts_are_cached_per_pair(alice, settings,
                                                                        fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    route = fake_anthropic.always(judged(True))
    a = remembering.remember(owner=alice, content="The orders API listens on port 8080").memory
    b = remembering.remember(owner=alice, content="The orders API listens on port 9090").memory
    check_contradictions([b.pk])
    assert route.call_count == 1
    assert Contradiction.objects.get().detected_by == "anthropic"
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
