"""A side deleted or archived after its contradiction was found cannot win it: the
other side would be superseded by a memory no agent is handed, and the fact both stated
would be gone from every context without anyone having decided that."""

import pytest

from memories.maintenance.contradictions import resolve_contradiction
from memories.models import ContradictionStatus, Memory, Status
from memories.services.editing import delete_memory, update_memory
from tests.maintenance.test_contradictions import pair, resolve

GONE = {"deleted": lambda memory, person: delete_memory(memory, by=person),
        "archived": lambda memory, person: update_memory(memory, by=person,
                                                         status=Status.ARCHIVED)}


@pytest.mark.parametrize("how", GONE)
def test_a_side_no_longer_active_cannot_win_and_nothing_changes(alice, api_client_for, how):
    contradiction = pair(alice)
    GONE[how](contradiction.memory_a, alice)

    response = resolve(api_client_for(alice), contradiction, resolution="a_wins")

    assert response.status_code == 409
    assert f"Memory A was {how}" in response.json()["error"]["message"]
    b = Memory.objects.get(pk=contradiction.memory_b.pk)
    assert (b.superseded_by_id, b.valid_to) == (None, None)
    contradiction.refresh_from_db()
    assert contradiction.status == ContradictionStatus.OPEN


def test_the_side_still_stored_may_win_over_a_deleted_one(alice):
    contradiction = pair(alice)
    delete_memory(contradiction.memory_a, by=alice)
    resolve_contradiction(contradiction, resolution="b_wins", by=alice)
    a = Memory.objects.get(pk=contradiction.memory_a.pk)
    assert (a.status, a.superseded_by_id) == (Status.DELETED, contradiction.memory_b.pk)
