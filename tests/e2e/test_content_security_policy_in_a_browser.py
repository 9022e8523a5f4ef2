"""The main screens under the Content-Security-Policy in a real browser: nothing is
refused (the console reports no violation), htmx injects no style of its own, and the
charts, the graph and the API docs still draw."""

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from memories.models import UsageEvent, UsageKind
from memories.services.remembering import remember
from tests.helpers import htmx_settled

pytestmark = pytest.mark.django_db(transaction=True)

SCREENS = ["/", "/context/", "/contradictions/", "/reflection/", "/stats/", "/jobs/",
           "/keys/", "/transfer/", "/settings/", "/work/"]


@pytest.fixture
def staff_with_memories():
    user = get_user_model().objects.create_user("alice", password="alice-secret-pw",
                                                is_staff=True, is_superuser=True)
    memories = [remember(owner=user, content=text, project="infra").memory for text in (
        "The staging database listens on port 5433",
        "Always run the migrations before deploying to production")]
    UsageEvent.objects.create(memory=memories[0], owner=user, kind=UsageKind.RETRIEVED)
    return user, memories


def test_the_main_screens_break_no_rule_of_the_policy(page, sign_in, staff_with_memories,
                                                      csp_violations):
    _, memories = staff_with_memories
    sign_in("alice", "alice-secret-pw")
    for path in SCREENS + [f"/memories/{memories[0].pk}/"]:
        response = page.goto(path)
        assert response.status == 200, path
        assert "default-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
        htmx_settled(page)
        assert page.evaluate("[...document.querySelectorAll('style')].map(s => s.outerHTML.slice(0, 300))") == [], path
        assert not csp_violations, csp_violations

    page.goto("/stats/")  # Chart.js and Cytoscape draw on canvases under the policy
    expect(page.locator("canvas").first).to_be_visible()

    page.goto(f"/memories/{memories[0].pk}/")  # htmx swaps under the policy
    page.get_by_role("button", name="Pin").click()
    expect(page.get_by_role("button", name="Unpin")).to_be_visible()
    expect(page.locator(".usage .bar.w20")).to_be_visible()

    page.goto("/admin/")
    expect(page.get_by_role("heading", name="Site administration")).to_be_visible()
    page.goto("/admin/auth/user/")
    expect(page.get_by_role("link", name="alice")).to_be_visible()
    assert not csp_violations, csp_violations


def test_the_api_docs_render_under_their_relaxed_policy(page, csp_violations):
    page.goto("/api/docs/")
    expect(page.get_by_text(re.compile("Engram API"))).to_be_visible()
    expect(page.locator(".opblock").first).to_be_visible()
    assert not csp_violations, csp_violations


def test_the_lockout_is_shown_on_the_sign_in_page(page, staff_with_memories):
    for n in range(5):
        page.goto("/accounts/login/")
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill(f"wrong-{n}")
        page.get_by_role("button", name="Sign in").click()
    page.get_by_label("Password").fill("alice-secret-pw")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Too many failed sign-ins")
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()


def test_back_to_the_stats_screen_draws_its_graph_again(page, sign_in, staff_with_memories,
                                                        csp_violations):
    # Restored from htmx's history snapshot, the graph's canvas was dead, lay over the Fit
    # button, and Cytoscape broke the policy trying to style it again.
    sign_in("alice", "alice-secret-pw")
    page.goto("/stats/")
    expect(page.locator("#memory-graph canvas").first).to_be_visible()
    page.get_by_label("Period").select_option("30")
    expect(page).to_have_url(re.compile(r"/stats/\?days=30"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/stats/$"))
    page.wait_for_load_state("networkidle")
    expect(page.locator("#memory-graph canvas").first).to_be_visible()
    page.get_by_role("button", name="Fit the whole graph").click(timeout=5_000)
    assert not csp_violations, csp_violations
