"""Reflection reads what the reflecting user reads (their private memories, their projects'
of every author), never another user's private ones; its insights are the reflecting
user's own, private, and their citations show only what that user still reads."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.models import Memory, Scope
from memories.services.projects import remove_member
from memories.services.remembering import remember
from reflection import services as reflection
from reflection.models import Insight

NOW = timezone.now()
RUFF = ["Please always run ruff before committing",
        "Always run ruff check before you commit anything"]


@pytest.fixture(autouse=True)
def rules(settings):
    settings.ENGRAM_LLM_PROVIDER = "rules"


def store(owner, texts, project=None):
    shared = {"project": project.name, "scope": Scope.PROJECT, "shared_with": project} \
        if project else {}
    return [remember(owner=owner, content=text, kind="instruction",
                     now=NOW - timedelta(hours=2) + timedelta(minutes=i), **shared).memory
            for i, text in enumerate(texts)]


def ruff_insight(owner):
    return Insight.objects.select_related("memory").get(
        owner=owner, memory__content__startswith="Repeated instruction")


def test_a_reader_reflects_on_the_projects_memories_of_every_author(alice, bob, dana, team):
    cited = [*store(alice, RUFF[:1], team), *store(bob, RUFF[1:], team)]
    reflection.reflect(owner=dana, now=NOW)
    insight = ruff_insight(dana)
    assert set(insight.cited_ids) == {m.pk for m in cited}
    assert (insight.memory.owner, insight.memory.scope) == (dana, Scope.PRIVATE)
    assert not Memory.objects.readable_by(alice).filter(pk=insight.memory_id).exists()


def test_another_users_private_memories_never_feed_a_reflection(alice, charlie, dana, team):
    store(alice, RUFF)
    reflection.reflect(owner=dana, now=NOW)
    assert not Insight.objects.exists()
    # the control: the same memories in the project feed dana's reflection, not charlie's
    store(alice, RUFF, team)
    reflection.reflect(owner=charlie, now=NOW)
    assert not Insight.objects.exists()
    reflection.reflect(owner=dana, now=NOW)
    assert ruff_insight(dana)


def test_an_insight_kept_after_leaving_no_longer_shows_the_projects_memories(
        alice, bob, dana, team, api_client_for):
    store(alice, RUFF[:1], team)
    store(dana, RUFF[1:])
    reflection.reflect(owner=dana, now=NOW)
    client = api_client_for(dana)

    def citations():
        found, = [i for i in client.get("/api/v1/insights").json()["results"]
                  if i["text"].startswith("Repeated instruction")]
        return sorted(c["content"] for c in found["citations"])

    assert citations() == sorted(RUFF)
    remove_member(team, by=dana, username="dana")
    assert citations() == [RUFF[1]]
