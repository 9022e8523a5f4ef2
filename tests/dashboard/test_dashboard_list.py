"""The memories list: one's own memories, filtered, sorted, paged and searched."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory, Status
from memories.services.editing import delete_memory, update_memory
from memories.services.remembering import NewMemory, remember, remember_many

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(alice, bob):
    router = remember(owner=alice, content="The office router hands out DHCP leases",
                               kind="fact", project="office", tags=["network"]).memory
    deploy = remember(owner=alice, content="Deploys go out with make release on Fridays",
                               kind="workflow", memory_type="procedural",
                               importance=9).memory
    remember(owner=bob, content="Bob's router is in the attic")
    return {"router": router, "deploy": deploy}


def test_it_asks_for_a_login_first(client):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_each_person_sees_only_their_own_memories(client, alice, stored):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "DHCP leases" in page and "make release" in page and "attic" not in page


def test_charlie_with_no_memories_sees_none_of_the_others(client, charlie, stored):
    client.force_login(charlie)
    page = client.get("/").content.decode()
    assert "No memories match." in page and "DHCP" not in page and "attic" not in page


def test_the_page_serves_htmx_from_the_package_and_no_cdn(client, alice):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "/static/django_htmx/htmx-2" in page and "/static/engram/engram.js" in page
    assert "https://" not in page and "http://" not in page.replace("http://testserver", "")


def test_the_navigation_links_every_screen_with_the_contradictions_badge(client, alice):
    client.force_login(alice)
    page = client.get("/").content.decode()
    for href in ("/context/", "/contradictions/", "/jobs/", "/keys/", "/transfer/",
                 "/settings/", "/stats/"):
        assert f'href="{href}"' in page
    assert 'class="badge"' not in page  # no open contradictions, no badge


def test_filters_narrow_the_list(client, alice, stored):
    client.force_login(alice)
    by_kind = client.get("/", {"kind": "workflow"}).content.decode()
    assert "make release" in by_kind and "DHCP" not in by_kind
    by_tag = client.get("/", {"tag": "network"}).content.decode()
    assert "DHCP" in by_tag and "make release" not in by_tag
    by_project = client.get("/", {"project": "office"}).content.decode()
    assert "DHCP" in by_project and "make release" not in by_project
    by_type = client.get("/", {"memory_type": "procedural"}).content.decode()
    assert "make release" in by_type and "DHCP" not in by_type


def test_status_pinned_and_date_filters(client, alice, stored):
    update_memory(stored["router"], by=alice, pinned=True)
    update_memory(stored["deploy"], by=alice, status=Status.ARCHIVED)
    client.force_login(alice)
    assert "make release" not in client.get("/", {"status": "active"}).content.decode()
    assert "make release" in client.get("/", {"status": "archived"}).content.decode()
    pinned = client.get("/", {"pinned": "yes"}).content.decode()
    assert "DHCP" in pinned and "make release" not in pinned
    Memory.objects.filter(pk=stored["deploy"].pk).update(
        created_at=timezone.now() - timedelta(days=30))
    today = timezone.now().date().isoformat()
    recent = client.get("/", {"created_after": today, "created_before": today}).content.decode()
    assert "DHCP" in recent and "make release" not in recent


def test_the_last_day_a_date_can_name_bounds_nothing_instead_of_failing(client, alice,
                                                                        stored):
    client.force_login(alice)
    response = client.get("/", {"created_before": "9999-12-31"})
    assert response.status_code == 200 and "make release" in response.content.decode()


def test_deleted_memories_stay_out_of_the_list_unless_asked_for(client, alice, stored):
    delete_memory(stored["deploy"], by=alice)
    client.force_login(alice)
    assert "make release" not in client.get("/").content.decode()
    assert "make release" in client.get("/", {"status": "deleted"}).content.decode()


def test_a_bad_filter_shows_its_error_next_to_the_field_and_keeps_the_rest(client, alice,
                                                                          stored):
    client.force_login(alice)
    page = client.get("/", {"kind": "workflow", "created_after": "2026-02-31"}).content.decode()
    assert 'id="id_created_after_error"' in page and "Enter a valid date." in page
    assert "make release" in page and "DHCP" not in page
    backwards = client.get("/", {"created_after": "2026-05-02",
                                 "created_before": "2026-05-01"}).content.decode()
    assert "The end of the range is before its start." in backwards


@pytest.mark.parametrize("sort, first", [("importance", "make release"),
                                         ("recent", "make release"),
                                         ("used", "DHCP"), ("score", "make release")])
def test_each_sort_puts_the_right_memory_first(client, alice, stored, sort, first):
    Memory.objects.filter(pk=stored["router"].pk).update(access_count=7)
    client.force_login(alice)
    page = client.get("/", {"sort": sort}).content.decode()
    others = {"make release", "DHCP"} - {first}
    assert page.index(first) < page.index(others.pop())


def test_pagination_keeps_the_filters_in_the_url(client, alice):
    remember_many(owner=alice, items=[
        NewMemory(content=f"Release note number {i} for version {i}.0",
                           kind="episode", embedding=[1.0] + [0.0] * 383)
        for i in range(30)])
    client.force_login(alice)
    page = client.get("/", {"kind": "episode", "sort": "recent"}).content.decode()
    assert "Page 1 of 2" in page
    assert 'href="?kind=episode&amp;sort=recent&amp;page=2"' in page
    second = client.get("/", {"kind": "episode", "sort": "recent", "page": 2}).content.decode()
    assert "Page 2 of 2" in second and second.count('class="card') == 5


def test_search_shows_hits_with_their_score_breakdown(client, alice, stored):
    client.force_login(alice)
    page = client.get("/", {"q": "wifi router keeps dropping"}).content.decode()
    assert "DHCP leases" in page and "attic" not in page
    assert "relevance" in page and "recency" in page and "similarity" in page


def test_a_search_for_nothing_stored_says_so_instead_of_listing_the_store(client, alice,
                                                                          stored):
    client.force_login(alice)
    page = client.get("/", {"q": "zzzqqq xylophone"}).content.decode()
    assert "Nothing close to “zzzqqq xylophone”." in page and "DHCP leases" not in page


def test_search_highlights_the_query_words_and_escapes_the_rest(client, alice):
    remember(owner=alice, content="<script>alert(1)</script> the routers & switches")
    client.force_login(alice)
    page = client.get("/", {"q": "router"}).content.decode()
    assert "<mark>routers</mark>" in page
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_search_does_not_count_as_a_retrieval(client, alice, stored):
    client.force_login(alice)
    client.get("/", {"q": "router"})
    assert Memory.objects.get(pk=stored["router"].pk).access_count == 0


def test_search_applies_the_filters(client, alice, stored):
    client.force_login(alice)
    page = client.get("/", {"q": "router DHCP", "kind": "workflow"}).content.decode()
    assert "DHCP leases" not in page


def test_an_htmx_request_gets_only_the_results_partial(client, alice, stored):
    client.force_login(alice)
    partial = client.get("/", {"q": "router"}, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section id="results"')
    assert "<html" not in partial and "DHCP leases" in partial


def test_the_list_runs_a_fixed_number_of_queries(client, alice, django_assert_max_num_queries):
    remember_many(owner=alice, items=[
        NewMemory(content=f"Fact {i}: the build cache lives in /tmp/cache{i}",
                           tags=["cache"], embedding=[1.0] + [0.0] * 383) for i in range(40)])
    client.force_login(alice)
    # session, user, one's projects (the filter's choices, their labels), count, page,
    # which of the page one may change, the cost meter, the contradictions badge: none
    # per row
    with django_assert_max_num_queries(8):
        client.get("/", {"sort": "score"})
    with django_assert_max_num_queries(6):
        client.get("/", {"tag": "cache", "page": 2}, HTTP_HX_REQUEST="true")


def test_a_search_runs_a_fixed_number_of_queries(client, alice, django_assert_max_num_queries):
    remember_many(owner=alice, items=[
        NewMemory(content=f"Fact {i}: the build cache lives in /tmp/cache{i}")
        for i in range(40)])
    client.force_login(alice)
    client.get("/", {"q": "warm-up"}, HTTP_HX_REQUEST="true")  # the vector index check, once
    # session, user, then recall's own few (candidates in one query, the hits' rows):
    # none per hit
    with django_assert_max_num_queries(6):
        client.get("/", {"q": "where is the build cache?"}, HTTP_HX_REQUEST="true")


def test_open_contradictions_show_as_a_badge_in_the_navigation(client, alice, bob, stored):
    from memories.models import Contradiction

    Contradiction.objects.create(owner=alice, memory_a=stored["router"],
                                 memory_b=stored["deploy"])
    client.force_login(alice)
    assert '<span class="badge" aria-label="1 open">1</span>' in client.get("/").content.decode()
    client.force_login(bob)
    assert 'class="badge"' not in client.get("/").content.decode()


def test_a_search_too_long_to_run_says_so_under_the_search_box(client, alice, stored):
    client.force_login(alice)
    page = client.get("/", {"q": "Traceback " * 201}).content.decode()
    search_box = page[page.index('<p class="field field-q">'):page.index('<div class="grid">')]
    assert 'maxlength="2000"' in search_box
    assert 'id="id_q_error"' in search_box and "at most 2000 characters" in search_box


def test_a_refused_search_lists_nothing_and_says_so(client, alice, stored):
    client.force_login(alice)
    page = client.get("/", {"q": "Traceback " * 201}, HTTP_HX_REQUEST="true").content.decode()
    assert "DHCP leases" not in page and "make release" not in page
    assert "No search ran." in page and "correct the search above" in page
