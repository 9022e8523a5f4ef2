"""A memory's history compares versions word by word only while the changed part is short
enough to align quickly; a longer change is shown before and after, and the page says so."""

import pytest
from helpers import finishes_within, pathological_texts

from dashboard.text import DIFF_MAX_TOKENS, word_diff
from memories.models import MemoryVersion, VersionChange
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db

LIMIT_SECONDS = 2.0


@pytest.mark.parametrize(("name", "text"), pathological_texts(),
                         ids=[name for name, _ in pathological_texts()])
def test_the_diff_finishes_on_pathological_text_whole_and_cut_to_the_limit(name, text):
    short = text[:DIFF_MAX_TOKENS]
    for before, after in ((text, text[::-1]), (short, short[::-1]),
                          (text, text[: len(text) // 2] + " x " + text[len(text) // 2:])):
        finishes_within(LIMIT_SECONDS, lambda b=before, a=after: word_diff(b, a))


def test_a_small_edit_of_a_long_text_is_still_shown_word_by_word():
    words = " ".join(f"word{i}" for i in range(5_000))
    diff = word_diff(words, words.replace("word2500", "changed"))
    assert "<del>word2500</del><ins>changed</ins>" in diff
    assert diff.startswith("word0 word1 ") and diff.endswith("word4998 word4999")


def test_a_long_change_is_not_aligned():
    assert word_diff("a " * DIFF_MAX_TOKENS, "b " * DIFF_MAX_TOKENS) is None


def test_the_history_shows_a_long_change_before_and_after_and_says_why(client, alice):
    before, after = "one " * 3_000 + "end", "two " * 3_000 + "end"
    memory = remember(owner=alice, content=before).memory
    MemoryVersion.objects.create(memory=memory, change=VersionChange.UPDATED, changed_by=alice,
                                 changed_at=memory.created_at, before={"content": before},
                                 after={"content": after})
    client.force_login(alice)
    page = client.get(f"/memories/{memory.pk}/").content.decode()
    assert "too long a change to compare word by word" in page
    assert f"<del>{before}</del>" in page and f"<ins>{after}</ins>" in page
