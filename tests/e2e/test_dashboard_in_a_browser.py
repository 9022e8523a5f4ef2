"""A person uses the dashboard in a real browser: sign in, search, edit and see the new
version, delete and undo, preview a context; and it stays usable at phone width."""

import re

import pytest
from playwright.sync_api import expect

from memories.models import (
    Contradiction,
    Job,
    JobKind,
    JobStatus,
    Memory,
    Status,
    UsageEvent,
)
from memories.services.remembering import remember
from tests.helpers import htmx_settled

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice_memories(django_user_model):
    alice = django_user_model.objects.create_user("alice", password="alice-secret-pw")
    memories = [remember(owner=alice, content=text, kind=kind, project=project,
                                  tags=tags).memory
                for text, kind, project, tags in [
        ("The staging database listens on port 5433", "fact", "infra", ["db", "staging"]),
        ("Always run the migrations before deploying to production", "instruction", "infra",
         ["deploy"]),
        ("The deploy on Friday failed because a migration was missing", "error", "infra",
         ["deploy", "incident"]),
        ("Alice prefers short commit messages in the imperative mood", "preference", "",
         ["style"]),
        ("The office router hands out DHCP leases for eight hours", "fact", "office",
         ["network"]),
    ]]
    bob = django_user_model.objects.create_user("bob", password="bob-secret-pw")
    remember(owner=bob, content="Bob's staging database is on port 6000")
    return alice, memories


def test_a_person_signs_in_and_searches_by_meaning(page, sign_in, alice_memories, screenshot):
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/$"))
    screenshot(page, "sign-in")
    sign_in("alice", "alice-secret-pw")
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    expect(page.locator(".card")).to_have_count(5)
    expect(page.get_by_text("Bob's staging")).to_have_count(0)
    screenshot(page, "memories")

    page.keyboard.press("/")  # jumps to the search box
    page.keyboard.type("which port does the staging database use?")
    page.keyboard.press("Enter")
    first = page.locator(".card").first
    expect(first).to_contain_text("port 5433")
    expect(first.locator("mark").first).to_be_visible()
    expect(first.locator(".why")).to_contain_text("relevance")
    expect(page).to_have_url(re.compile(r"\?q=which(\+|%20)port[^&]*$"))
    screenshot(page, "search")


def test_editing_a_memory_shows_the_new_version_in_its_history(page, sign_in, alice_memories,
                                                               screenshot):
    _, memories = alice_memories
    sign_in("alice", "alice-secret-pw")
    page.get_by_role("link", name=re.compile("listens on port 5433")).click()
    expect(page.get_by_role("heading", name="History")).to_be_visible()

    page.get_by_role("link", name="Edit").click()
    content = page.get_by_role("textbox", name="Content")
    content.fill("The staging database listens on port 6543 since the move")
    page.get_by_label("Importance").fill("12")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Ensure this value is less than or equal to 10")).to_be_visible()
    expect(content).to_have_value("The staging database listens on port 6543 since the move")

    htmx_settled(page)  # typing before htmx restores focus can land elsewhere
    page.get_by_label("Importance").fill("8")
    expect(page.get_by_label("Importance")).to_have_value("8")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Saved: the change is in the history.")).to_be_visible()
    expect(page.get_by_text("Saved: the change is in the history.")).to_be_focused()
    history = page.locator(".history li").first
    expect(history).to_contain_text("updated")
    expect(history.locator("del").first).to_have_text("5433")
    expect(history.locator("ins").first).to_have_text("6543 since the move")
    assert Memory.objects.get(pk=memories[0].pk).importance == 8
    screenshot(page, "memory-detail")


def test_deleting_a_memory_can_be_undone(page, sign_in, alice_memories):
    _, memories = alice_memories
    sign_in("alice", "alice-secret-pw", then=f"/memories/{memories[3].pk}/")
    page.get_by_role("button", name="Pin").click()
    expect(page.get_by_role("button", name="Unpin")).to_be_visible()
    page.get_by_role("button", name="Delete").click()
    expect(page.get_by_text("This memory is deleted")).to_be_visible()
    page.get_by_role("button", name="Undo delete").click()
    expect(page.get_by_text("Restored as it was before the deletion.")).to_be_visible()
    restored = Memory.objects.get(pk=memories[3].pk)
    assert restored.status == Status.ACTIVE and restored.pinned


def test_a_bulk_delete_from_the_list_can_be_undone(page, sign_in, alice_memories):
    sign_in("alice", "alice-secret-pw")
    page.get_by_label(re.compile("Select: The office router")).check()
    page.get_by_label(re.compile("Select: Alice prefers")).check()
    page.get_by_label("With the selected").select_option("delete")
    page.get_by_role("button", name="Apply to selection").click()
    expect(page.get_by_text("Deleted 2 memories.")).to_be_visible()
    expect(page.locator(".card")).to_have_count(3)
    # a keyboard user lands on Undo, not at the top of the page
    expect(page.get_by_role("button", name="Undo delete")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Restored 2 memories.")).to_be_visible()
    expect(page.locator(".card")).to_have_count(5)


def test_a_context_preview_shows_what_an_agent_would_receive(page, sign_in, alice_memories,
                                                             screenshot):
    sign_in("alice", "alice-secret-pw", then="/context/")
    page.get_by_label("Prompt").fill("How should I deploy the migrations to production?")
    page.get_by_label("Budget (tokens)").fill("3000")
    page.get_by_label("Format").select_option("markdown")
    page.get_by_role("button", name="Preview").click()
    context = page.locator("pre.context")
    expect(context).to_contain_text("Always run the migrations")
    expect(context).not_to_contain_text("Bob")
    expect(page.get_by_role("table", name="Tokens per tier")).to_contain_text("critical")
    assert not UsageEvent.objects.exists()  # a preview is not a retrieval
    screenshot(page, "context-preview")


def test_the_list_fits_a_phone_screen(page, sign_in, alice_memories, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in("alice", "alice-secret-pw")
    expect(page.locator(".card")).to_have_count(5)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "memories-390px")
    page.goto(f"/memories/{alice_memories[1][0].pk}/")
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "memory-detail-390px")


def test_the_memory_actions_work_from_the_keyboard(page, sign_in, alice_memories):
    _, memories = alice_memories
    sign_in("alice", "alice-secret-pw", then=f"/memories/{memories[4].pk}/")
    htmx_settled(page)
    page.focus("#pin-button")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Unpin")).to_be_focused()  # focus stays put
    htmx_settled(page)  # before htmx has processed the swapped forms, Enter submits natively
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Archive")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Unarchive")).to_be_focused()
    assert Memory.objects.get(pk=memories[4].pk).status == Status.ARCHIVED


def test_a_result_opened_on_the_jobs_screen_stays_open_while_the_list_refreshes(
        page, sign_in, alice_memories):
    alice, _ = alice_memories
    Job.objects.create(owner=alice, kind=JobKind.FORGET, status=JobStatus.RUNNING)  # polls
    Job.objects.create(owner=alice, kind=JobKind.CONSOLIDATE, status=JobStatus.DONE,
                       result={"merged": 3})
    sign_in("alice", "alice-secret-pw", then="/jobs/")
    result = page.locator("details", has_text="merged")
    result.locator("summary").click()
    expect(result).to_have_attribute("open", "")
    with page.expect_response(lambda r: "/jobs/" in r.url and r.request.headers.get(
            "hx-request") == "true"):
        pass  # the list refreshes every 2 s while a job runs
    htmx_settled(page)
    expect(result).to_have_attribute("open", "")


def test_resolving_a_contradiction_takes_the_keyboard_to_what_happened(page, sign_in,
                                                                       alice_memories):
    alice, memories = alice_memories
    other = remember(owner=alice, content="The staging database listens on port 6000",
                     project="infra").memory
    # found by the check that storing it ran, or else put in the queue by hand
    contradiction, _ = Contradiction.objects.get_or_create(
        owner=alice, memory_a=memories[0], memory_b=other, defaults={"detected_by": "rules"})
    sign_in("alice", "alice-secret-pw", then=f"/contradictions/{contradiction.pk}/")
    page.get_by_role("radio", name=re.compile("A wins")).check()
    page.get_by_role("button", name="Resolve").click()
    expect(page.get_by_role("status").filter(has_text="Resolved")).to_be_focused()
