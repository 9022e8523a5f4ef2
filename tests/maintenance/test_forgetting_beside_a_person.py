"""A person who pins or edits a memory after the forgetting pass decided about it, but
before the pass wrote its batch, has decided it stays: the pass leaves it, and the next
pass decides again on what the person left. A side of a contradiction a person is asked
about waits for their answer."""

import pytest

from memories.maintenance import forgetting
from memories.maintenance.forgetting import forget
from memories.models import Contradiction, ContradictionStatus, Memory, Status
from memories.services.editing import update_memory
from tests.maintenance.test_forgetting import NOW, stored

PERSON_DOES = {
    "pins it": {"pinned": True},
    "edits it": {"content": "Ran the linter on the old branch; it flags unused imports."},
}


@pytest.mark.parametrize("action", PERSON_DOES)
def test_a_memory_a_person_changes_after_the_decision_is_not_forgotten(
        alice, monkeypatch, action):
    faded = stored(alice, "Ran the linter on the old branch")
    decide = forgetting.decide

    def while_a_person_changes_it(state, now, **settings):
        decision = decide(state, now, **settings)
        update_memory(Memory.objects.get(pk=faded.pk), by=alice, **PERSON_DOES[action])
        return decision

    monkeypatch.setattr(forgetting, "decide", while_a_person_changes_it)
    result = forget(owner=alice, now=NOW)

    faded.refresh_from_db()
    assert faded.status == Status.ACTIVE
    assert not faded.versions.filter(after__status=Status.DELETED).exists()
    assert result["forgotten"] == 0


def test_a_faded_side_of_a_contradiction_waiting_for_a_person_is_not_forgotten(alice):
    faded = stored(alice, "Staging deploys run from the release branch")
    other = stored(alice, "Staging deploys run from the main branch", days_unused=1)
    waiting = Contradiction.objects.create(owner=alice, memory_a=faded, memory_b=other,
                                           detected_at=NOW, detected_by="rules",
                                           reason="the branch differs", confidence=0.9)
    also_faded = stored(alice, "Ran the linter on the old branch")

    assert forget(owner=alice, now=NOW)["forgotten"] == 1

    assert Memory.objects.get(pk=faded.pk).status == Status.ACTIVE
    assert Memory.objects.get(pk=also_faded.pk).status == Status.DELETED
    Contradiction.objects.filter(pk=waiting.pk).update(status=ContradictionStatus.RESOLVED)
    assert forget(owner=alice, now=NOW)["forgotten"] == 1  # decided: it may fade now
