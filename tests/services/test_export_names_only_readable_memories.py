"""An export names no memory its owner no longer reads: a successor made private (or
moved to another project) since is null in the memory's line and in its versions, as in
the API, and a link to such a memory is left out. What they still read is named."""

import json

import pytest

from memories.models import LinkRelation, MemoryLink
from memories.services.transfer import export_lines
from tests.helpers import merged_out_of_sight

pytestmark = pytest.mark.django_db


def exported(owner) -> dict:
    """The owner's exported memory lines, by id."""
    lines = [json.loads(line) for line in export_lines(owner)]
    return {line["id"]: line for line in lines if "content" in line}


@pytest.fixture
def merge(team, alice, bob):
    resolved = merged_out_of_sight(team, alice, bob)
    MemoryLink.objects.create(from_memory=resolved.memory_a, to_memory=resolved.merged_into,
                              relation=LinkRelation.RELATED)
    return resolved


def test_a_successor_its_owner_no_longer_reads_is_not_named_in_their_export(alice, merge):
    line = exported(alice)[str(merge.memory_a_id)]
    assert str(merge.merged_into_id) not in json.dumps(line)
    assert line["superseded_by"] is None
    assert line["valid_to"] is not None  # still no longer true
    assert line["links"] == []


def test_a_successor_its_owner_reads_is_named(bob, merge):
    merged = str(merge.merged_into_id)
    line = exported(bob)[str(merge.memory_b_id)]
    assert line["superseded_by"] == merged
    assert merged in {v["after"].get("superseded_by") for v in line["versions"]}
