"""Open contradictions reach the agent: the disputed memory is marked, and critical."""

import json

from memories.maintenance.contradictions import resolve_contradiction
from memories.services.context import assemble_context
from memories.services.remembering import remember
from memories.models import Contradiction, UsageEvent


def disputed(owner):
    old = remember(owner=owner, content="The orders API listens on port 8080",
                            kind="fact").memory
    new = remember(owner=owner, content="The orders API listens on port 9090",
                            kind="fact").memory
    return Contradiction.objects.create(owner=owner, memory_a=old, memory_b=new,
                                        detected_by="rules")


def test_a_disputed_memory_goes_to_the_critical_tier_with_a_note(alice):
    contradiction = disputed(alice)
    built = assemble_context(owner=alice, query="which port does the orders API use?",
                                      max_tokens=4000, fmt="json", track=False)
    shown = json.loads(built.context)["memories"]
    by_id = {str(hit.memory.pk): shown[ref - 1] for ref, hit in enumerate(built.used, 1)}
    a, b = contradiction.memory_a_id, contradiction.memory_b_id
    assert by_id[str(a)]["tier"] == by_id[str(b)]["tier"] == "critical"
    assert f"contradicts memory {b.hex[-8:]}" in by_id[str(a)]["content"]
    assert f"contradicts memory {a.hex[-8:]}" in by_id[str(b)]["content"]


def test_a_resolved_contradiction_is_no_longer_flagged(alice):
    contradiction = disputed(alice)
    resolve_contradiction(contradiction, resolution="both_valid")
    built = assemble_context(owner=alice, query="which port does the orders API use?",
                                      max_tokens=500, track=False)
    assert "Disputed" not in built.context


def test_a_small_context_still_says_the_memory_is_disputed(alice):
    disputed(alice)
    built = assemble_context(owner=alice, query="which port does the orders API use?",
                                      max_tokens=500, track=False)
    assert "(Disputed: contradicts memory" in built.context


def test_a_preview_records_no_retrieval(alice):
    disputed(alice)
    assemble_context(owner=alice, query="which port does the orders API use?",
                              session_id="s-1", track=False)
    assert not UsageEvent.objects.exists()
    assemble_context(owner=alice, query="which port does the orders API use?",
                              session_id="s-1")
    assert UsageEvent.objects.exists()
