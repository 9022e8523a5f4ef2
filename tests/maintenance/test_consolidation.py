"""Consolidation: duplicates merge, clusters become one cited summary, nothing is deleted."""

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from memories.capture.entities import link_entities
from memories.engine.extraction import ExtractedMemory
from memories.maintenance import consolidation
from memories.maintenance.consolidation import consolidate
from memories.models import (
    LinkRelation,
    Memory,
    MemoryLink,
    ModelCall,
    Status,
    UsageEvent,
    UsageKind,
)
from memories.services.remembering import remember
from tests.helpers import anthropic_error, anthropic_reply

NOW = timezone.now()
REDIS_NOTES = [
    "The session cache runs on Redis 7 with a one hour TTL.",
    "Sessions are cached in Redis 7, expiring after one hour.",
    "Redis 7 holds the session cache; entries expire after an hour.",
]


def old(owner, content, *, days=60, **fields):
    memory = remember(owner=owner, content=content, **fields).memory
    then = NOW - timedelta(days=days)
    Memory.objects.filter(pk=memory.pk).update(created_at=then, last_accessed_at=then,
                                               valid_from=then)
    return Memory.objects.get(pk=memory.pk)


def copy_past_dedup(memory, *, days=80):
    """A copy of `memory` in its own scope that slipped past dedup (as an import might)."""
    then = NOW - timedelta(days=days)
    return Memory.objects.create(
        owner=memory.owner, content=memory.content.lower(), content_hash=memory.content_hash,
        scope=memory.scope, shared_with=memory.shared_with, project=memory.project,
        embedding=memory.embedding, embedding_model=memory.embedding_model,
        created_at=then, valid_from=then)


@pytest.fixture
def cluster(alice, settings):
    settings.ENGRAM_DEDUP_THRESHOLD = 0.99  # let the near-repeats be stored as three rows
    notes = [old(alice, text, importance=imp) for text, imp in zip(REDIS_NOTES, (4, 6, 5),
                                                                    strict=True)]
    Memory.objects.filter(pk=notes[0].pk).update(access_count=3)
    Memory.objects.filter(pk=notes[1].pk).update(access_count=2)
    return [Memory.objects.get(pk=n.pk) for n in notes]


def test_a_cluster_becomes_one_summary_that_cites_its_archived_originals(alice, cluster):
    unrelated = old(alice, "Invoices are generated on the first of the month.")
    report = consolidate(owner=alice, now=NOW)
    assert report["clusters"] == 1 and report["archived"] == 3
    summary = Memory.objects.get(metadata__consolidated_from__isnull=False)
    assert summary.memory_type == "semantic"
    assert summary.importance == pytest.approx(0.9 * 6)
    assert summary.access_count == 5
    assert "Redis 7" in summary.content
    for original in cluster:
        original.refresh_from_db()
        assert original.status == Status.ARCHIVED
        assert MemoryLink.objects.filter(from_memory=original, to_memory=summary,
                                         relation=LinkRelation.CONSOLIDATED_INTO).exists()
    assert Memory.objects.get(pk=unrelated.pk).status == Status.ACTIVE
    assert Memory.objects.count() == 5  # nothing deleted


def test_exact_duplicates_merge_first_into_the_oldest(alice, settings):
    first = old(alice, "Deploys go through the staging cluster first.", days=90)
    copy_past_dedup(first)
    report = consolidate(owner=alice, now=NOW)
    assert report["deduplicated"] == 1
    first.refresh_from_db()
    assert first.status == Status.ACTIVE and first.helpful_count == 1
    assert Memory.objects.filter(status=Status.ARCHIVED).count() == 1


def test_a_dry_run_reports_what_would_happen_and_changes_nothing(alice, cluster):
    report = consolidate(owner=alice, now=NOW, dry_run=True)
    assert (report["clusters"], report["archived"]) == (1, 3)
    assert report["tokens_saved"] > 0
    assert Memory.objects.filter(status=Status.ACTIVE).count() == 3
    assert not MemoryLink.objects.exists()


def test_consolidating_twice_changes_nothing_the_second_time(alice, cluster):
    consolidate(owner=alice, now=NOW)
    state = sorted(Memory.objects.values_list("pk", "status"))
    report = consolidate(owner=alice, now=NOW)
    assert (report["clusters"], report["deduplicated"], report["links_added"]) == (0, 0, 0)
    assert sorted(Memory.objects.values_list("pk", "status")) == state


def test_a_run_killed_mid_cluster_leaves_no_half_written_cluster(alice, cluster,
                                                                  monkeypatch):
    real_archive = consolidation._archive_into

    def killed(*args, **kwargs):
        raise KeyboardInterrupt("worker killed")

    monkeypatch.setattr(consolidation, "_archive_into", killed)
    with pytest.raises(KeyboardInterrupt):
        consolidate(owner=alice, now=NOW)
    assert Memory.objects.count() == 3  # the summary's insert was rolled back
    assert Memory.objects.filter(status=Status.ACTIVE).count() == 3
    monkeypatch.setattr(consolidation, "_archive_into", real_archive)
    consolidate(owner=alice, now=NOW)  # restarted
    assert Memory.objects.filter(status=Status.ARCHIVED).count() == 3
    assert Memory.objects.filter(status=Status.ACTIVE).count() == 1


def test_pinned_and_recent_memories_are_left_alone_by_the_age_strategy(alice, cluster):
    Memory.objects.filter(pk=cluster[0].pk).update(pinned=True)
    Memory.objects.filter(pk=cluster[1].pk).update(created_at=NOW - timedelta(days=1))
    report = consolidate(owner=alice, now=NOW)
    assert report["clusters"] == 0
    assert Memory.objects.filter(status=Status.ARCHIVED).count() == 0


def test_old_episodes_get_their_compression_levels(alice):
    episode = old(alice, "Debugged the login flow: the CSRF cookie was missing its "
                         "SameSite attribute, so Safari dropped it. Set SameSite=Lax and "
                         "the login works again.", days=40, memory_type="episodic")
    week_old = old(alice, "Paired on the search page layout today.", days=10,
                   memory_type="episodic")
    consolidate(owner=alice, now=NOW)
    episode.refresh_from_db()
    week_old.refresh_from_db()
    assert episode.summary and episode.compressed and episode.index_key
    assert week_old.summary and not week_old.index_key


def test_neighbours_close_in_meaning_get_related_links(alice):
    a = old(alice, "The billing service sends invoices through Stripe.", days=1)
    b = old(alice, "Stripe webhooks tell billing when an invoice is paid.", days=1)
    consolidate(owner=alice, now=NOW)
    assert MemoryLink.objects.filter(relation=LinkRelation.RELATED).filter(
        from_memory__in=[a, b], to_memory__in=[a, b]).exists()


def test_usage_promotes_cited_memories_and_demotes_ignored_ones(alice):
    cited = old(alice, "Use the read replica for reports.", days=1, importance=5)
    ignored = old(alice, "The office plant needs water on Mondays.", days=1, importance=5)
    for memory, kind in ((cited, UsageKind.CITED), (ignored, UsageKind.IGNORED)):
        for _ in range(3):
            UsageEvent.objects.create(memory=memory, owner=alice, kind=UsageKind.RETRIEVED,
                                      created_at=NOW - timedelta(hours=2))
            UsageEvent.objects.create(memory=memory, owner=alice, kind=kind,
                                      created_at=NOW - timedelta(hours=1))
    consolidate(owner=alice, now=NOW)
    assert Memory.objects.get(pk=cited.pk).importance > 5
    assert Memory.objects.get(pk=ignored.pk).importance < 5


def test_the_api_answers_a_dry_run_at_once_and_queues_a_real_run(
        alice, bob, cluster, api_client_for, django_capture_on_commit_callbacks):
    client = api_client_for(alice)
    dry = client.post("/api/v1/memories/consolidate", {"dry_run": True}, format="json")
    assert dry.status_code == 200
    assert dry.json()["result"]["archived"] == 3 and dry.json()["status"] == "done"
    with django_capture_on_commit_callbacks(execute=True):
        real = client.post("/api/v1/memories/consolidate", {"strategy": "age_based"},
                           format="json")
    assert real.status_code == 202
    job = client.get(f"/api/v1/jobs/{real.json()['id']}").json()
    assert job["status"] == "done" and job["result"]["clusters"] == 1
    assert api_client_for(bob).get(f"/api/v1/jobs/{real.json()['id']}").status_code == 404
    assert client.post("/api/v1/memories/consolidate", {"strategy": "random"},
                       format="json").status_code == 400


def test_the_command_takes_a_strategy_and_a_dry_run(alice, cluster, capsys):
    call_command("consolidate", "--dry-run", "--strategy", "importance_based")
    report = json.loads(capsys.readouterr().out)
    assert report["strategy"] == "importance_based" and report["dry_run"] is True
    assert Memory.objects.filter(status=Status.ACTIVE).count() == 3


def summary_reply(text):
    return anthropic_reply({"summary": text}, 90, 20)


def test_a_configured_model_writes_the_summary_and_its_call_is_logged(alice, cluster,
                                                                      settings, fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    fake_anthropic.answer(summary_reply("Sessions are cached in Redis 7 for one hour."))
    consolidate(owner=alice, now=NOW)
    assert fake_anthropic.call_count == 1
    assert "Redis 7 holds the session cache" in fake_anthropic.last.body.decode()
    summary = Memory.objects.get(metadata__consolidated_from__isnull=False)
    assert summary.content == "Sessions are cached in Redis 7 for one hour."
    assert summary.metadata["summarised_by"] == "anthropic"
    assert ModelCall.objects.get().purpose == "summarize"


def test_a_failing_model_leaves_the_summary_to_the_rules(alice, cluster, settings,
                                                         fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    fake_anthropic.always(anthropic_error(500, "Internal server error"))
    report = consolidate(owner=alice, now=NOW)
    assert report["clusters"] == 1
    summary = Memory.objects.get(metadata__consolidated_from__isnull=False)
    assert summary.metadata["summarised_by"] == "rules" and "Redis 7" in summary.content


def test_memories_naming_the_same_entity_get_related_links(alice):
    a = old(alice, "The nightly export job writes CSV files.", days=1)
    b = old(alice, "Finance reads the files every morning at nine.", days=1)
    for memory in (a, b):
        link_entities(memory, ExtractedMemory.model_validate({
            "content": memory.content, "entities": [{"name": "nightly export"}]}), now=NOW)
    report = consolidate(owner=alice, now=NOW)
    assert report["links_added"] >= 1
    link = MemoryLink.objects.get(relation=LinkRelation.RELATED)
    assert {link.from_memory_id, link.to_memory_id} == {a.pk, b.pk}
    assert consolidate(owner=alice, now=NOW)["links_added"] == 0


def test_a_run_clusters_a_bounded_share_of_a_large_backlog(alice, cluster, monkeypatch):
    monkeypatch.setattr(consolidation, "CONSOLIDATION_BATCH", 2)
    first = consolidate(owner=alice, now=NOW)
    assert first["candidates"] == 2
    second = consolidate(owner=alice, now=NOW)
    assert second["candidates"] >= 1
    assert Memory.objects.filter(status=Status.ARCHIVED).count() >= 2


def test_the_nightly_merge_keeps_a_reversed_direction_and_merges_a_true_repeat(alice, settings):
    settings.ENGRAM_DEDUP_THRESHOLD = 1.01  # store every one, so the nightly merge decides
    there = old(alice, "Replicate the orders database from us-east-1 to eu-west-1.", days=90)
    back = old(alice, "Replicate the orders database from eu-west-1 to us-east-1.", days=80)
    must = old(alice, "Every admin must enable 2FA on their account.", days=90)
    may = old(alice, "Every admin may enable 2FA on their account.", days=80)
    first = old(alice, "Use pytest for the unit tests.", days=90)
    repeat = old(alice, "For the unit tests, use pytest.", days=80)
    report = consolidate(owner=alice, now=NOW, dry_run=True)
    assert report["deduplicated"] == 1  # the repeat, and only it
    consolidate(owner=alice, now=NOW)
    for memory in (there, back, must, may, first, repeat):
        memory.refresh_from_db()
    assert repeat.status == Status.ARCHIVED and first.helpful_count == 1
    # a merge strengthens the keeper: none of the four facts was taken for a repeat
    assert [m.helpful_count for m in (there, back, must, may)] == [0, 0, 0, 0]
