"""An insight flagged because a memory it cites was deleted gets its earlier status back
when the deletion is undone; one a person reviewed in between, or whose evidence changed
again, stays as they left it."""

import pytest

from memories.models import LinkRelation, Memory, MemoryLink
from memories.services.editing import (
    bulk_undo_delete,
    delete_memory,
    restore_memory,
    update_memory,
)
from memories.services.remembering import remember
from reflection import services as reflection
from reflection.models import Insight, InsightStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def cited(alice):
    return [remember(owner=alice, content=text).memory for text in (
        "Billing deploy failed: missing column", "Billing deploy failed: migration skipped")]


@pytest.fixture
def insight(alice, cited):
    memory = remember(owner=alice, kind="insight",
                      content="Billing deploys fail when the schema migration is skipped").memory
    for memory_cited in cited:
        MemoryLink.objects.create(from_memory=memory, to_memory=memory_cited,
                                  relation=LinkRelation.CITES)
    found = Insight.objects.create(owner=alice, memory=memory, question="Why do deploys fail?",
                                   cited_ids=[m.pk for m in cited], text_hash="t", cited_key="c")
    return reflection.review(found, approve=True, by=alice)


def status_of(insight) -> str:
    return Insight.objects.get(pk=insight.pk).status


def test_undoing_the_deletion_puts_the_insights_status_back(insight, cited, alice):
    delete_memory(cited[0], by=alice)
    assert status_of(insight) == InsightStatus.FLAGGED
    restore_memory(cited[0], by=alice)
    insight.refresh_from_db()
    assert (insight.status, insight.flagged_reason) == (InsightStatus.APPROVED, "")


def test_the_lists_undo_puts_it_back_too(insight, cited, alice):
    delete_memory(cited[0], by=alice)
    bulk_undo_delete([cited[0].pk], by=alice)
    assert status_of(insight) == InsightStatus.APPROVED


def test_an_insight_a_person_reviewed_in_between_stays_as_they_left_it(insight, cited, alice):
    delete_memory(cited[0], by=alice)
    reflection.review(Insight.objects.get(pk=insight.pk), approve=False, by=alice)
    restore_memory(cited[0], by=alice)
    assert status_of(insight) == InsightStatus.REJECTED


def test_it_stays_flagged_while_other_evidence_changed_too(insight, cited, alice):
    delete_memory(cited[0], by=alice)
    delete_memory(cited[1], by=alice)
    restore_memory(cited[0], by=alice)
    assert status_of(insight) == InsightStatus.FLAGGED
    restore_memory(cited[1], by=alice)  # not the change that flagged it either
    assert status_of(insight) == InsightStatus.FLAGGED


def test_an_insight_flagged_for_an_edit_stays_flagged_when_a_deletion_is_undone(
        insight, cited, alice):
    update_memory(cited[0], by=alice, content="Billing deploy failed: the column was absent")
    delete_memory(Memory.objects.get(pk=cited[0].pk), by=alice)
    restore_memory(Memory.objects.get(pk=cited[0].pk), by=alice)
    insight.refresh_from_db()
    assert insight.status == InsightStatus.FLAGGED and "edited" in insight.flagged_reason
