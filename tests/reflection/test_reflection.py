"""Reflection on the real database: insights with citations, by the rules or a model
(HTTP mocked), idempotent, never fed on its own output, flagged when their evidence
changes, and each owner's own."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from memories.jobs import create_job, run_job
from memories.maintenance.contradictions import resolve_contradiction
from memories.maintenance.forgetting import forget
from memories.services.editing import delete_memory
from memories.services.remembering import remember
from memories.models import (
    Contradiction,
    Job,
    JobKind,
    JobStatus,
    LinkRelation,
    Memory,
    MemoryLink,
    ModelCall,
    Resolution,
    Status,
)
from memories.providers.llm import RulesProvider
from reflection import services as reflection
from reflection.models import Insight, InsightStatus, ReflectionState
from tests.helpers import anthropic_error
from tests.helpers import anthropic_reply as reply

NOW = timezone.now()

# Oldest first; stored one minute apart, so the newest is number 1 when numbered.
SAMPLE = [
    (("The deploy script failed with ECONNREFUSED on port 5432 because the database was "
      "not started"), "error", ["postgresql"]),
    ("I prefer tabs over spaces in Makefiles", "preference", []),
    (("CI failed with ModuleNotFoundError: No module named 'psycopg' after the cache was "
      "cleared"), "error", ["ci"]),
    ("Please always run ruff before committing", "instruction", []),
    ("The orders service uses PostgreSQL 16", "decision", ["postgresql"]),
    ("Always run ruff check before you commit anything", "instruction", []),
    ("Migrations for PostgreSQL live in db/migrations", "fact", ["postgresql"]),
    (("The staging deploy failed with ECONNREFUSED again; starting the database container "
      "first made it go away"), "error", ["postgresql"]),
    (("pytest fails with ModuleNotFoundError: No module named 'psycopg'; pinning "
      "psycopg[binary]==3.2.1 in requirements-dev.txt fixed it"), "error", ["pytest"]),
    ("Never force-push to main", "instruction", []),
]


def store(owner, samples=SAMPLE, *, start=None):
    start = start or NOW - timedelta(hours=2)
    return [remember(owner=owner, content=content, kind=kind, tags=tags,
                              memory_type="episodic" if kind == "error" else "semantic",
                              now=start + timedelta(minutes=i)).memory
            for i, (content, kind, tags) in enumerate(samples)]


@pytest.fixture
def rules(settings):
    settings.ENGRAM_LLM_PROVIDER = "rules"


def by_content(memories):
    return {m.content: m.pk for m in memories}


# --- Reflecting with the rules -------------------------------------------------------------


def test_reflection_never_feeds_on_what_no_longer_holds(alice, rules):
    memories = store(alice)
    ruff = by_content(memories)[SAMPLE[3][0]]
    Memory.objects.filter(pk=ruff).update(expires_at=NOW - timedelta(days=1))
    reflection.reflect(owner=alice, now=NOW)
    texts = [i.memory.content for i in Insight.objects.select_related("memory")]
    assert texts and not any(t.startswith("Repeated instruction") for t in texts)
    assert not any(ruff in i.cited_ids for i in Insight.objects.all())


def test_reflection_by_the_rules_stores_grounded_insights_that_cite_their_memories(alice,
                                                                                  rules):
    memories = by_content(store(alice))
    result = reflection.reflect(owner=alice, now=NOW)

    assert result["owners"] == 1 and result["questions"] == 3
    assert result["insights_created"] == 4 == Insight.objects.count()
    for insight in Insight.objects.select_related("memory"):
        memory = insight.memory
        assert (memory.is_synthetic, memory.memory_type, memory.kind, memory.importance) == (
            True, "semantic", "insight", 8)
        assert "because of" not in memory.content
        assert insight.status == InsightStatus.PENDING_REVIEW and insight.owner == alice
        links = set(MemoryLink.objects.filter(from_memory=memory, relation=LinkRelation.CITES)
                    .values_list("to_memory_id", flat=True))
        assert links == set(insight.cited_ids) and len(links) >= 2
        assert memory.metadata["source"] == "reflection"
    texts = {i.memory.content: set(i.cited_ids) for i in Insight.objects.select_related("memory")}
    psycopg = next(t for t in texts if t.startswith("Recurring error: ModuleNotFoundError"))
    assert "pinning psycopg[binary]==3.2.1" in psycopg
    assert texts[psycopg] == {memories[SAMPLE[2][0]], memories[SAMPLE[8][0]]}
    ruff = next(t for t in texts if t.startswith("Repeated instruction (2 times)"))
    assert texts[ruff] == {memories[SAMPLE[3][0]], memories[SAMPLE[5][0]]}
    assert any(t.startswith("Hot topic: postgresql came up in 4 recent memories") for t in texts)


def test_reflecting_again_without_new_memories_creates_nothing(alice, rules):
    store(alice)
    reflection.reflect(owner=alice, now=NOW)
    memories, insights = Memory.objects.count(), list(Insight.objects.values_list("pk",
                                                                                  flat=True))
    versions = list(Memory.objects.values_list("versions__pk", flat=True))

    again = reflection.reflect(owner=alice, now=NOW + timedelta(hours=1))

    assert again["insights_created"] == 0 and again["already_known"] == 4
    assert Memory.objects.count() == memories
    assert list(Insight.objects.values_list("pk", flat=True)) == insights
    assert list(Memory.objects.values_list("versions__pk", flat=True)) == versions


def test_an_error_that_recurs_once_more_supersedes_the_older_insight(alice, rules):
    store(alice)
    reflection.reflect(owner=alice, now=NOW)
    older = Insight.objects.get(topic="errors: modulenotfounderror")
    remember(owner=alice, kind="error", memory_type="episodic", now=NOW,
                      content="The nightly build failed with ModuleNotFoundError: No module "
                              "named 'psycopg' on the new runner")

    result = reflection.reflect(owner=alice, now=NOW + timedelta(minutes=5))

    newer = Insight.objects.get(topic="errors: modulenotfounderror", superseded_by=None)
    assert result["insights_created"] >= 1 and newer.pk != older.pk
    assert "came up 3 times" in newer.memory.content
    assert set(older.cited_ids) < set(newer.cited_ids)
    older.refresh_from_db()
    assert older.superseded_by == newer
    assert older.memory.superseded_by_id == newer.memory_id and older.memory.valid_to
    assert older.memory.status == Status.ACTIVE  # superseded, never deleted
    others = Insight.objects.exclude(topic="errors: modulenotfounderror")
    assert not others.filter(superseded_by__isnull=False).exists()


def test_reflection_never_feeds_on_synthetic_memories(alice, rules, monkeypatch):
    store(alice)
    reflection.reflect(owner=alice, now=NOW)
    insight_memories = {str(pk) for pk in Memory.objects.filter(is_synthetic=True)
                        .values_list("pk", flat=True)}
    shown = []
    for method in ("reflection_questions", "reflection_insights"):
        original = getattr(RulesProvider, method)

        def spy(self, *args, original=original):
            shown.extend(str(m.id) for m in args[-1])
            return original(self, *args)

        monkeypatch.setattr(RulesProvider, method, spy)

    reflection.reflect(owner=alice, now=NOW)

    assert shown and not insight_memories & set(shown)


def test_an_owner_with_only_synthetic_memories_has_nothing_to_reflect_on(alice, rules):
    remember(owner=alice, content="An insight from elsewhere about deploys",
                      kind="insight", is_synthetic=True)
    result = reflection.reflect(owner=alice, now=NOW)
    assert (result["questions"], result["insights_created"]) == (0, 0)


def test_a_dry_run_reports_the_insights_and_stores_nothing(alice, rules):
    store(alice)
    reflection.note_new_memories(alice, [80, 80])
    before = ReflectionState.objects.get(owner=alice).accumulated_importance
    result = reflection.reflect(owner=alice, now=NOW, dry_run=True)
    assert result["insights_created"] == 4 and len(result["insights"]) == 4
    assert all(i["cited"] for i in result["insights"])
    assert not Insight.objects.exists() and not Memory.objects.filter(is_synthetic=True).exists()
    assert ReflectionState.objects.get(owner=alice).accumulated_importance == before


def test_one_owners_reflection_sees_only_their_memories(alice, bob, rules):
    store(alice)
    store(bob, SAMPLE[:2])
    reflection.reflect(owner=bob, now=NOW)
    assert not Insight.objects.exists()
    reflection.reflect(owner=alice, now=NOW)
    bobs = set(Memory.objects.for_owner(bob).values_list("pk", flat=True))
    for insight in Insight.objects.all():
        assert insight.owner == alice and not bobs & set(insight.cited_ids)


# --- The trigger ---------------------------------------------------------------------------


def test_new_memories_and_observations_are_counted_in_one_statement_each(alice,
                                                                         django_assert_num_queries):
    with django_assert_num_queries(1):
        reflection.note_new_memories(alice, [8, 9.5])
    with django_assert_num_queries(1):
        reflection.note_observation(alice)
    with django_assert_num_queries(0):
        reflection.note_new_memories(alice, [])
    reflection.note_new_memories(alice, [3])
    state = ReflectionState.objects.get(owner=alice)
    assert (state.accumulated_importance, state.observations_since) == (20.5, 1)


def test_reflection_is_recommended_with_its_reason(alice):
    assert reflection.recommendation(alice, NOW)["recommended"] is False
    reflection.note_new_memories(alice, [9] * 17)
    recommended = reflection.recommendation(alice, NOW)
    assert (recommended["recommended"], recommended["reason"]) == (True, "importance_threshold")
    assert recommended["message"].startswith("Reflection recommended")
    assert recommended["accumulated_importance"] == 153


def test_the_time_trigger_counts_from_the_last_reflection(alice, settings):
    settings.ENGRAM_REFLECTION_HOURS = 24
    reflection.note_new_memories(alice, [5])
    ReflectionState.objects.filter(owner=alice).update(last_reflected_at=NOW - timedelta(hours=25))
    assert reflection.recommendation(alice, NOW)["reason"] == "time_threshold"
    assert reflection.recommendation(alice, NOW - timedelta(hours=2))["recommended"] is False


def test_a_reflection_resets_the_state(alice, rules):
    store(alice)
    reflection.note_new_memories(alice, [100, 60])
    for _ in range(3):
        reflection.note_observation(alice)
    reflection.reflect(owner=alice, now=NOW)
    state = ReflectionState.objects.get(owner=alice)
    assert (state.accumulated_importance, state.observations_since) == (0, 0)
    assert (state.last_reflected_at, state.last_reason) == (NOW, "importance_threshold")
    assert reflection.recommendation(alice, NOW + timedelta(hours=30))["recommended"] is False


def test_the_sweep_reflects_only_owners_whose_trigger_fired(alice, bob, charlie, rules):
    store(alice)
    store(bob)
    reflection.note_new_memories(alice, [150])
    reflection.note_new_memories(bob, [10])
    result = reflection.reflect(now=NOW)
    assert list(result["reflected"]) == ["alice"]
    assert set(Insight.objects.values_list("owner__username", flat=True)) == {"alice"}


# --- Flagging and review -------------------------------------------------------------------


@pytest.fixture
def insight(alice, rules):
    store(alice)
    reflection.reflect(owner=alice, now=NOW)
    return Insight.objects.select_related("memory").get(
        memory__content__startswith="Repeated instruction")


def test_insights_citing_a_memory_are_flagged_once(insight):
    other = Insight.objects.exclude(pk=insight.pk).first()
    assert reflection.flag_insights_citing([insight.cited_ids[0]], "it was deleted") == 1
    insight.refresh_from_db()
    assert (insight.status, insight.flagged_reason) == (InsightStatus.FLAGGED,
                                                        "it was deleted")
    assert reflection.flag_insights_citing([insight.cited_ids[0]], "again") == 0
    assert Insight.objects.get(pk=other.pk).status == InsightStatus.PENDING_REVIEW


def test_deleting_a_cited_memory_flags_the_insight(insight, alice):
    """Needs the hook in memories.services.update_memory."""
    delete_memory(Memory.objects.get(pk=insight.cited_ids[0]), by=alice)
    insight.refresh_from_db()
    assert insight.status == InsightStatus.FLAGGED and "deleted" in insight.flagged_reason


def test_forgetting_a_cited_memory_flags_the_insight(insight):
    """Needs the hook in memories.maintenance._set_status."""
    Memory.objects.filter(pk__in=insight.cited_ids).update(
        created_at=NOW - timedelta(days=400), last_accessed_at=NOW - timedelta(days=400),
        importance=1)
    forget(owner=insight.owner, now=NOW)
    insight.refresh_from_db()
    assert insight.status == InsightStatus.FLAGGED


def test_superseding_a_cited_memory_flags_the_insight(insight, alice):
    """Needs the hook in memories.maintenance._supersede."""
    cited = Memory.objects.get(pk=insight.cited_ids[0])
    newer = remember(owner=alice, content="Run ruff only in CI, never before "
                                                   "committing").memory
    contradiction = Contradiction.objects.create(owner=alice, memory_a=cited, memory_b=newer)
    resolve_contradiction(contradiction, resolution=Resolution.B_WINS, by=alice)
    insight.refresh_from_db()
    assert insight.status == InsightStatus.FLAGGED and "superseded" in insight.flagged_reason


def test_a_superseded_memory_is_not_reflected_on_again(insight, alice):
    cited = Memory.objects.get(pk=insight.cited_ids[0])
    Memory.objects.filter(pk=cited.pk).update(superseded_by=insight.memory)
    result = reflection.reflect(owner=alice, now=NOW)
    assert result["insights_created"] == 0  # one instruction alone repeats nothing


def test_rejecting_an_insight_archives_its_memory_and_approving_restores_it(insight, alice):
    reflection.review(insight, approve=False, by=alice)
    insight.refresh_from_db()
    assert insight.status == InsightStatus.REJECTED and insight.reviewed_by == alice
    assert Memory.objects.get(pk=insight.memory_id).status == Status.ARCHIVED
    reflection.review(insight, approve=True, by=alice)
    assert Memory.objects.get(pk=insight.memory_id).status == Status.ACTIVE
    assert Insight.objects.get(pk=insight.pk).status == InsightStatus.APPROVED


# --- A model reflects (Anthropic's SDK, over HTTP to a fake server with recorded replies) ---------------------


@pytest.fixture
def anthropic(settings, fake_anthropic):
    settings.ENGRAM_LLM_PROVIDER = "anthropic"
    settings.ANTHROPIC_API_KEY = "sk-ant-test-key"
    return fake_anthropic


CI_MEMORIES = [
    (("CI failed with ModuleNotFoundError: No module named 'psycopg' after the cache was "
      "cleared"), "error", ["ci"]),
    ("Pinning psycopg[binary]==3.2.1 in requirements-dev.txt fixed the CI import error",
     "fact", ["ci"]),
]
QUESTIONS = {"questions": [{"text": "What keeps breaking CI, and what fixed it?",
                            "about": [1, 2]}]}
INSIGHTS = {"insights": [
    {"text": "Pin psycopg in CI (because of 1, 2)", "importance": 9},
    {"text": "Kubernetes pods restart nightly (because of 7)", "importance": 7},
    {"text": "The CI cache is cleared now and then (because of 2, 42)", "importance": 5},
]}
REFINED = ("When the CI cache is cleared, always keep psycopg[binary]==3.2.1 pinned in "
           "requirements-dev.txt, because an unpinned install lacks the module")
REFINEMENT = {"insights": [{"text": f"{REFINED} (because of 1, 2)", "importance": 9}]}


def test_a_model_reflects_with_citations_and_refines_what_matters(alice, anthropic):
    fix, error = store(alice, CI_MEMORIES)[::-1]  # numbered newest first: 1 is the fix
    anthropic.answer(reply(QUESTIONS), reply(INSIGHTS), reply(REFINEMENT))

    result = reflection.reflect(owner=alice, now=NOW)

    assert (result["questions"], result["insights_created"], result["dropped_uncited"],
            result["refined"]) == (1, 2, 1, 1)
    refined = Insight.objects.get(round=1)
    assert refined.memory.content == REFINED
    assert refined.cited_ids == [fix.pk, error.pk] and refined.importance == 9
    assert refined.question == "What keeps breaking CI, and what fixed it?"
    assert refined.reflected_by == "anthropic"
    partly = Insight.objects.get(round=0)  # its citation of a 42nd statement was dropped
    assert partly.memory.content == "The CI cache is cleared now and then"
    assert partly.cited_ids == [error.pk]
    assert not Memory.objects.filter(content__icontains="Kubernetes").exists()

    sent = [request.json() for request in anthropic.requests]
    assert "because of 1, 3, 7" in sent[1]["system"]
    assert "Refine this insight" in sent[2]["messages"][0]["content"]
    assert "Pin psycopg in CI" in sent[2]["messages"][0]["content"]
    assert list(ModelCall.objects.order_by("id").values_list("purpose", "ok")) == [
        ("reflect_questions", True), ("reflect_insights", True), ("reflect_insights", True)]


def test_a_failing_model_falls_back_to_the_rules(alice, anthropic):
    store(alice)
    anthropic.answer(anthropic_error(500, "overloaded"))

    result = reflection.reflect(owner=alice, now=NOW)

    assert result["insights_created"] == 4
    assert result["reflected"]["alice"]["reflected_by"].startswith("rules (anthropic failed")
    assert ModelCall.objects.get().ok is False


# --- The job, the command and the API (need the wiring: JOB_RUNNERS, urls) ------------------


def test_a_reflection_job_records_its_progress_and_result(alice, rules):
    store(alice)
    job = run_job(create_job(JobKind.REFLECT, owner=alice).pk)
    assert job.status == JobStatus.DONE
    assert job.progress_done == job.progress_total == 4
    assert job.result["insights_created"] == 4


def test_the_reflect_command_has_a_dry_run(alice, rules, capsys):
    from django.core.management import call_command

    store(alice)
    call_command("reflect", "--dry-run", "--owner", "alice")
    out = json.loads(capsys.readouterr().out)
    assert out["dry_run"] is True and out["insights_created"] == 4
    assert not Insight.objects.exists()


def test_reflect_on_demand_returns_a_job_that_runs(alice, rules, api_client_for,
                                                   django_capture_on_commit_callbacks):
    store(alice)
    client = api_client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/reflect", {}, format="json")
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.kind, job.owner, job.status) == (JobKind.REFLECT, alice, JobStatus.DONE)
    assert client.get(f"/api/v1/jobs/{job.pk}").json()["result"]["insights_created"] == 4


def test_a_second_reflection_while_one_waits_is_a_409(alice, rules, api_client_for):
    client = api_client_for(alice)
    first = client.post("/api/v1/reflect", {}, format="json")  # queued: nothing commits
    assert first.status_code == 202
    second = client.post("/api/v1/reflect", {}, format="json")
    assert second.status_code == 409
    assert first.json()["id"] in second.json()["error"]["message"]
    assert Job.objects.filter(owner=alice, kind=JobKind.REFLECT).count() == 1


def test_insights_are_listed_with_their_citations_and_filtered_by_status(insight, alice,
                                                                        api_client_for):
    client = api_client_for(alice)
    page = client.get("/api/v1/insights").json()
    assert len(page["results"]) == 4
    listed = next(i for i in page["results"] if i["id"] == str(insight.pk))
    assert listed["text"] == insight.memory.content
    assert [c["id"] for c in listed["citations"]] == [str(i) for i in insight.cited_ids]
    assert listed["citations"][0]["content"] == Memory.objects.get(
        pk=insight.cited_ids[0]).content
    reflection.flag_insights_citing([insight.cited_ids[0]], "edited")
    flagged = client.get("/api/v1/insights", {"status": "flagged"}).json()["results"]
    assert [i["id"] for i in flagged] == [str(insight.pk)]
    assert flagged[0]["flagged_reason"] == "edited"
    assert client.get("/api/v1/insights", {"status": "nonsense"}).status_code == 400


def test_an_insight_is_reviewed_over_the_api(insight, alice, api_client_for):
    client = api_client_for(alice)
    response = client.post(f"/api/v1/insights/{insight.pk}/review", {"approve": False},
                           format="json")
    assert response.status_code == 200 and response.json()["status"] == "rejected"
    assert client.post(f"/api/v1/insights/{insight.pk}/review", {},
                       format="json").status_code == 400


def test_the_reflection_state_says_whether_it_is_recommended(alice, api_client_for):
    reflection.note_new_memories(alice, [160])
    body = api_client_for(alice).get("/api/v1/reflection").json()
    assert (body["recommended"], body["reason"]) == (True, "importance_threshold")
    assert body["message"].startswith("Reflection recommended")
    assert body["insights"] == {"pending_review": 0, "approved": 0, "rejected": 0,
                                "flagged": 0}


def test_each_owner_sees_and_reviews_only_their_own_insights(insight, alice, bob, charlie,
                                                             api_client_for):
    bob_client, charlie_client = api_client_for(bob), api_client_for(charlie)
    assert bob_client.get("/api/v1/insights").json()["results"] == []
    response = bob_client.post(f"/api/v1/insights/{insight.pk}/review", {"approve": True},
                               format="json")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert Insight.objects.get(pk=insight.pk).status == InsightStatus.PENDING_REVIEW
    state = charlie_client.get("/api/v1/reflection").json()
    assert (state["recommended"], state["insights"]["pending_review"]) == (False, 0)
    assert api_client_for(alice).get("/api/v1/reflection").json()["insights"][
        "pending_review"] == 4
    assert bob_client.get("/api/v1/insights").status_code == 200
    from rest_framework.test import APIClient

    assert APIClient().get("/api/v1/insights").status_code == 401
