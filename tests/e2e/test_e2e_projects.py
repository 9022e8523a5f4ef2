"""Teams in a real browser: an owner creates a project named like a git remote and manages
its members through the htmx forms of the Projects screen, without a page reload; a
member sees their role and leaves; a project memory shows its author and scope to the
members and stays out of a stranger's list; and the screen works without JavaScript."""

import pytest
from playwright.sync_api import expect

from memories.models import Project, Role, Scope
from memories.services.remembering import remember
from tests.e2e.conftest import sign_in_on
from tests.helpers import SHOP, htmx_settled

pytestmark = pytest.mark.django_db(transaction=True)


def roles(project) -> dict:
    return dict(project.memberships.current().values_list("user__username", "role"))


def members_listed(section) -> list[str]:
    return section.locator("tr.member td:first-child").all_inner_texts()


def add_member(section, username: str, role: str) -> None:
    section.get_by_label("Username", exact=True).fill(username)
    section.get_by_label("Role", exact=True).select_option(role)
    section.get_by_role("button", name="Add member").click()


def told(page, notice: str) -> None:
    expect(page.get_by_role("status").filter(has_text=notice)).to_be_visible()


def settled(page, notice: str) -> None:
    """The swap shows `notice`, and htmx has wired the new forms (before that, a click
    would submit natively and reload the page)."""
    told(page, notice)
    htmx_settled(page)


def answer_the_confirmation(page) -> list[str]:
    """Accept the next confirm() dialog; its message lands in the returned list."""
    asked = []

    def accept(dialog):
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    return asked


def test_an_owner_manages_the_members_and_a_reader_leaves(page, sign_in, alice, bob, dana,
                                                          screenshot):
    sign_in("alice", "alice-secret-pw", then="/projects/")
    expect(page.get_by_text("You are a member of no project yet")).to_be_visible()
    htmx_settled(page)
    page.evaluate("window.stillThisPage = true")  # a full reload would forget it

    page.get_by_label("Name", exact=True).fill(SHOP)
    page.get_by_role("button", name="Create project").click()
    settled(page, f"Project “{SHOP}” created: you are its owner.")
    project = Project.objects.get(name=SHOP, creator=alice)
    shop = page.get_by_role("region", name=SHOP)
    expect(shop.locator(".role")).to_have_text("owner")
    expect(page.get_by_label("Name", exact=True)).to_have_value("")

    add_member(shop, "bob", "editor")
    settled(page, f"bob joined “{SHOP}” as editor.")
    add_member(shop, "zed", "reader")
    alert = shop.locator(".field-username").get_by_role("alert")
    expect(alert).to_have_text("No active user is named 'zed'.")
    expect(shop.get_by_label("Username", exact=True)).to_have_value("zed")
    htmx_settled(page)
    add_member(shop, "dana", "reader")
    settled(page, f"dana joined “{SHOP}” as reader.")
    expect(shop.get_by_role("alert")).to_have_count(0)
    assert members_listed(shop) == ["alice (you)", "bob", "dana"]
    assert roles(project) == {"alice": Role.OWNER, "bob": Role.EDITOR, "dana": Role.READER}

    shop.get_by_label("Role of dana", exact=True).select_option("editor")
    shop.get_by_role("button", name="Change the role of dana").click()
    settled(page, f"dana is now editor of “{SHOP}”.")
    expect(shop.get_by_label("Role of dana", exact=True)).to_have_value("editor")

    asked = answer_the_confirmation(page)
    shop.get_by_role("button", name="Remove bob").click()
    settled(page, f"bob is no longer a member of “{SHOP}”.")
    assert asked and asked[0].startswith(f"Remove bob from “{SHOP}”?")
    assert members_listed(shop) == ["alice (you)", "dana"]
    assert roles(project) == {"alice": Role.OWNER, "dana": Role.EDITOR}
    assert page.evaluate("window.stillThisPage === true")  # every step was an htmx swap
    screenshot(page, "projects")

    page.context.clear_cookies()
    sign_in("dana", "dana-secret-pw", then="/projects/")
    shop = page.get_by_role("region", name=SHOP)
    expect(shop.locator(".role")).to_have_text("editor")
    expect(shop).to_contain_text("Created by alice")
    expect(shop.get_by_role("heading", name="Add a member")).to_have_count(0)
    htmx_settled(page)
    page.evaluate("window.stillThisPage = true")
    asked = answer_the_confirmation(page)
    shop.get_by_role("button", name=f"Leave {SHOP}").click()
    settled(page, f"You left “{SHOP}”")
    assert asked and asked[0].startswith(f"Leave “{SHOP}”?")
    expect(shop).to_have_count(0)
    expect(page.get_by_text("You are a member of no project yet")).to_be_visible()
    assert page.evaluate("window.stillThisPage === true")
    assert roles(project) == {"alice": Role.OWNER}


def test_a_project_memory_shows_its_author_and_scope_to_members_only(page, sign_in, team,
                                                                     alice, bob, charlie):
    remember(owner=alice, content="The shop's checkout takes payments through Stripe",
             project=SHOP, scope=Scope.PROJECT, shared_with=team)
    remember(owner=charlie, content="Charlie's cat is called Tom")

    sign_in("bob", "bob-secret-pw")
    card = page.locator(".card", has_text="checkout takes payments through Stripe")
    expect(card.locator(".author")).to_have_text("by alice")
    expect(card.locator(".scope")).to_have_text(f"shared with project {SHOP}")
    expect(page.get_by_text("Charlie's cat")).to_have_count(0)

    page.context.clear_cookies()
    sign_in("charlie", "charlie-secret-pw")
    expect(page.locator(".card", has_text="Charlie's cat").locator(".author")).to_have_text(
        "by charlie")
    expect(card).to_have_count(0)


def test_the_projects_screen_works_without_javascript(page_without_javascript, alice, bob):
    page = page_without_javascript
    sign_in_on(page, "alice", "alice-secret-pw", then="/projects/")
    page.get_by_label("Name", exact=True).fill(SHOP)
    page.get_by_role("button", name="Create project").click()
    told(page, f"Project “{SHOP}” created")
    page.reload()  # after the redirect, a reload gets the page and posts nothing again
    expect(page.get_by_role("alert")).to_have_count(0)
    shop = page.get_by_role("region", name=SHOP)
    expect(shop).to_be_visible()

    add_member(shop, "zed", "editor")
    expect(shop.locator(".field-username").get_by_role("alert")).to_have_text(
        "No active user is named 'zed'.")
    add_member(shop, "bob", "editor")
    told(page, f"bob joined “{SHOP}” as editor.")
    shop.get_by_label("Role of bob", exact=True).select_option("reader")
    shop.get_by_role("button", name="Change the role of bob").click()
    told(page, f"bob is now reader of “{SHOP}”.")
    shop.get_by_role("button", name="Remove bob").click()  # no confirm() without script
    told(page, f"bob is no longer a member of “{SHOP}”.")
    assert roles(Project.objects.get(name=SHOP, creator=alice)) == {"alice": Role.OWNER}
