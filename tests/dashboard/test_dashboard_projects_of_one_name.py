"""Two projects of one name: bob is an editor of alice's github.com/acme/shop and created
one of that name himself. Wherever the screens name a project in a list or a select, bob
tells the two apart by their creators; dana, who reads only alice's, sees its bare name."""

import pytest
from django.urls import reverse
from django.utils.html import escape

from memories.models import Contradiction, Scope
from memories.services.projects import create_project
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

ALICES = "github.com/acme/shop (by alice)"
BOBS = "github.com/acme/shop (by bob)"


def shared(owner, project, content):
    return remember(owner=owner, content=content, project=project.name, scope=Scope.PROJECT,
                    shared_with=project).memory


@pytest.fixture
def bobs_shop(team, bob):
    return create_project(creator=bob, name=team.name)


@pytest.fixture
def notes(team, bobs_shop, alice, bob):
    return {"alices": shared(alice, team, "The shop's checkout takes payments through Stripe"),
            "bobs": shared(bob, bobs_shop, "Bob's shop ships parcels with DHL on Mondays")}


def test_the_list_names_each_projects_creator_when_the_name_is_shared(client, bob, notes):
    client.force_login(bob)
    page = client.get("/").content.decode()
    assert f"shared with project {ALICES}" in page and f"shared with project {BOBS}" in page


def test_a_reader_of_one_of_them_sees_its_bare_name(client, dana, notes):
    client.force_login(dana)
    page = client.get("/").content.decode()
    assert "shared with project github.com/acme/shop</span>" in page and "(by alice)" not in page


def test_the_project_filter_offers_each_by_its_creator_and_narrows_to_one(
        client, bob, team, bobs_shop, notes):
    client.force_login(bob)
    page = client.get("/").content.decode()
    assert f'<option value="{team.pk}">{ALICES}</option>' in page
    assert f'<option value="{bobs_shop.pk}">{BOBS}</option>' in page
    page = client.get("/", {"shared_with": str(bobs_shop.pk)}).content.decode()
    assert "DHL" in page and escape("The shop's checkout") not in page
    assert f'<option value="{bobs_shop.pk}" selected>{BOBS}</option>' in page
    hits = client.get("/", {"q": "how does checkout take payments",
                            "shared_with": str(team.pk)}).content.decode()
    assert "Stripe" in hits and "DHL" not in hits


def test_a_memorys_page_names_the_creator_too(client, bob, notes):
    client.force_login(bob)
    page = client.get(reverse("memory", args=[notes["bobs"].pk])).content.decode()
    assert f"the members of project {BOBS}" in page


def test_the_contradictions_queue_names_the_creator_too(client, bob, bobs_shop):
    a = shared(bob, bobs_shop, "Parcels leave the warehouse at noon")
    b = shared(bob, bobs_shop, "Parcels leave the warehouse at five")
    Contradiction.objects.create(owner=bob, shared_with=bobs_shop, memory_a=a, memory_b=b)
    client.force_login(bob)
    page = client.get(reverse("contradictions")).content.decode()
    assert f"project {BOBS} ·" in page


@pytest.mark.parametrize("value", ["not-a-uuid", "\x00", "bobs"], ids=["garbage", "nul", "other"])
def test_a_project_one_is_not_in_or_garbage_is_refused_at_the_select(
        client, dana, bobs_shop, notes, value):
    """dana reads alice's shop only: bob's, or a value that names no project, is an error
    at the select, and nothing of bob's shop is listed."""
    client.force_login(dana)
    response = client.get("/", {"shared_with": str(bobs_shop.pk) if value == "bobs" else value})
    page = response.content.decode()
    assert response.status_code == 200 and 'id="id_shared_with_error"' in page
    assert "DHL" not in page
