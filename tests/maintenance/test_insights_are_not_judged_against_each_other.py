"""Two insights reflection wrote are not judged against each other: one template over
two topics read as one statement set to two values, and filled the queue a person works
through. Each insight is still judged against the memories people and agents stored."""

import pytest

from memories.models import Contradiction, Kind, MemoryType

pytestmark = pytest.mark.django_db

# As reflection's topic finding words them (engine/reflection.py)
HOT_BULK = ('Hot topic: bulk came up in 50 recent memories (50 facts), e.g. "Bulk note 1"; '
            '"Bulk note 2". Agents should check what is known about bulk before working on '
            'it (because of 1, 2).')
HOT_T0 = ('Hot topic: t0 came up in 17 recent memories (17 facts), e.g. "Bulk note 1"; '
          '"Bulk note 3". Agents should check what is known about t0 before working on it '
          '(because of 1, 3).')

def insight(owner, remember, content):
    return remember(owner, content, kind=Kind.INSIGHT, memory_type=MemoryType.SEMANTIC,
                    is_synthetic=True)


def test_two_insights_of_one_template_raise_no_contradiction(alice, remember):
    insight(alice, remember, HOT_BULK)
    insight(alice, remember, HOT_T0)
    assert not Contradiction.objects.exists()


def test_the_same_two_texts_stored_as_notes_are_still_judged(alice, remember):
    remember(alice, HOT_BULK)
    remember(alice, HOT_T0)
    assert Contradiction.objects.count() == 1  # what the insights were spared


def test_an_insight_is_still_judged_against_a_stored_fact(alice, remember):
    remember(alice, "The orders API listens on port 8080")
    insight(alice, remember, "The orders API listens on port 9090")
    assert Contradiction.objects.count() == 1
