"""The edit form changes only what the person changed: a browser sends a multi-line
text back with CRLF line ends, and a text may start or end with white space; saving
the form to add a tag leaves the text as stored (no version of it, no re-check, no
insight citing it flagged as edited)."""

import pytest

from memories.models import Memory
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
