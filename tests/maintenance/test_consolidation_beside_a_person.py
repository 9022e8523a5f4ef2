"""A person who edits, pins or deletes a memory while a consolidation run is writing
its summary has decided about it: the run leaves that cluster as the person left it
(the next run sees it afresh), never archiving the person's change under a summary of
the text it read before."""


import pytest

from memories.maintenance import consolidation
from memories.maintenance.consolidation import consolidate
from memories.models import LinkRelation, Memory, MemoryLink, Status
from memories.services.editing import delete_memory, update_memory
from tests.maintenance.test_consolidation import NOW, REDIS_NOTES, copy_past_dedup, old

EDITED = "The session cache moved to Valkey 8; entries expire after two hours."
PERSON_DOES = {
    "edits it": lambda memory, person: update_memory(memory, by=person, content=EDITED),
    "pins it": lambda memory, person: update_memory(memory, by=person, pinned=True),
    "deletes it": lambda memory, person: delete_memory(memory, by=person),
}


@pytest.fixture
def notes(alice, settings):
    settings.ENGRAM_DEDUP_THRESHOLD = 0.99  # let the near-repeats be stored as three rows
    return [old(alice, text) for text in REDIS_NOTES]


@pytest.mark.parametrize("action", PERSON_DOES)
def test_a_memory_a_person_changes_while_the_summary_is_written_is_left_as_they_left_it(
        alice, notes, monkeypatch, action):
    summarise = consolidation._summarise

    def while_a_person_changes_one(owner, project, contents, now):
        PERSON_DOES[action](Memory.objects.get(pk=notes[1].pk), alice)
        return summarise(owner, project, contents, now)

    monkeypatch.setattr(consolidation, "_summarise", while_a_person_changes_one)
    consolidate(owner=alice, now=NOW)

    changed = Memory.objects.get(pk=notes[1].pk)
    as_left = {"edits it": (Status.ACTIVE, False, EDITED),
               "pins it": (Status.ACTIVE, True, REDIS_NOTES[1]),
               "deletes it": (Status.DELETED, False, REDIS_NOTES[1])}[action]
    assert (changed.status, changed.pinned, changed.content) == as_left
    assert not MemoryLink.objects.filter(relation=LinkRelation.CONSOLIDATED_INTO).exists()
    assert not Memory.objects.filter(metadata__consolidated_from__isnull=False).exists()


def test_a_repeat_a_person_edits_before_the_nightly_merge_is_not_merged_away(
        alice, monkeypatch):
    first = old(alice, "Deploys go through the staging cluster first.", days=90)
    repeat = copy_past_dedup(first)
    groups = consolidation.near_duplicate_groups

    def while_a_person_edits_the_repeat(*args, **kwargs):
        update_memory(repeat, by=alice, content="Deploys go through staging, then canary.")
        return groups(*args, **kwargs)

    monkeypatch.setattr(consolidation, "near_duplicate_groups",
                        while_a_person_edits_the_repeat)
    report = consolidate(owner=alice, now=NOW)

    repeat.refresh_from_db()
    assert (repeat.status, repeat.content) == (Status.ACTIVE,
                                               "Deploys go through staging, then canary.")
    assert report["deduplicated"] == 0
