"""A person's rejection of an insight holds: reflection never brings the same insight
back, nor a restatement of it on the same question and topic resting on the same
evidence and more (the error came up once more), into what agents are handed."""

from datetime import timedelta

import pytest

from memories.models import Status
from memories.services.remembering import remember
from reflection import services as reflection
from reflection.models import Insight, InsightStatus
from tests.reflection.test_reflection import NOW, store

pytestmark = pytest.mark.django_db


@pytest.fixture
def rules(settings):
    settings.ENGRAM_LLM_PROVIDER = "rules"


def test_an_insight_restated_after_its_rejection_stays_out_of_what_agents_are_handed(
        alice, rules):
    store(alice)
    reflection.reflect(owner=alice, now=NOW)
    rejected = Insight.objects.get(topic="errors: modulenotfounderror")
    reflection.review(rejected, approve=False, by=alice)
    remember(owner=alice, kind="error", memory_type="episodic", now=NOW,
             content="The nightly build failed with ModuleNotFoundError: No module "
                     "named 'psycopg' on the new runner")

    reflection.reflect(owner=alice, now=NOW + timedelta(minutes=5))

    again = Insight.objects.filter(topic="errors: modulenotfounderror").exclude(
        pk=rejected.pk).select_related("memory").get()
    assert set(rejected.cited_ids) < set(again.cited_ids)
    assert again.status == InsightStatus.REJECTED and again.memory.status == Status.ARCHIVED
    assert str(rejected.pk) in again.flagged_reason
    assert list(again.memory.versions.values_list("change", "after__status")) == [
        ("created", "active"), ("status", "archived")]


def test_a_rejected_insight_is_not_stored_again_by_the_next_reflection(alice, rules):
    store(alice)
    reflection.reflect(owner=alice, now=NOW)
    for insight in Insight.objects.all():
        reflection.review(insight, approve=False, by=alice)

    result = reflection.reflect(owner=alice, now=NOW + timedelta(minutes=5))

    assert result["insights_created"] == 0
    assert not Insight.objects.exclude(status=InsightStatus.REJECTED).exists()


def _stored(owner, text, cited, now):
    from memories.engine import reflection as engine
    return reflection._store(
        owner, engine.CitedInsight(text, tuple(m.pk for m in cited), topic="deploys"),
        question="what keeps failing?", rounds=1, reflected_by="rules",
        by_id={m.pk: m for m in cited}, now=now, dry_run=False)


def test_a_restatement_kept_rejected_supersedes_no_other_insight(alice):
    """A restatement stored rejected is out of what agents are handed: an insight it also
    restates, which a person approved, must not be superseded by it (both would leave)."""
    first, second, third = (remember(owner=alice, content=text, now=NOW).memory for text in (
        "The deploy failed: the registry refused the push",
        "The deploy failed again: the registry token had expired",
        "The deploy failed once more: the registry was down"))
    approved = _stored(alice, "Deploys fail at the registry", [first, second], NOW)
    reflection.review(approved, approve=True, by=alice)
    rejected = _stored(alice, "Deploys fail on Fridays", [first, third], NOW)
    reflection.review(rejected, approve=False, by=alice)

    again = _stored(alice, "Deploys keep failing at the registry", [first, second, third],
                    NOW + timedelta(minutes=5))

    assert again.status == InsightStatus.REJECTED
    approved = Insight.objects.select_related("memory").get(pk=approved.pk)
    assert approved.superseded_by is None
    assert approved.memory.superseded_by is None and approved.memory.valid_to is None
