"""Insights into the store: counts, activity over time, the forgetting curve, and a
graph of memories, links and entities; all of it one's own, all of it aggregated in SQL."""

import json
import math
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memories.models import (
    Entity,
    LinkRelation,
    Memory,
    MemoryEntity,
    MemoryLink,
    UsageEvent,
    UsageKind,
)
from memories.services.editing import delete_memory
from memories.services.recall import record_retrieval
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

STATS = "/stats/"


def json_of(page: str, element_id: str) -> dict:
    start = page.index(f'<script id="{element_id}" type="application/json">')
    return json.loads(page[page.index(">", start) + 1:page.index("</script>", start)])


def many(owner, n, **fields):
    return Memory.objects.bulk_create(
        Memory(owner=owner, content=f"memory number {i}", content_hash=f"{owner.pk}-{i}",
               **fields) for i in range(n))


@pytest.fixture
def store(alice, bob):
    now = timezone.now()
    first = remember(owner=alice, content="Deploys go out on Tuesdays",
                              memory_type="procedural", kind="workflow").memory
    second = remember(owner=alice, content="The release manager is Dana").memory
    remember(owner=alice, content="The release manager is Dana")  # merged
    gone = remember(owner=alice, content="Lunch was pizza", memory_type="episodic",
                             kind="episode").memory
    delete_memory(gone, by=alice)
    record_retrieval(owner=alice, memories=[first], now=now)
    UsageEvent.objects.create(memory=first, owner=alice, kind=UsageKind.RETRIEVED,
                              created_at=now - timedelta(days=2))
    MemoryLink.objects.create(from_memory=first, to_memory=second,
                              relation=LinkRelation.RELATED)
    dana = Entity.objects.create(owner=alice, name="Dana", canonical_name="dana",
                                 entity_type="person")
    MemoryEntity.objects.create(memory=second, entity=dana)
    remember(owner=bob, content="Bob's secret recipe uses saffron")
    return {"first": first, "second": second, "dana": dana}


def test_it_is_routed_under_its_name():
    assert reverse("stats") == STATS


def test_its_old_address_leads_there_with_the_query_kept(signed_in):
    response = signed_in.get("/insights/", {"days": 30})
    assert response.status_code == 301
    assert response["Location"] == f"{STATS}?days=30"


def test_it_counts_by_type_kind_and_status(signed_in, store):
    page = signed_in.get(STATS).content.decode()
    charts = json_of(page, "insight-charts")
    by_type = dict(zip(charts["memory_type"]["labels"],
                       charts["memory_type"]["series"][0]["values"], strict=True))
    by_status = dict(zip(charts["status"]["labels"], charts["status"]["series"][0]["values"],
                         strict=True))
    assert by_type == {"episodic": 1, "semantic": 1, "procedural": 1}
    assert by_status == {"active": 2, "archived": 0, "deleted": 1}
    assert "<strong>2</strong> memories" in page and "1 forgotten" in page


def test_it_shows_the_share_never_retrieved_and_the_duplicates_merged(signed_in, store):
    page = signed_in.get(STATS).content.decode()
    assert "<strong>50%</strong> never retrieved" in page and "(1 of 2)" in page
    assert "<strong>1</strong> duplicates merged" in page


def test_activity_counts_created_retrieved_and_forgotten(signed_in, store):
    page = signed_in.get(STATS, {"days": 30}).content.decode()
    activity = json_of(page, "activity-charts")
    created = activity["created"]
    assert len(created["labels"]) == 30 and created["series"][0]["values"][-1] == 3
    assert created["series"][1]["values"][-1] == 2  # the store's size, as the heading's
    retrieved = activity["retrieved"]["series"][0]["values"]
    assert retrieved[-1] == 1 and retrieved[-3] == 1 and sum(retrieved) == 2
    assert sum(activity["forgotten"]["series"][0]["values"]) == 1


def test_the_stores_size_leaves_the_forgotten_out_as_the_heading_does(signed_in, alice):
    ten_days_ago = timezone.now() - timedelta(days=10)
    forgotten, _kept = many(alice, 2, created_at=ten_days_ago)
    delete_memory(forgotten, by=alice)
    remember(owner=alice, content="The release manager is Dana")
    page = signed_in.get(STATS, {"days": 30}).content.decode()
    assert "<strong>2</strong> memories" in page and "(and 1 forgotten" in page
    size = json_of(page, "activity-charts")["created"]["series"][1]
    assert size["label"] == "stored in all"
    assert (size["values"][0], size["values"][-11], size["values"][-1]) == (0, 1, 2)


def test_the_period_is_validated_and_falls_back_to_90_days(signed_in, store):
    page = signed_in.get(STATS, {"days": "7000"}).content.decode()
    assert len(json_of(page, "activity-charts")["retrieved"]["labels"]) == 90


def test_a_new_period_over_htmx_swaps_only_the_activity(signed_in, store):
    partial = signed_in.get(STATS, {"days": 365}, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section id="activity"') and "<html" not in partial
    assert len(json_of(partial, "activity-charts")["created"]["labels"]) == 365


def test_the_forgetting_curve_follows_the_engine(signed_in, settings):
    settings.ENGRAM_FORGET_HALF_LIFE_DAYS = 30.0
    page = signed_in.get(STATS).content.decode()
    curve = json_of(page, "insight-charts")["forgetting"]
    episode = next(s for s in curve["series"] if s["label"] == "Episode, never used")
    days = curve["labels"]
    assert episode["values"][0] == 1.0
    assert episode["values"][days.index(30)] == pytest.approx(0.5, abs=1e-3)
    assert episode["values"][days.index(60)] == pytest.approx(math.exp(-60 * math.log(2) / 30),
                                                              abs=1e-3)


def test_the_graph_holds_ones_memories_links_and_entities(signed_in, store):
    page = signed_in.get(STATS).content.decode()
    graph = json_of(page, "memory-graph-data")
    ids = {n["data"]["id"] for n in graph["nodes"]}
    assert f"m{store['first'].pk}" in ids and f"e{store['dana'].pk}" in ids
    assert {e["data"]["group"] for e in graph["edges"]} == {"link", "mention"}
    node = next(n for n in graph["nodes"] if n["data"]["id"] == f"m{store['first'].pk}")
    assert node["data"]["url"] == f"/memories/{store['first'].pk}/"
    assert "saffron" not in page and "Lunch was pizza" not in page
    assert "/static/vendor/cytoscape-3.33.1/cytoscape.min.js" in page


def test_chart_data_goes_through_json_script_not_into_inline_scripts(signed_in, alice):
    remember(owner=alice, content="</script><script>alert(1)</script>")
    page = signed_in.get(STATS).content.decode()
    assert "<script>alert(1)" not in page
    inline = [chunk.split("</script>")[0] for chunk in page.split("<script")[1:]]
    assert all(chunk.startswith((' src=', ' id=')) for chunk in inline)


def test_the_page_queries_a_fixed_number_of_times_however_big_the_store(
        signed_in, alice, django_assert_max_num_queries):
    memories = many(alice, 300)
    MemoryLink.objects.bulk_create(
        MemoryLink(from_memory=memories[i], to_memory=memories[i + 1], relation="related")
        for i in range(299))
    with django_assert_max_num_queries(14):
        page = signed_in.get(STATS).content.decode()
    assert len(json_of(page, "memory-graph-data")["nodes"]) == 150


def test_after_a_bad_period_the_select_shows_the_90_days_in_force(signed_in, store):
    page = signed_in.get(STATS, {"days": "abc"}).content.decode()
    assert 'id="period-error"' in page and "Activity, the last 90 days" in page
    assert '<option value="90" selected>' in page and '<option value="30" selected>' not in page
