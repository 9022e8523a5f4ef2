"""An action the server refuses says why: after the session ended an htmx action leads
to the sign-in page as a whole page, and back to the page one was on; a 403 (a role
lowered, a form older than the last sign-in) is a page in the site's layout with the
reason, which the page's script shows for an htmx action."""

import pytest
from django.urls import reverse

from memories.models import Scope
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
