"""The edit form changes only what the person changed: a browser sends a multi-line
text back with CRLF line ends, and a text may start or end with white space; saving
the form to add a tag leaves the text as stored (no version of it, no re-check, no
insight citing it flagged as edited). A form opened before someone else's change is not
saved over it."""

import re

import pytest

from dashboard.forms import MemoryEditForm
from memories.models import Memory
from memories.services.editing import update_memory
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

TEXT = "Deploy steps for the shop:\n1. build the image\n2. push it to the registry\n"


def test_adding_a_tag_through_the_form_leaves_a_multi_line_text_as_stored(client, alice):
    memory = remember(owner=alice, content=TEXT, tags=["deploy"], importance=6).memory
    client.force_login(alice)
    response = client.post(f"/memories/{memory.pk}/edit", {
        "content": TEXT.replace("\n", "\r\n"), "importance": "6",
        "tags": "deploy, shop"}, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    memory = Memory.objects.get(pk=memory.pk)
    assert memory.content == TEXT and memory.tags == ["deploy", "shop"]
    [edit] = memory.versions.exclude(change="created")
    assert set(edit.after) == {"tags"}


def _opened_form(client, memory) -> dict:
    """The edit form's fields as the page hands them out, its hidden mark of the state it
    was opened on included."""
    page = client.get(f"/memories/{memory.pk}/edit", HTTP_HX_REQUEST="true").content.decode()
    [read] = re.findall(r'<input type="hidden" name="read" value="(\w+)"', page)
    return {"content": memory.content, "importance": str(memory.importance), "read": read}


def test_saving_over_a_change_made_since_the_form_was_opened_is_refused(client, alice):
    memory = remember(owner=alice, content="Staging listens on 5433", importance=6).memory
    client.force_login(alice)
    opened = _opened_form(client, memory)
    update_memory(memory, by=alice, content="Staging listens on 5434")

    response = client.post(f"/memories/{memory.pk}/edit", {**opened, "tags": "db"},
                           HTTP_HX_REQUEST="true")

    assert "Someone changed this memory since you opened it" in response.content.decode()
    memory.refresh_from_db()
    assert memory.content == "Staging listens on 5434" and memory.tags == []


def test_a_form_opened_on_the_stored_state_saves(client, alice):
    memory = remember(owner=alice, content="Staging listens on 5433", importance=6).memory
    client.force_login(alice)
    opened = _opened_form(client, memory)

    client.post(f"/memories/{memory.pk}/edit", {**opened, "tags": "db"},
                HTTP_HX_REQUEST="true")

    memory.refresh_from_db()
    assert memory.content == "Staging listens on 5433" and memory.tags == ["db"]


def test_a_change_saved_between_the_forms_check_and_the_save_is_not_overwritten(
        client, alice, monkeypatch):
    memory = remember(owner=alice, content="Staging listens on 5433", importance=6).memory
    client.force_login(alice)
    opened = _opened_form(client, memory)
    checked = MemoryEditForm.clean

    def someone_saves_right_after_the_check(form):
        data = checked(form)
        update_memory(memory, by=alice, content="Staging listens on 5434")
        return data

    monkeypatch.setattr(MemoryEditForm, "clean", someone_saves_right_after_the_check)
    response = client.post(f"/memories/{memory.pk}/edit", {**opened, "tags": "db"},
                           HTTP_HX_REQUEST="true")

    assert "Someone changed this memory since you opened it" in response.content.decode()
    memory.refresh_from_db()
    assert memory.content == "Staging listens on 5434" and memory.tags == []


ACTIONS = ('id="pin-button"', 'id="archive-button"', 'id="helpful-button"', "/delete",
           'id="erase-link"')


def test_the_open_form_has_no_action_beside_it_that_would_swap_it_away(client, alice):
    memory = remember(owner=alice, content="Staging listens on 5433", importance=6).memory
    client.force_login(alice)
    opened = client.get(f"/memories/{memory.pk}/edit", HTTP_HX_REQUEST="true").content.decode()
    refused = client.post(f"/memories/{memory.pk}/edit", {"content": "", "importance": "6"},
                          HTTP_HX_REQUEST="true").content.decode()
    for page in (opened, refused):
        assert 'class="edit stack"' in page
        assert [action for action in ACTIONS if action in page] == []
