"""Erasing from a memory's page: a confirmation step, then the receipt."""

import pytest
from django.urls import reverse

from memories.models import Memory, PurgeRecord
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


def test_the_memory_page_links_to_erase(signed_in, alice):
    memory = remember(owner=alice, content="The office alarm code is 8842.").memory
    page = signed_in.get(reverse("memory", args=[memory.pk])).content.decode()
    assert reverse("memory_erase", args=[memory.pk]) in page


def test_erase_asks_first_then_erases_and_shows_the_receipt(signed_in, alice):
    memory = remember(owner=alice, content="The office alarm code is 8842.").memory
    url = reverse("memory_erase", args=[memory.pk])
    asked = signed_in.get(url).content.decode()
    assert "cannot be undone" in asked and 'name="confirm"' in asked
    unconfirmed = signed_in.post(url)
    assert unconfirmed.status_code == 400 and Memory.objects.filter(pk=memory.pk).exists()
    done = signed_in.post(url, {"confirm": "yes"}).content.decode()
    assert "Memory erased" in done and str(memory.pk) in done and "8842" not in done
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert PurgeRecord.objects.get(memory_id=memory.pk).reason == "erase"


def test_another_persons_memory_cannot_be_erased(signed_in, bob):
    memory = remember(owner=bob, content="Bob's note.").memory
    url = reverse("memory_erase", args=[memory.pk])
    assert signed_in.get(url).status_code == 404
    assert signed_in.post(url, {"confirm": "yes"}).status_code == 404
    assert Memory.objects.filter(pk=memory.pk).exists()
