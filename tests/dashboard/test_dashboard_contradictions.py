"""The contradictions queue: open ones first, resolved ones browsable, each pair side by
side with its sources, resolved in four ways; and the badge that counts the open ones."""

import re

import pytest
from django.test import RequestFactory
from django.urls import reverse

from dashboard.navigation import open_contradictions_count
from memories.maintenance.contradictions import resolve_contradiction
from memories.models import Contradiction, ContradictionStatus, Memory, Resolution
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


def pair(owner, a="The API listens on port 8080", b="The API listens on port 9090", **extra):
    first = remember(owner=owner, content=a, session_id="s-1", agent_id="claude",
                              metadata={"file": "settings.py"}).memory
    second = remember(owner=owner, content=b, session_id="s-2", agent_id="cursor").memory
    return Contradiction.objects.create(owner=owner, memory_a=first, memory_b=second,
                                        detected_by="rules", reason="the port changed", **extra)


def detail(contradiction):
    return reverse("contradiction_detail", args=[contradiction.pk])


@pytest.fixture
def alices(client, alice):
    client.force_login(alice)
    return pair(alice)


def test_the_queue_shows_open_contradictions(client, alices):
    page = client.get(reverse("contradictions")).content.decode()
    assert "port 8080" in page and "port 9090" in page and detail(alices) in page


def test_unsure_verdicts_are_shown_only_when_asked_for(client, alice, alices):
    unsure = pair(alice, "Staging deploys on Fridays", "Staging never deploys on Fridays",
                  confidence=0.6)
    page = client.get(reverse("contradictions")).content.decode()
    assert detail(alices) in page and detail(unsure) not in page
    assert "?unsure=1&amp;status=open" in page  # the toggle, as a plain link
    page = client.get(reverse("contradictions") + "?unsure=1").content.decode()
    assert detail(alices) in page and detail(unsure) in page and "unsure</span>" in page
    # the badge counts the queue: the confident one
    assert ">1</span>" in page


def test_the_queue_shows_only_ones_own(client, alice, bob):
    pair(bob, "Bob's cat is called Tom", "Bob's cat is called Felix")
    client.force_login(alice)
    page = client.get(reverse("contradictions")).content.decode()
    assert "Felix" not in page and "No open contradictions" in page


def test_resolved_ones_stay_browsable_under_their_own_tab(client, alice, alices):
    services_resolved = pair(alice, "Deploys run on Fridays", "Deploys never run on Fridays",
                             status=ContradictionStatus.RESOLVED,
                             resolution=Resolution.BOTH_VALID, note="two teams")
    open_page = client.get(reverse("contradictions")).content.decode()
    resolved_page = client.get(reverse("contradictions"), {"status": "resolved"}).content.decode()
    assert "Fridays" not in open_page and "port 8080" in open_page
    assert "Fridays" in resolved_page and "two teams" in resolved_page
    assert detail(services_resolved) in resolved_page


def test_a_resolution_of_an_unsure_verdict_is_listed_with_the_others(client, alice, alices):
    decided = pair(alice, "Staging deploys on Fridays", "Staging never deploys on Fridays",
                   confidence=0.6)
    resolve_contradiction(decided, resolution=Resolution.A_WINS, by=alice, note="checked")
    page = client.get(reverse("contradictions"), {"status": "resolved"}).content.decode()
    assert detail(decided) in page and "checked" in page
    assert "Show unsure verdicts too" not in page


def test_the_tabs_keep_showing_unsure_verdicts_once_asked_for(client, alices):
    page = client.get(reverse("contradictions"), {"unsure": "1"}).content.decode()
    assert 'href="/contradictions/?status=resolved&amp;unsure=1"' in page


def test_an_htmx_request_gets_only_the_queue(client, alices):
    partial = client.get(reverse("contradictions"), HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section id="queue"') and "<html" not in partial


def test_the_queue_does_not_query_per_contradiction(client, alice,
                                                    django_assert_max_num_queries):
    memories = Memory.objects.bulk_create(
        Memory(owner=alice, content=f"fact {i}", content_hash=f"h{i}") for i in range(60))
    Contradiction.objects.bulk_create(
        Contradiction(owner=alice, memory_a=memories[i], memory_b=memories[i + 1])
        for i in range(0, 60, 2))
    client.force_login(alice)
    with django_assert_max_num_queries(6):
        page = client.get(reverse("contradictions")).content.decode()
    assert page.count('class="pair"') == 25


def test_the_pair_is_shown_side_by_side_with_sources_and_dates(client, alices):
    page = client.get(detail(alices)).content.decode()
    for text in ("port 8080", "port 9090", "s-1", "s-2", "claude", "cursor", "settings.py",
                 "the port changed", alices.memory_a.created_at.strftime("%Y-%m-%d")):
        assert text in page
    assert f"/memories/{alices.memory_a.pk}/" in page


def test_the_merge_editor_starts_with_both_texts(client, alices):
    page = client.get(detail(alices)).content.decode()
    assert "The API listens on port 8080\n\nThe API listens on port 9090</textarea>" in page


def test_another_persons_contradiction_is_not_found(client, alices, bob):
    client.force_login(bob)
    assert client.get(detail(alices)).status_code == 404
    assert client.post(detail(alices), {"resolution": "a_wins"}).status_code == 404
    alices.refresh_from_db()
    assert alices.status == ContradictionStatus.OPEN


def test_b_wins_resolves_it_and_comes_back_to_the_pair(client, alice, alices):
    response = client.post(detail(alices), {"resolution": "b_wins", "note": "moved in March"})
    assert response.status_code == 302 and response["Location"] == detail(alices)
    alices.refresh_from_db()
    assert (alices.status, alices.resolution, alices.note) == ("resolved", "b_wins",
                                                               "moved in March")
    assert alices.resolved_by == alice
    page = client.get(detail(alices)).content.decode()
    assert "Resolved" in page and "moved in March" in page and "resolve-form" not in page


def test_a_merge_stores_the_edited_text(client, alices):
    client.post(detail(alices), {"resolution": "merged",
                                 "merged_content": "Public API on 9090, admin API on 8080"})
    alices.refresh_from_db()
    assert alices.merged_into.content == "Public API on 9090, admin API on 8080"


def test_a_merge_without_text_shows_the_error_next_to_the_editor_and_keeps_the_note(
        client, alices):
    response = client.post(detail(alices), {"resolution": "merged", "merged_content": "  ",
                                            "note": "careful wording"})
    page = response.content.decode()
    assert response.status_code == 200
    editor = page[page.index('class="merge-editor"'):]
    assert "A merge needs the merged text." in editor[:editor.index("</p>")]
    assert "careful wording</textarea>" in page
    merged_choice = page[page.index('value="merged"'):]
    assert "checked" in merged_choice[:merged_choice.index(">")]
    alices.refresh_from_db()
    assert alices.status == ContradictionStatus.OPEN


def test_no_choice_is_an_error_next_to_the_choices(client, alices):
    page = client.post(detail(alices), {"note": "hm"}).content.decode()
    assert "This field is required." in page and "hm</textarea>" in page


def test_an_htmx_resolution_answers_with_the_pair_and_tells_the_page(client, alices):
    response = client.post(detail(alices), {"resolution": "both_valid"},
                           HTTP_HX_REQUEST="true")
    partial = response.content.decode()
    assert partial.lstrip().startswith('<section id="contradiction"') and "<html" not in partial
    assert "Resolved: Both valid" in partial
    assert "contradictionResolved" in response["HX-Trigger"]


def test_resolving_a_resolved_one_says_so(client, alice, alices):
    client.post(detail(alices), {"resolution": "a_wins"})
    response = client.post(detail(alices), {"resolution": "b_wins"})
    assert "already resolved" in response.content.decode()
    alices.refresh_from_db()
    assert alices.resolution == "a_wins"


def test_the_badge_counts_ones_own_open_contradictions(alice, bob,
                                                       django_assert_max_num_queries):
    pair(alice)
    pair(bob)
    pair(alice, "Tabs are 4 wide", "Tabs are 2 wide", status=ContradictionStatus.RESOLVED)
    request = RequestFactory().get("/")
    request.user = alice
    count = open_contradictions_count(request)["open_contradictions_count"]
    with django_assert_max_num_queries(1):
        assert count() == 1 and count() == 1


def test_the_badge_costs_nothing_for_visitors_not_signed_in():
    from django.contrib.auth.models import AnonymousUser

    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    assert open_contradictions_count(request) == {}


def test_the_pair_page_queries_a_fixed_number_of_times(client, alices,
                                                       django_assert_max_num_queries):
    with django_assert_max_num_queries(6):
        assert client.get(detail(alices)).status_code == 200


def test_the_resolution_choices_are_one_group_named_by_its_legend(client, alices):
    page = client.get(detail(alices)).content.decode()
    group = page.split('<fieldset class="field field-resolution">')[1].split("</fieldset>")[0]
    assert "<legend>Resolution</legend>" in group
    assert group.count('type="radio"') == len(Resolution.choices)


def test_one_closed_by_resolving_another_says_so_and_which_side_still_holds(client, alice):
    first = pair(alice)
    rival = remember(owner=alice, content="The API listens on port 7070").memory
    second = Contradiction.objects.create(owner=alice, memory_a=first.memory_b,
                                          memory_b=rival, detected_by="rules")
    resolve_contradiction(first, resolution=Resolution.A_WINS, by=alice)  # 9090 superseded
    client.force_login(alice)

    page = client.get(detail(second)).content.decode()
    assert "Closed: one side no longer holds" in page and "Resolved:" not in page
    assert "when alice resolved another contradiction about it" in page
    assert '<span class="verdict lose">superseded</span>' in page
    assert '<span class="verdict">still holds</span>' in page
    listed = client.get(reverse("contradictions") + "?status=resolved").content.decode()
    assert "Closed: a side no longer holds ·" in listed


def test_metadata_with_a_key_named_items_is_shown_like_any_other(client, alice):
    # Metadata keys are anyone's: "items" was looked up as the dict's key, not its method.
    contradiction = pair(alice)
    Memory.objects.filter(pk=contradiction.memory_a_id).update(
        metadata={"items": 3, "file": "settings.py"})
    client.force_login(alice)
    response = client.get(detail(contradiction))
    assert response.status_code == 200
    page = response.content.decode()
    assert "<dt>items</dt><dd>3</dd>" in page and "<dt>file</dt><dd>settings.py</dd>" in page


def test_a_refused_resolution_takes_focus_to_why(client, alices):
    Memory.objects.filter(pk=alices.memory_b_id).update(status="deleted")
    part = client.post(detail(alices), {"resolution": "b_wins"},
                       HTTP_HX_REQUEST="true").content.decode()
    assert re.search(r'<div class="error" role="alert" tabindex="-1" autofocus>.*deleted',
                     part, re.DOTALL)


def test_the_queue_refreshing_itself_takes_no_focus(client, alices):
    tab = client.get(reverse("contradictions"), HTTP_HX_REQUEST="true").content.decode()
    refresh = client.get(reverse("contradictions"), HTTP_HX_REQUEST="true",
                         HTTP_HX_TRIGGER="queue").content.decode()
    assert "autofocus" in tab and "autofocus" not in refresh
