"""An action the server refuses says why: after the session ended an htmx action leads
to the sign-in page as a whole page, and back to the page one was on; a 403 (a role
lowered, a form older than the last sign-in) is a page in the site's layout with the
reason, which the page's script shows for an htmx action."""

import pytest
from django.test import Client
from django.urls import reverse

from memories.models import Role, Scope
from memories.services.projects import add_member
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop_note(team, bob):
    return remember(owner=bob, content="The shop deploys from main every Tuesday",
                    project=team.name, scope=Scope.PROJECT, shared_with=team).memory


def test_an_htmx_action_after_the_session_ended_leads_to_sign_in_and_back_to_the_page(
        client, shop_note):
    page = reverse("memory", args=[shop_note.pk])
    response = client.post(reverse("memory_pin", args=[shop_note.pk]), {"pinned": "true"},
                           HTTP_HX_REQUEST="true",
                           HTTP_HX_CURRENT_URL=f"http://testserver{page}")
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/accounts/login/?next={page}"


def test_a_refused_action_says_why_in_the_sites_layout(client, team, alice, bob, shop_note):
    add_member(team, by=alice, username="bob", role=Role.READER)
    client.force_login(bob)
    response = client.post(reverse("memory_pin", args=[shop_note.pk]), {"pinned": "true"},
                           HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 403
    assert 'aria-label="Main"' in page and "Sign out" in page
    assert "<p class=\"error\" data-error-reason>You are a reader of project" in page


def test_a_form_older_than_the_last_sign_in_is_refused_with_what_to_do(alice, shop_note):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    response = browser.post(reverse("memory_pin", args=[shop_note.pk]), {"pinned": "true"},
                            HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN="from-an-old-session")
    page = response.content.decode()
    assert response.status_code == 403 and 'aria-label="Main"' in page
    assert "Reload the page and try again." in page


def test_every_page_has_the_notice_area_the_script_shows_a_refusal_in(client, alice):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert '<ul class="messages" id="messages" role="status" hidden>' in page
