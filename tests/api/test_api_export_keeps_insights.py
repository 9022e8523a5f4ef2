"""An insight reflection wrote is a memory and, beside it, what reflection knows of it:
its question, the memories it cites and whether a person reviewed it. The export carries
both, so an unreviewed insight imported elsewhere is still announced as unreviewed, a
rejected one stays rejected, and the citations point at the imported evidence."""

import json

import pytest

from memories import selectors
from memories.models import Kind, Memory, Status
from memories.services.remembering import remember
from reflection.models import Insight, cited_key
from reflection.services import review
from tests.helpers import api_export, api_import

pytestmark = pytest.mark.django_db

COMPARED = ("question", "topic", "importance", "round", "reflected_by", "status",
            "flagged_reason", "status_before_flag", "reviewed_at", "created_at")


def insight(owner, text: str, cites: list[Memory], **fields) -> Insight:
    memory = remember(owner=owner, content=text, kind=Kind.INSIGHT, is_synthetic=True,
                      importance=8).memory
    cited = [m.pk for m in cites]
    return Insight.objects.create(owner=owner, memory=memory, cited_ids=cited,
                                  text_hash=memory.content_hash, cited_key=cited_key(cited),
                                  **fields)


@pytest.fixture
def alices_insights(alice):
    a = remember(owner=alice, content="The payments service retries charges twice").memory
    b = remember(owner=alice, content="Duplicate charges were reported in March").memory
    pending = insight(alice, "Retries in payments cause duplicate charges", [a, b],
                      question="Why are customers charged twice?", topic="payments",
                      round=2, reflected_by="claude-haiku")
    approved = insight(alice, "Payments changes need an idempotency key", [a],
                       question="What do payment changes need?")
    rejected = insight(alice, "March is a bad month for payments", [b],
                       question="When do payments fail?")
    review(approved, approve=True, by=alice)
    review(rejected, approve=False, by=alice)
    Insight.objects.filter(pk=approved.pk).update(superseded_by=pending)
    return [pending, approved, rejected]


def by_text(owner) -> dict:
    return {i.memory.content: i for i in Insight.objects.filter(owner=owner)
            .select_related("memory", "superseded_by__memory")}


def test_insights_imported_into_another_account_keep_their_review_state(
        api_client_for, alice, bob, alices_insights):
    answer = api_import(api_client_for(bob), api_export(api_client_for(alice)))
    assert answer["skipped"] == 0
    before, after = by_text(alice), by_text(bob)
    assert set(after) == set(before)
    for text, original in before.items():
        copy = after[text]
        assert [getattr(copy, f) for f in COMPARED] == [getattr(original, f)
                                                        for f in COMPARED], text
        # the people of the export mean nothing here: a reviewed one is the importer's
        assert copy.reviewed_by == (bob if original.reviewed_by else None)
        cited = Memory.objects.filter(pk__in=copy.cited_ids, owner=bob)
        assert sorted(m.content for m in cited) == sorted(
            Memory.objects.filter(pk__in=original.cited_ids).values_list("content", flat=True))
        assert copy.cited_key == cited_key(copy.cited_ids)
    newer = after["Payments changes need an idempotency key"].superseded_by
    assert newer.memory.content == "Retries in payments cause duplicate charges"
    rejected = Memory.objects.get(owner=bob, content="March is a bad month for payments")
    assert rejected.status == Status.ARCHIVED


def test_an_imported_unreviewed_insight_is_still_announced_as_unreviewed(
        api_client_for, alice, bob, alices_insights):
    api_import(api_client_for(bob), api_export(api_client_for(alice)))
    insights = Memory.objects.filter(owner=bob, kind=Kind.INSIGHT)
    unreviewed = Memory.objects.filter(pk__in=selectors.unreviewed_insights(insights))
    assert sorted(unreviewed.values_list("content", flat=True)) == [
        "March is a bad month for payments", "Retries in payments cause duplicate charges"]


def test_importing_insights_twice_adds_none(api_client_for, alice, bob, alices_insights):
    data = api_export(api_client_for(alice))
    api_import(api_client_for(bob), data)
    api_import(api_client_for(bob), data)
    assert Insight.objects.filter(owner=bob).count() == 3


def test_a_file_from_before_insights_were_exported_still_imports(api_client_for, alice, bob,
                                                                  alices_insights):
    lines = [json.loads(line) for line in api_export(api_client_for(alice)).splitlines()]
    older = "".join(json.dumps({k: v for k, v in line.items() if k != "insight"}) + "\n"
                    for line in lines).encode()
    answer = api_import(api_client_for(bob), older)
    assert answer["skipped"] == 0 and answer["imported"]["memories"] == 5
    assert not Insight.objects.filter(owner=bob).exists()


def test_a_malformed_insight_is_a_bad_line(api_client_for, alice, bob, alices_insights):
    lines = [json.loads(line) for line in api_export(api_client_for(alice)).splitlines()]
    for line in lines:
        if line.get("insight"):
            line["insight"]["status"] = "blessed"
    answer = api_import(api_client_for(bob),
                         "".join(json.dumps(line) + "\n" for line in lines).encode())
    assert answer["skipped"] == 3
    assert all("status 'blessed'" in error["message"] for error in answer["errors"])


@pytest.mark.parametrize("field, value, told", [
    ("status", "blessed", "insight status 'blessed'"),
    ("importance", 99, "insight importance must be"),
    ("round", -1, "insight round must be"),
    ("created_at", "soon", "insight created_at 'soon'"),
    ("question", 5, "insight question must be text"),
    ("cited", ["nope"], "insight cited 'nope' is not an id"),
    ("reviewed", "yes", "insight reviewed must be"),
])
def test_a_malformed_insight_field_is_named_as_the_insights(api_client_for, alice, bob,
                                                            alices_insights, field, value,
                                                            told):
    # A memory line has its own status, importance and created_at: an error naming them
    # alone sent the reader to the memory's, which are fine.
    lines = [json.loads(line) for line in api_export(api_client_for(alice)).splitlines()]
    for line in lines:
        if line.get("insight"):
            line["insight"][field] = value
    answer = api_import(api_client_for(bob),
                         "".join(json.dumps(line) + "\n" for line in lines).encode())
    assert answer["skipped"] == 3
    assert all(told in error["message"] and "insight insight" not in error["message"]
               for error in answer["errors"]), answer["errors"]
