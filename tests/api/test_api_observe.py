"""POST /api/v1/observe: agents hand over what happened; it is stored first, scrubbed."""

import pytest

from memories.models import Memory, Observation, ObservationStatus
from tests.helpers import SHOP

SESSION = {"session_id": "s-1", "project": "shop", "agent_id": "claude-code"}
DECISION = ("We decided to use PostgreSQL 16 for the orders service instead of MySQL, "
            "because we need transactional DDL.")


def conversation(*texts, role="user", project="shop"):
    return {**SESSION, "project": project,
            "messages": [{"role": role, "text": t} for t in texts]}


@pytest.fixture
def post(api_client_for, django_capture_on_commit_callbacks):
    """POST as `owner`, then run what the commit queued (the test's transaction never
    commits): with the worker down that only puts the task on the queue."""
    def send(owner, body, path="/api/v1/observe"):
        with django_capture_on_commit_callbacks(execute=True):
            return api_client_for(owner).post(path, body, format="json")
    return send


def test_it_answers_202_with_a_job_id_and_extracts_in_the_background(alice, post,
                                                                    api_client_for):
    response = post(alice, conversation(DECISION))
    assert response.status_code == 202
    job = api_client_for(alice).get(f"/api/v1/observations/{response.json()['job_id']}")
    assert job.status_code == 200
    assert job.json()["status"] == ObservationStatus.DONE
    assert job.json()["memories_created"] >= 1
    assert Memory.objects.for_owner(alice).filter(content__icontains="PostgreSQL 16").exists()


def test_the_observation_is_stored_before_any_work_and_survives_a_stopped_worker(
        alice, post, stopped_worker):
    response = post(alice, conversation(DECISION))
    assert response.status_code == 202
    observation = Observation.objects.get(pk=response.json()["job_id"])
    assert observation.status == ObservationStatus.PENDING
    assert not Memory.objects.for_owner(alice).exists()
    assert stopped_worker.pending_count() == 1


def test_secrets_never_reach_the_database(alice, post):
    key = "sk-ant-api03-" + "Zx9" * 30
    response = post(alice, conversation(
        f"We decided to always export ANTHROPIC_API_KEY={key} in the deploy script."))
    observation = Observation.objects.get(pk=response.json()["job_id"])
    assert key not in str(observation.messages)
    assert observation.notes["redacted"]
    assert not Memory.objects.filter(content__contains=key[:20]).exists()


def test_private_sections_are_dropped(alice, post):
    response = post(alice, conversation(
        "We decided to ship on Fridays. <private>my salary is 90k</private>"))
    observation = Observation.objects.get(pk=response.json()["job_id"])
    assert "salary" not in str(observation.messages)
    assert response.json()["notes"]["private_sections_dropped"] == 1


def test_oversized_text_is_capped_with_a_note(alice, post, settings):
    settings.ENGRAM_CAPTURE_MAX_CHARS = 1000
    response = post(alice, conversation("word " * 2000))
    observation = Observation.objects.get(pk=response.json()["job_id"])
    assert len(observation.messages[0]["text"]) < 1200
    assert "truncated" in observation.messages[0]["text"]
    assert observation.notes["truncated_fields"] == 1


def test_skip_listed_tools_and_paths_are_not_kept(alice, post, settings):
    settings.ENGRAM_CAPTURE_SKIP_TOOLS = ["TodoWrite", "mcp__secret*"]
    body = {**SESSION, "tool_events": [
        {"tool_name": "TodoWrite", "input": {"todos": []}, "response": "ok"},
        {"tool_name": "mcp__secret_vault", "input": "x", "response": "y"},
        {"tool_name": "Read", "input": {"file_path": "/app/.env"}, "response": "A=1",
         "file_paths": ["/app/.env"]},
        {"tool_name": "Bash", "input": {"command": "pytest"}, "response": "3 failed",
         "success": False, "duration_ms": 900, "file_paths": ["/app/tests/test_x.py"]},
    ]}
    response = post(alice, body)
    assert response.status_code == 202
    observation = Observation.objects.get(pk=response.json()["job_id"])
    assert [e["tool_name"] for e in observation.tool_events] == ["Bash"]
    assert observation.notes["skipped_tool_events"] == 3


def test_a_tool_event_with_null_input_or_response_is_taken_as_one_without(alice, post):
    def stored(*events, session):
        response = post(alice, {**SESSION, "session_id": session, "tool_events": list(events)})
        assert response.status_code == 202
        return Observation.objects.get(pk=response.json()["job_id"]).tool_events

    with_nulls = stored({"tool_name": "Bash", "input": {"command": "make"}, "response": None},
                        {"tool_name": "Bash", "input": None, "response": "done"}, session="s1")
    without = stored({"tool_name": "Bash", "input": {"command": "make"}},
                     {"tool_name": "Bash", "response": "done"}, session="s2")
    assert with_nulls == without and len(with_nulls) == 2


def test_the_same_observation_sent_twice_is_stored_once(alice, post):
    first = post(alice, conversation(DECISION)).json()
    second = post(alice, conversation(DECISION)).json()
    assert first["job_id"] == second["job_id"]
    assert (first["duplicate"], second["duplicate"]) == (False, True)
    assert Observation.objects.count() == 1


@pytest.mark.parametrize("body, field", [
    ({**SESSION}, "non_field_errors"),
    ({**SESSION, "messages": [{"role": "boss", "text": "hi"}]}, "messages.0.role"),
    ({**SESSION, "messages": [{"role": "user"}]}, "messages.0.text"),
    ({**SESSION, "tool_events": [{"tool_name": "Bash", "duration_ms": -1}]},
     "tool_events.0.duration_ms"),
    ({**SESSION, "session_id": "s" * 201, "messages": [{"role": "user", "text": "x"}]},
     "session_id"),
    ({**SESSION, "turn_ended": "maybe"}, "turn_ended"),
    ({**SESSION, "turn_ended": True, "turn_id": "t" * 201}, "turn_id"),
    ({**SESSION, "messages": [{"role": "user", "text": "x"}], "turn_id": "t-1"}, "turn_id"),
])
def test_bad_input_is_a_400_naming_the_field_and_stores_nothing(alice, post, body, field):
    response = post(alice, body)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not Observation.objects.exists()


def test_too_many_items_in_one_request_is_a_400(alice, post, settings):
    settings.ENGRAM_CAPTURE_MAX_ITEMS = 3
    response = post(alice, conversation(*"abcd"))
    assert response.status_code == 400
    assert "limit is 3" in response.json()["error"]["message"] + str(
        response.json()["error"].get("fields"))


def test_observations_are_isolated_between_owners(alice, bob, charlie, post,
                                                  api_client_for):
    job = post(alice, conversation(DECISION)).json()["job_id"]
    assert api_client_for(alice).get(f"/api/v1/observations/{job}").status_code == 200
    for other in (bob, charlie):
        assert api_client_for(other).get(f"/api/v1/observations/{job}").status_code == 404
    # bob sending the same text stores his own observation and memories
    bob_job = post(bob, conversation(DECISION)).json()
    assert bob_job["job_id"] != job and not bob_job["duplicate"]
    assert Memory.objects.for_owner(charlie).count() == 0
    contents = {owner: sorted(Memory.objects.for_owner(owner).values_list("content", flat=True))
                for owner in (alice, bob)}
    assert contents[alice] and contents[bob] == contents[alice]


def test_observe_needs_a_key(db):
    from rest_framework.test import APIClient

    assert APIClient().post("/api/v1/observe", conversation(DECISION),
                            format="json").status_code == 401


def test_an_editors_observation_in_a_shared_project_is_captured_for_the_project(
        team, bob, dana, post, api_client_for):
    response = post(bob, conversation(DECISION, project=SHOP))
    assert response.status_code == 202 and response.json()["scope"] == "project"
    memory = Memory.objects.get(content__icontains="PostgreSQL 16")
    assert (memory.owner, memory.scope, memory.shared_with) == (bob, "project", team)
    found = api_client_for(dana).post("/api/v1/memories/search", {
        "query": "which database for the orders service"}, format="json")
    assert found.status_code == 200
    assert str(memory.pk) in [hit["memory"]["id"] for hit in found.json()["results"]]


def test_scope_private_keeps_an_editors_observation_to_themselves(team, bob, post):
    response = post(bob, {**conversation(DECISION, project=SHOP), "scope": "private"})
    assert response.status_code == 202 and response.json()["scope"] == "private"
    assert Memory.objects.get(owner=bob).scope == "private"


def test_a_readers_observation_stays_private_and_scope_project_is_a_403(team, dana,
                                                                        post):
    assert post(dana, conversation(DECISION, project=SHOP)).json()["scope"] == "private"
    refused = post(dana, {**conversation("We decided to ship on Fridays.", project=SHOP),
                          "scope": "project"})
    assert refused.status_code == 403
    assert f"reader of project '{SHOP}'" in refused.json()["error"]["message"]
    assert Observation.objects.count() == 1
    assert set(Memory.objects.values_list("scope", flat=True)) == {"private"}


@pytest.mark.parametrize("body, field, message", [
    ({**conversation(DECISION, project="warehouse"), "scope": "project"}, "project",
     "no project named 'warehouse'"),
    ({**conversation(DECISION, project=""), "scope": "project"}, "project",
     "Name the project"),
    ({**conversation(DECISION, project=SHOP), "scope": "system"}, "scope",
     "not a valid choice"),
])
def test_a_scope_that_cannot_be_met_is_a_400_saying_why(team, bob, post, body, field,
                                                        message):
    response = post(bob, body)
    assert response.status_code == 400
    assert message in response.json()["error"]["fields"][field][0]
    assert not Observation.objects.exists()
