"""A keyboard user is not thrown to the top of the page when the button they pressed is
swapped away: undoing a delete, cancelling an edit, revoking a key, reviewing an
insight, importing a file, following a link in the work log, switching the
contradictions' tabs and a resolution refused each leave focus on what happened, where
they were or what to fix; nor by a list that refreshes itself under them."""

import re

import pytest
from playwright.sync_api import expect

from memories.models import (
    Contradiction,
    Job,
    JobKind,
    JobStatus,
    LinkRelation,
    MemoryLink,
    Observation,
    ObservationStatus,
)
from memories.services.api_keys import create_api_key
from memories.services.remembering import remember
from reflection.models import Insight, InsightStatus
from tests.helpers import htmx_settled
from work.models import FileInteraction, Task, TaskStatus

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password="alice-secret-pw")


@pytest.fixture
def memory(alice):
    return remember(owner=alice, content="The staging database listens on port 5433").memory


def press(page, locator) -> None:
    """Focus `locator` and press Enter, as a keyboard user would, once htmx is ready."""
    htmx_settled(page)
    locator.focus()
    page.keyboard.press("Enter")


def test_undoing_a_delete_takes_focus_to_the_notice(page, sign_in, memory):
    sign_in("alice", "alice-secret-pw", then=f"/memories/{memory.pk}/")
    press(page, page.get_by_role("button", name="Delete"))
    press(page, page.get_by_role("button", name="Undo delete"))
    expect(page.get_by_text("Restored as it was before the deletion.")).to_be_focused()


def test_undoing_a_bulk_delete_takes_focus_to_the_notice(page, sign_in, memory):
    sign_in("alice", "alice-secret-pw")
    page.get_by_label(re.compile("Select: The staging database")).check()
    page.get_by_label("With the selected").select_option("delete")
    press(page, page.get_by_role("button", name="Apply to selection"))
    press(page, page.get_by_role("button", name="Undo delete"))
    expect(page.get_by_text("Restored 1 memory.")).to_be_focused()


def test_cancelling_an_edit_takes_focus_back_to_edit(page, sign_in, memory):
    sign_in("alice", "alice-secret-pw", then=f"/memories/{memory.pk}/")
    press(page, page.get_by_role("link", name="Edit"))
    press(page, page.get_by_role("link", name="Cancel"))
    expect(page.get_by_role("link", name="Edit")).to_be_focused()


def test_revoking_a_key_takes_focus_to_the_notice(page, sign_in, alice):
    create_api_key(owner=alice, name="laptop claude")
    sign_in("alice", "alice-secret-pw", then="/keys/")
    page.on("dialog", lambda dialog: dialog.accept())
    press(page, page.get_by_role("button", name="Revoke key laptop claude"))
    expect(page.get_by_role("status").filter(has_text="laptop claude")).to_be_focused()


def test_approving_an_insight_takes_focus_to_the_notice(page, sign_in, alice, memory):
    text = remember(owner=alice, kind="insight",
                    content="Staging runs on non-default ports").memory
    MemoryLink.objects.create(from_memory=text, to_memory=memory, relation=LinkRelation.CITES)
    insight = Insight.objects.create(owner=alice, memory=text, question="Which ports?",
                                     cited_ids=[memory.pk], text_hash="t", cited_key="c")
    sign_in("alice", "alice-secret-pw", then="/reflection/")
    press(page, page.get_by_role("button", name="Approve"))
    expect(page.get_by_role("status").filter(has_text="Approved")).to_be_focused()
    insight.refresh_from_db()
    assert insight.status == InsightStatus.APPROVED


def test_following_a_file_in_the_work_log_takes_focus_to_what_the_list_now_shows(
        page, sign_in, alice):
    task = Task.objects.create(owner=alice, project="shop", description="Fix the login",
                               status=TaskStatus.COMPLETED)
    FileInteraction.objects.create(owner=alice, project="shop", task=task, path="app/auth.py",
                                   operation="edit")
    sign_in("alice", "alice-secret-pw", then="/work/")
    press(page, page.get_by_role("link", name="app/auth.py"))
    expect(page.get_by_text("Showing tasks that touched app/auth.py")).to_be_focused()
    press(page, page.get_by_role("link", name="show every task"))
    expect(page.get_by_role("heading", name="Timeline")).to_be_focused()


def test_importing_a_file_takes_focus_to_its_report(page, sign_in, alice, tmp_path):
    upload = tmp_path / "memories.jsonl"
    upload.write_text('{"content": "The CI cache lives in /var/cache/ci"}\n')
    sign_in("alice", "alice-secret-pw", then="/transfer/")
    page.get_by_label("JSONL file").set_input_files(upload)
    press(page, page.get_by_role("button", name="Import"))
    expect(page.get_by_role("status").filter(has_text="1 created")).to_be_focused()


def test_the_jobs_list_polling_while_a_job_runs_leaves_focus_on_retry(page, sign_in, alice):
    Job.objects.create(owner=alice, kind=JobKind.FORGET, status=JobStatus.RUNNING)
    Observation.objects.create(owner=alice, payload_hash="f", status=ObservationStatus.FAILED)
    sign_in("alice", "alice-secret-pw", then="/jobs/")
    htmx_settled(page)
    retry = page.get_by_role("button", name=re.compile("^Retry the observation of "))
    retry.focus()
    with page.expect_response(lambda response: "/jobs/" in response.url):  # one poll
        pass
    htmx_settled(page)
    expect(retry).to_be_focused()


@pytest.fixture
def disputed(alice):
    remember(owner=alice, content="The orders API listens on port 8080")
    remember(owner=alice, content="The orders API listens on port 9090")
    return Contradiction.objects.get(owner=alice)  # the check after each commit found it


def test_switching_the_contradictions_tab_leaves_focus_on_the_tab(page, sign_in, disputed):
    sign_in("alice", "alice-secret-pw", then="/contradictions/")
    for name in ("Resolved", re.compile("^Open")):
        press(page, page.get_by_role("link", name=name))
        tab = page.get_by_role("link", name=name)
        expect(tab).to_have_attribute("aria-current", "page")  # swapped in
        htmx_settled(page)
        expect(tab).to_be_focused()


def test_a_merge_without_text_takes_focus_to_the_merged_text(page, sign_in, disputed):
    sign_in("alice", "alice-secret-pw", then=f"/contradictions/{disputed.pk}/")
    page.get_by_role("radio", name=re.compile("Merged: store")).check()
    page.get_by_label("Merged text").fill("")
    press(page, page.get_by_role("button", name="Resolve"))
    expect(page.get_by_label("Merged text")).to_be_focused()
