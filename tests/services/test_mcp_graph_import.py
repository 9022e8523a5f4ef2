"""Importing the MCP memory server's knowledge graph: entities, each observation a memory
linked to its entity, relations as relationships; idempotent; bad lines reported by
number and skipped."""

import json
from pathlib import Path

import pytest

from memories.models import (
    Entity,
    EntityType,
    Memory,
    MemoryEntity,
    MemoryVersion,
    Relationship,
)
from memories.services.remembering import remember
from memories.services.transfer import ENGRAM, MCP_MEMORY, detect_format, import_jsonl

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent.parent / "fixtures" / "mcp_memory_graph.jsonl"


def graph_file() -> bytes:
    return FIXTURE.read_bytes()


def lines(*records) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                   for r in records).encode()


def entity(name, entity_type="person", *observations) -> dict:
    return {"type": "entity", "name": name, "entityType": entity_type,
            "observations": list(observations)}


def relation(source, relation_type, target) -> dict:
    return {"type": "relation", "from": source, "to": target, "relationType": relation_type}


def edges(owner) -> set[tuple[str, str, str]]:
    return {(r.source.name, r.relationship_type, r.target.name)
            for r in Relationship.objects.for_owner(owner).select_related("source", "target")}


def test_the_fixture_imports_its_entities_observations_and_relations(alice):
    report = import_jsonl(alice, graph_file())
    assert report.as_dict()["imported"] == {"memories": 19, "entities": 10,
                                            "relationships": 10, "contradictions": 0}
    assert Entity.objects.for_owner(alice).count() == 10
    assert Memory.objects.for_owner(alice).count() == 19
    maya = Entity.objects.get(owner=alice, name="Maya Okafor")
    assert maya.entity_type == EntityType.PERSON and maya.mention_count == 3
    assert sorted(maya.memories.values_list("content", flat=True)) == [
        "Maya Okafor: Lead maintainer of Lighthouse since 2023",
        "Maya Okafor: Prefers squash merges over rebasing",
        "Maya Okafor: Works from Lagos, UTC+1"]
    assert ("Maya Okafor", "mentors", "Priya Natarajan") in edges(alice)


def test_free_text_entity_types_map_to_the_nearest_and_the_original_is_kept(alice):
    import_jsonl(alice, graph_file())
    types = dict(Entity.objects.for_owner(alice).values_list("name", "entity_type"))
    assert (types["PostgreSQL"], types["Acme Hosting"], types["Release 3.0"],
            types["Lighthouse"], types["GitHub Actions"]) == (
        EntityType.TECHNOLOGY, EntityType.ORGANIZATION, EntityType.EVENT,
        EntityType.PROJECT, EntityType.TECHNOLOGY)
    assert Entity.objects.get(owner=alice, name="Acme Hosting").properties == {
        "source_type": "company"}


def test_a_relation_before_its_entities_is_kept(alice):
    import_jsonl(alice, graph_file())  # line 3 names Acme Hosting, which line 6 defines
    assert ("Lighthouse", "hosted_on", "Acme Hosting") in edges(alice)


def test_importing_the_same_file_twice_adds_nothing(alice):
    import_jsonl(alice, graph_file())
    before = (Memory.objects.count(), Entity.objects.count(), Relationship.objects.count(),
              MemoryEntity.objects.count(), MemoryVersion.objects.count(),
              sorted(Memory.objects.values_list("helpful_count", flat=True)))
    again = import_jsonl(alice, graph_file()).as_dict()
    assert again["imported"] == {"memories": 0, "entities": 0,
                                 "relationships": 0, "contradictions": 0}
    assert again["strengthened"] == 0
    assert (Memory.objects.count(), Entity.objects.count(), Relationship.objects.count(),
            MemoryEntity.objects.count(), MemoryVersion.objects.count(),
            sorted(Memory.objects.values_list("helpful_count", flat=True))) == before


def test_bad_lines_are_reported_with_their_numbers_and_the_rest_imported(alice):
    errors = import_jsonl(alice, graph_file()).as_dict()["errors"]
    assert [error["line"] for error in errors] == [8, 14, 19]
    assert errors[0]["message"].startswith("not valid JSON")
    assert errors[1]["message"] == ("observation 2: The text contains a NUL character, "
                                    "which cannot be stored. Skipped.")
    assert "'Jordan Blake'" in errors[2]["message"]
    assert not Entity.objects.filter(name__in=["Slack notifier", "Jordan Blake"]).exists()
    assert Entity.objects.get(name="Priya Natarajan").memories.count() == 1


def test_a_lone_surrogate_in_an_observation_is_reported_and_not_stored(alice):
    report = import_jsonl(alice, lines(
        '{"type":"entity","name":"Ana","entityType":"person",'
        '"observations":["Likes tea \\ud800","Drinks coffee at nine"]}'))
    assert report.bad == [(1, ("observation 1: The text contains a lone surrogate: it is "
                               "not valid Unicode. Skipped."))]
    assert list(Memory.objects.values_list("content", flat=True)) == [
        "Ana: Drinks coffee at nine"]


@pytest.mark.parametrize("record, message", [
    ([1, 2], "the line is not a JSON object"),
    ({"type": "person", "name": "Ana"}, "type 'person' is not entity or relation"),
    ({"name": "Ana", "observations": []}, "type None is not entity or relation"),
    ({"type": "entity", "entityType": "person"}, "name is missing or empty"),
    ({"type": "entity", "name": "   "}, "name is missing or empty"),
    ({"type": "entity", "name": "?!"}, "name '?!' has no letters or digits"),
    ({"type": "entity", "name": 5}, "name must be text"),
    ({"type": "entity", "name": "Ana", "observations": "likes tea"},
     "observations must be a list of texts"),
    ({"type": "entity", "name": "Ana", "observations": [7]},
     "observation 1 is not text: skipped"),
    ({"type": "entity", "name": "A" * 201}, "name has 201 characters; the limit is 200"),
    ({"type": "relation", "from": "Ana", "to": "Ana", "relationType": "x" * 51},
     "relationType has 51 characters; the limit is 50"),
    ({"type": "relation", "from": "Ana", "to": "Ana"}, "relationType is missing or empty"),
])
def test_a_line_of_the_wrong_shape_is_a_bad_line_with_its_reason(alice, record, message):
    report = import_jsonl(alice, lines(entity("Ana", "person", "Likes tea"), record))
    assert report.bad == [(2, message)]
    assert Entity.objects.get(owner=alice, name="Ana").memories.count() == 1


def test_a_relation_may_name_an_entity_stored_by_an_earlier_import(alice):
    import_jsonl(alice, lines(entity("Ana", "person", "Likes tea")))
    report = import_jsonl(alice, lines(entity("Ben", "person", "Likes coffee"),
                                       relation("ben", "knows", "ANA")))
    assert report.bad == [] and report.relationships == 1
    assert edges(alice) == {("Ben", "knows", "Ana")}


def test_an_entity_already_stored_is_matched_by_name_and_keeps_its_type(alice):
    first = import_jsonl(alice, lines(entity("PostgreSQL", "database", "Runs version 16")))
    second = import_jsonl(alice, lines(entity("postgresql", "concept", "Listens on 5433")))
    assert (first.entities, second.entities) == (1, 0)
    stored = Entity.objects.get(owner=alice)
    assert (stored.name, stored.entity_type, stored.mention_count) == (
        "PostgreSQL", EntityType.TECHNOLOGY, 2)


def test_an_observation_already_remembered_is_linked_not_stored_again(alice):
    remember(owner=alice, content="Ana: Likes green tea")
    report = import_jsonl(alice, lines(entity("Ana", "person", "Likes green tea")))
    assert (report.created, report.strengthened) == (0, 0)
    (memory,) = Memory.objects.for_owner(alice)
    assert list(memory.entities.values_list("name", flat=True)) == ["Ana"]


def test_the_callers_project_applies_to_every_imported_memory(alice):
    import_jsonl(alice, graph_file(), project="lighthouse")
    assert set(Memory.objects.for_owner(alice).values_list("project", flat=True)) == {
        "lighthouse"}


def test_another_owners_entities_are_neither_matched_nor_touched(alice, bob):
    import_jsonl(bob, lines(entity("Jordan Blake", "person", "Runs the design team")))
    report = import_jsonl(alice, graph_file())
    assert [line for line, _ in report.bad] == [8, 14, 19]  # Jordan Blake is bob's alone
    bobs = Entity.objects.get(owner=bob)
    assert (bobs.mention_count, Memory.objects.for_owner(bob).count()) == (1, 1)
    assert not Entity.objects.for_owner(alice).filter(name="Jordan Blake").exists()


def test_the_format_is_told_from_the_first_line_that_parses():
    graph = graph_file().splitlines(keepends=True)
    assert detect_format([b"{broken\n", b"\n", *graph]) == MCP_MEMORY
    assert detect_format([b'{"content": "The build uses make"}\n', *graph]) == ENGRAM
    assert detect_format([b'{"type": "semantic", "content": "x"}\n']) == ENGRAM
