"""A refused htmx action says why on the page, where it once changed nothing and said
nothing: a member whose role was lowered while the page was open is told the reason."""

import pytest
from playwright.sync_api import expect

from memories.models import Role, Scope
from memories.services.projects import add_member, create_project
from memories.services.remembering import remember
from tests.helpers import SHOP, htmx_settled

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_action_refused_since_the_page_opened_shows_the_servers_reason(
        page, sign_in, django_user_model):
    alice = django_user_model.objects.create_user("alice", password="alice-secret-pw")
    django_user_model.objects.create_user("bob", password="bob-secret-pw")
    shop = create_project(creator=alice, name=SHOP)
    add_member(shop, by=alice, username="bob", role=Role.EDITOR)
    note = remember(owner=alice, content="The shop deploys from main every Tuesday",
                    project=SHOP, scope=Scope.PROJECT, shared_with=shop).memory
    sign_in("bob", "bob-secret-pw", then=f"/memories/{note.pk}/")
    htmx_settled(page)
    add_member(shop, by=alice, username="bob", role=Role.READER)

    page.get_by_role("button", name="Pin").click()

    expect(page.get_by_role("alert")).to_contain_text(f"You are a reader of project '{SHOP}'")
    expect(page.get_by_role("heading", name="Sign in")).to_have_count(0)
