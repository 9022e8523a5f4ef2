"""Engram's export is lossless: a populated owner, exported and imported into an empty
one, reads the same field by field (ids and owner aside), and importing it again adds
nothing."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import (
    Entity,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryVersion,
    Relationship,
    Status,
)
from memories.services.editing import delete_memory, give_feedback, update_memory
from memories.services.remembering import remember
from memories.services.transfer import export_lines, import_jsonl

pytestmark = pytest.mark.django_db

UNCOMPARED = {"id", "owner_id", "embedding", "embedding_model", "search_vector"}


def populate(owner):
    """Something of everything a memory and the graph around it can hold."""
    now = timezone.now()
    pinned = remember(owner=owner, content="Deploys go out on Tuesdays after standup",
                      tags=["ops", "release"], project="lighthouse", agent_id="claude",
                      session_id="s1", kind="decision", metadata={"source": "chat"}).memory
    neighbour = remember(owner=owner, content="The staging database listens on port 5433",
                         project="lighthouse", session_id="s1").memory  # linked to the first
    update_memory(pinned, by=owner, content="Deploys go out on Wednesdays after standup",
                  pinned=True, importance=9)
    remember(owner=owner, content="The staging database listens on port 5433",
             project="lighthouse", agent_id="cursor")  # strengthens: a reinforced version
    give_feedback(neighbour, signal="harmful", agent_id="claude")
    old = remember(owner=owner, content="The CI runs on Jenkins").memory
    new = remember(owner=owner, content="The CI runs on GitHub Actions since May").memory
    Memory.objects.filter(pk=old.pk).update(superseded_by=new, valid_to=now)
    expiring = remember(owner=owner, content="The release freeze lasts until Friday",
                        expires_at=now + timedelta(days=2)).memory
    Memory.objects.filter(pk=expiring.pk).update(expires_at=now - timedelta(hours=1))
    archived = remember(owner=owner, content="Old laptop used Ubuntu 20.04").memory
    update_memory(archived, by=owner, status=Status.ARCHIVED)
    Memory.objects.filter(pk=archived.pk).update(
        summary="Ubuntu 20.04 laptop", compressed="laptop: ubuntu 20.04",
        index_key="laptop-os", access_count=4, is_synthetic=True,
        last_accessed_at=now - timedelta(days=3))
    MemoryLink.objects.create(from_memory=new, to_memory=pinned,
                              relation=LinkRelation.ELABORATES, strength=0.7)
    gone = remember(owner=owner, content="A memory deleted before the export").memory
    MemoryLink.objects.create(from_memory=pinned, to_memory=gone,
                              relation=LinkRelation.RELATED)
    delete_memory(gone, by=owner)
    graph = (json.dumps({"type": "entity", "name": "Maya Okafor", "entityType": "person",
                         "observations": ["Leads the Lighthouse project"]}) + "\n"
             + json.dumps({"type": "entity", "name": "Lighthouse", "entityType": "project",
                           "observations": []}) + "\n"
             + json.dumps({"type": "relation", "from": "Maya Okafor", "to": "Lighthouse",
                           "relationType": "maintains"}) + "\n")
    import_jsonl(owner, graph.encode())
    Relationship.objects.filter(owner=owner).update(source_memories=[pinned.pk],
                                                    strength=0.6, valid_to=now)
    MemoryEntity.objects.create(memory=pinned, entity=Entity.objects.get(
        owner=owner, name="Lighthouse"))
    Entity.objects.filter(owner=owner, name="Lighthouse").update(
        properties={"aliases": ["LH"]})


def snapshot(owner) -> dict:
    """The owner's store, every field but ids and owner; references by content or name."""
    memories = Memory.objects.for_owner(owner).visible().select_related("superseded_by")
    content = {m.pk: m.content for m in memories}
    rows = {}
    for memory in memories:
        row = {f.attname: getattr(memory, f.attname) for f in Memory._meta.concrete_fields
               if f.attname not in UNCOMPARED | {"superseded_by_id"}}
        row["superseded_by"] = content.get(memory.superseded_by_id)
        row["versions"] = [
            (v.change, v.changed_at, v.changed_by_id is not None, v.agent_id, v.before,
             v.after) for v in MemoryVersion.objects.filter(memory=memory)]
        row["links"] = sorted(
            (content.get(link.to_memory_id), link.relation, link.strength, link.created_at)
            # Deleted memories stay out of an export, and the links to them.
            for link in MemoryLink.objects.filter(from_memory=memory)
            .exclude(to_memory__status=Status.DELETED))
        row["entities"] = sorted(memory.entities.values_list("canonical_name", flat=True))
        rows[memory.content] = row
    entities = {e.canonical_name: {f.attname: getattr(e, f.attname)
                                   for f in Entity._meta.concrete_fields
                                   if f.attname not in UNCOMPARED}
                for e in Entity.objects.for_owner(owner)}
    edges = sorted(
        (r.source.canonical_name, r.relationship_type, r.target.canonical_name, r.strength,
         r.valid_from, r.valid_to, sorted(content[pk] for pk in r.source_memories),
         r.created_at, r.updated_at)
        for r in Relationship.objects.for_owner(owner).select_related("source", "target"))
    return {"memories": rows, "entities": entities, "relationships": edges}


def export(owner) -> bytes:
    return "".join(export_lines(owner)).encode()


def test_an_export_imported_into_an_empty_owner_reads_the_same_field_by_field(alice, bob):
    populate(alice)
    original = snapshot(alice)
    assert len(original["memories"]) == 7 and original["relationships"]
    report = import_jsonl(bob, export(alice))
    assert report.bad == []
    restored = snapshot(bob)
    for content, row in original["memories"].items():
        assert restored["memories"].get(content) == row, content
    assert restored == original


def test_the_export_says_what_it_holds(alice):
    populate(alice)
    records = [json.loads(line) for line in export_lines(alice)]
    kinds = [r.get("record", "memory") for r in records]
    assert kinds == ["entity"] * 2 + ["memory"] * 7 + ["relationship"]
    pinned = next(r for r in records if r.get("pinned"))
    assert [v["change"] for v in pinned["versions"]] == ["created", "updated"]
    assert pinned["links"] == []  # its link to the deleted memory left with it
    neighbour = next(r for r in records if r.get("content", "").startswith("The staging"))
    assert [(link["to"], link["relation"]) for link in neighbour["links"]] == [
        (pinned["id"], "related")]
    assert neighbour["harmful_count"] == 1 and neighbour["helpful_count"] == 1


def test_importing_an_export_twice_adds_nothing(alice, bob):
    populate(alice)
    data = export(alice)
    import_jsonl(bob, data)
    once = snapshot(bob)
    again = import_jsonl(bob, data)
    assert (again.created, again.strengthened, again.entities, again.relationships) == (
        0, 0, 0, 0)
    assert snapshot(bob) == once
    # what was found stored is said, not left out of the count
    stored = Memory.objects.for_owner(bob).count()
    assert stored > 0 and again.already_stored == stored
    assert again.as_dict()["already_stored"] == stored


def test_an_export_restored_into_its_own_owner_changes_nothing(alice):
    populate(alice)
    before = snapshot(alice)
    report = import_jsonl(alice, export(alice))
    assert (report.created, report.entities, report.relationships) == (0, 0, 0)
    assert snapshot(alice) == before
