"""Erase: a memory and every copy of its text gone for good, with a receipt of ids."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from django.db import connection

from memories.capture.chunking import cut_into_chunks
from memories.engine.contradiction import pair_key
from memories.engine.dedup import content_hash
from memories.models import (
    Contradiction,
    Entity,
    Job,
    JobKind,
    JudgedPair,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    Observation,
    ObservationChunk,
    PurgeRecord,
    Relationship,
    Status,
    UsageEvent,
)
from memories.services.editing import give_feedback, update_memory
from memories.services.embeddings import embed_one
from memories.services.erasing import erase_memory
from memories.services.remembering import remember
from reflection.models import Insight, InsightStatus
from reflection.services import reflect

SECRET = "zorblaxvortex"  # in every copy of the erased text, and nowhere else
SENTENCE = f"The staging vault opens with the phrase {SECRET} quibble 4411."


def every_copy(needle: str) -> list[str]:
    """Every text, JSON, array and tsvector column of every table holding `needle`."""
    found = []
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema()
              AND (data_type IN ('text', 'character varying', 'json', 'jsonb', 'tsvector',
                                 'ARRAY', 'USER-DEFINED'))""")
        for table, column in cursor.fetchall():
            cursor.execute(f'SELECT count(*) FROM "{table}" WHERE "{column}"::text ILIKE %s',
                           [f"%{needle}%"])
            if cursor.fetchone()[0]:
                found.append(f"{table}.{column}")
    return found


def _observation(owner, messages, memory_ids_by_position):
    observation = Observation.objects.create(
        owner=owner, messages=[{"role": r, "text": t, "timestamp": None} for r, t in messages],
        payload_hash=os.urandom(16).hex())
    cut_into_chunks(observation)
    for position, ids in memory_ids_by_position.items():
        ObservationChunk.objects.filter(observation=observation, position=position).update(
            memory_ids=ids)
    return observation


@pytest.fixture
def story(alice):
    """Alice's secret memory with copies of its text everywhere Engram keeps text."""
    first = remember(owner=alice, content=f"The staging vault phrase is {SECRET} quibble.",
                     project="ops").memory
    secret = update_memory(first, by=alice, content=SENTENCE)  # the old text, a version
    other = remember(owner=alice, content="Deploys go out on Tuesdays after the review.",
                     project="ops").memory
    third = remember(owner=alice, content="The database backups run nightly at two.",
                     project="ops").memory
    # Its source: one observation that gave only it, one that gave another memory too.
    alone = _observation(alice, [("user", f"remember: {SENTENCE}")], {0: [secret.pk]})
    shared = _observation(alice, [("user", f"also {SENTENCE}"),
                                  ("assistant", "noted, and deploys are on Tuesdays")],
                          {0: [secret.pk, other.pk]})
    Memory.objects.filter(pk=secret.pk).update(metadata={
        "source": "observation", "observation": str(alone.pk), "chunk": 0})
    give_feedback(secret, signal="cited", agent_id="a")
    MemoryLink.objects.create(from_memory=secret, to_memory=other, relation=LinkRelation.RELATED)
    entity = Entity.objects.create(owner=alice, name=SECRET, canonical_name=SECRET)
    MemoryEntity.objects.create(memory=secret, entity=entity)
    backups = Entity.objects.create(owner=alice, name="backups", canonical_name="backups")
    MemoryEntity.objects.create(memory=third, entity=backups)
    Relationship.objects.create(owner=alice, source=entity, target=backups,
                                relationship_type="guards", source_memories=[secret.pk])
    Contradiction.objects.create(owner=alice, memory_a=secret, memory_b=third,
                                 reason=f"{SENTENCE} vs backups")
    JudgedPair.objects.create(owner=alice, pair_key=pair_key(secret.content_hash,
                                                             third.content_hash),
                              contradicts=True, reason=f"says {SECRET}", judged_by="model")
    summary = remember(owner=alice, content=f"Ops notes. {SENTENCE} Deploys on Tuesdays.",
                       project="ops", metadata={"consolidated_from": [str(secret.pk),
                                                                      str(other.pk)]}).memory
    # An insight quoting it word for word (a paraphrase would only be flagged).
    insight_memory = remember(owner=alice, content=f"Alice keeps secrets in memory: "
                              f"{SENTENCE}", is_synthetic=True).memory
    insight = Insight.objects.create(owner=alice, memory=insight_memory, question="why?",
                                     cited_ids=[secret.pk, other.pk], text_hash="t",
                                     cited_key="c", status=InsightStatus.APPROVED)
    job = Job.objects.create(owner=alice, kind=JobKind.FORGET, result={"examples": [
        {"id": str(secret.pk), "content": SENTENCE[:40] + "…"}]})
    return {"secret": secret, "other": other, "third": third, "alone": alone,
            "shared": shared, "summary": summary, "insight": insight, "job": job,
            "entity": entity, "backups": backups}


def test_erase_leaves_no_copy_of_the_text_anywhere(story, alice):
    assert len(every_copy(SECRET)) >= 8  # the story did put it everywhere
    secret = story["secret"]
    receipt = erase_memory(secret, by=alice)

    assert every_copy(SECRET) == [], every_copy(SECRET)
    assert every_copy("quibble") == []
    assert not Memory.objects.filter(pk=secret.pk).exists()
    removed = receipt["removed"]
    assert removed["memories"]["ids"] == [str(secret.pk)]
    assert removed["versions"]["count"] == 2  # created, then edited
    assert removed["usage_events"]["count"] == 1 and removed["links"]["count"] == 1
    assert removed["entities"]["ids"] == [str(story["entity"].pk)]
    assert removed["relationships"]["count"] == 1 and removed["contradictions"]["count"] == 1
    assert removed["judged_pairs"]["count"] == 1
    assert removed["observations"]["ids"] == [str(story["alone"].pk)]
    assert receipt["scrubbed"]["observations"]["ids"] == [str(story["shared"].pk)]
    assert {story["summary"].pk, story["insight"].memory_id} <= {
        __import__("uuid").UUID(i) for i in receipt["scrubbed"]["memories"]["ids"]}
    assert receipt["scrubbed"]["jobs"]["ids"] == [str(story["job"].pk)]
    assert receipt["flagged"]["summaries"]["ids"] == [str(story["summary"].pk)]
    assert receipt["flagged"]["insights"]["ids"] == [str(story["insight"].pk)]
    assert SECRET not in str(receipt) and "quibble" not in str(receipt)

    # What else was stored stays, with its own text and its provenance.
    shared_chunk = ObservationChunk.objects.get(observation=story["shared"], position=0)
    assert shared_chunk.memory_ids == [story["other"].pk] and shared_chunk.text == ""
    assert Memory.objects.filter(pk__in=[story["other"].pk, story["third"].pk]).count() == 2
    assert Entity.objects.filter(pk=story["backups"].pk).exists()
    story["insight"].refresh_from_db()
    assert story["insight"].status == InsightStatus.FLAGGED
    assert "erased" in story["insight"].flagged_reason
    assert "[erased]" in Memory.objects.get(pk=story["summary"].pk).content
    assert Memory.objects.get(pk=story["summary"].pk).metadata["needs_rewrite"]
    assert not UsageEvent.objects.filter(memory_id=secret.pk).exists()

    record = PurgeRecord.objects.get(memory_id=secret.pk)
    assert record.reason == "erase" and record.owner_id == alice.pk


def test_erase_is_recorded_without_content_even_for_a_plain_memory(alice):
    memory = remember(owner=alice, content=f"Just {SECRET} alone here.").memory
    receipt = erase_memory(memory)
    assert every_copy(SECRET) == []
    assert receipt["removed"]["observations"]["count"] == 0
    assert PurgeRecord.objects.filter(memory_id=memory.pk, reason="erase").count() == 1


def test_erasing_a_memory_that_superseded_another_keeps_the_other_ended(alice):
    old = remember(owner=alice, content="The release branch is main.").memory
    new = remember(owner=alice, content="The release branch is trunk now.").memory
    Memory.objects.filter(pk=old.pk).update(superseded_by=new)
    erase_memory(new)
    old.refresh_from_db()
    assert old.superseded_by_id is None and old.valid_to is not None
    assert old.validity == "superseded"


def test_purge_after_days_must_be_at_least_one():
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "-c", "import engram_site.settings"], cwd=root,
        env={**os.environ, "ENGRAM_PURGE_AFTER_DAYS": "0"}, capture_output=True, text=True,
        timeout=60, check=False)
    assert run.returncode != 0
    assert "ENGRAM_PURGE_AFTER_DAYS=0 is outside 1..36500" in run.stderr


def test_a_copy_left_with_nothing_but_erased_is_deleted_and_a_quote_re_embedded(
        alice, django_capture_on_commit_callbacks):
    secret = remember(owner=alice, content=SENTENCE, project="ops").memory
    copy = remember(owner=alice, content=SENTENCE, project="blog").memory  # another space
    quote = remember(owner=alice, content=f"Ops notes. {SENTENCE} Deploys on Tuesdays.",
                     project="ops").memory
    with django_capture_on_commit_callbacks(execute=True):
        receipt = erase_memory(secret, by=alice)

    copy.refresh_from_db()
    assert (copy.content, copy.status) == ("[erased]", Status.DELETED)
    assert copy.versions.filter(after={"status": "deleted"}).exists()
    assert receipt["flagged"]["emptied"]["ids"] == [str(copy.pk)]
    quote.refresh_from_db()
    assert quote.status == Status.ACTIVE and "Deploys on Tuesdays" in quote.content
    # its vector and hash are those of the text left, not of the erased words
    assert quote.content_hash == content_hash(quote.content)
    expected, _ = embed_one(quote.content)
    assert float(np.dot(quote.embedding, expected)) > 0.999


def test_an_insight_quoting_a_clause_of_it_keeps_no_piece_of_it(alice, settings):
    settings.ENGRAM_LLM_PROVIDER = "rules"
    remember(owner=alice, content="CI failed with ModuleNotFoundError: No module named "
             "'psycopg' after the cache was cleared", kind="error")
    secret = remember(owner=alice, content="pytest fails with ModuleNotFoundError: No module "
                      f"named 'psycopg'; pinning psycopg[binary]==3.2.1 with {SECRET} fixed it",
                      kind="error").memory
    reflect(owner=alice)
    insight = Insight.objects.get(cited_ids__contains=[secret.pk])
    # The rules quote its clauses, cut at the ";": no sentence of it, word for word.
    assert SECRET in insight.memory.content and SENTENCE not in insight.memory.content

    erase_memory(secret, by=alice)

    assert every_copy(SECRET) == [] and every_copy("3.2.1") == []
    insight.refresh_from_db()
    assert insight.status == InsightStatus.FLAGGED
    assert insight.memory.content.startswith("Recurring error: ModuleNotFoundError")
    assert '"[erased]"' in insight.memory.content
