"""The published OpenAPI schema says what the server answers: each answer below has its
status documented, every query parameter sent documented, and its body valid against the
documented one, with no property the schema leaves out. Generated clients are built from
the schema, not from the server."""

import json
from urllib.parse import parse_qs, urlsplit

import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from jsonschema import Draft202012Validator

from memories.capture.observe import observe
from memories.models import Scope
from memories.services.remembering import remember
from reflection.models import Insight
from work.models import Task, TaskStatus

pytestmark = pytest.mark.django_db


def as_json_schema(node):
    """OpenAPI 3.0's dialect as JSON Schema: `nullable` as a null alternative, and an
    object closed to the properties it lists, so an undocumented one fails too."""
    if isinstance(node, list):
        return [as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: as_json_schema(value) for key, value in node.items()}
    if "properties" in converted:
        converted.setdefault("additionalProperties", False)
    if converted.pop("nullable", False):
        return {"anyOf": [{"type": "null"}, converted]}
    return converted


@pytest.fixture(scope="module")
def schema():
    """What /api/schema/ serves."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(document))


def assert_documented(schema, answer, path):
    """`answer` (to a request on the templated `path`) is one the schema describes."""
    request = answer.wsgi_request
    operation = schema["paths"][path][request.method.lower()]
    documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
    assert set(request.GET) <= documented, f"undocumented parameters {set(request.GET)}"
    described = operation["responses"].get(str(answer.status_code))
    assert described, f"{answer.status_code} is not among {list(operation['responses'])}"
    body = described.get("content", {}).get("application/json")
    if body:
        Draft202012Validator(as_json_schema(
            {**body["schema"], "components": schema["components"]})).validate(answer.json())


@pytest.fixture
def api(alice, api_client_for):
    return api_client_for(alice)


def test_a_page_of_memories_and_the_next_one_are_the_documented_cursor_page(schema, api):
    for content in ("The orders API listens on port 8080", "Deploys go out on Tuesdays"):
        api.post("/api/v1/memories", {"content": content}, format="json")
    first = api.get("/api/v1/memories", {"page_size": 1})
    assert_documented(schema, first, "/api/v1/memories")
    cursor = parse_qs(urlsplit(first.json()["next"]).query)["cursor"][0]
    second = api.get("/api/v1/memories", {"page_size": 1, "cursor": cursor})
    assert_documented(schema, second, "/api/v1/memories")
    assert len(first.json()["results"]) == len(second.json()["results"]) == 1


def test_a_page_of_open_contradictions_is_the_documented_page(
        schema, alice, bob, team, api, django_capture_on_commit_callbacks):
    shared = {"project": team.name, "scope": Scope.PROJECT, "shared_with": team}
    for owner, port in ((alice, 8080), (bob, 9090)):
        with django_capture_on_commit_callbacks(execute=True):  # the check runs on commit
            remember(owner=owner, content=f"The orders API listens on port {port}", **shared)
    answer = api.get("/api/v1/contradictions", {"page_size": 10})
    assert [c["resolution"] for c in answer.json()["results"]] == [""]
    assert_documented(schema, answer, "/api/v1/contradictions")


def test_a_page_of_insights_is_the_documented_page(schema, alice, api):
    memory = remember(owner=alice, content="Payments changes always need a second "
                                           "reviewer").memory
    Insight.objects.create(owner=alice, memory=memory, question="What do reviews need?",
                           cited_ids=[memory.pk], text_hash="t", cited_key="c")
    answer = api.get("/api/v1/insights", {"page_size": 10})
    assert len(answer.json()["results"]) == 1
    assert_documented(schema, answer, "/api/v1/insights")


def test_deleting_a_memory_answers_the_documented_memory(schema, api):
    created = api.post("/api/v1/memories", {"content": "The cache TTL is 300 seconds"},
                       format="json").json()["memory"]
    answer = api.delete(f"/api/v1/memories/{created['id']}")
    assert answer.json()["status"] == "deleted"
    assert_documented(schema, answer, "/api/v1/memories/{memory_id}")


def test_removing_a_member_answers_the_documented_project(schema, team, api):
    answer = api.delete(f"/api/v1/projects/{team.name}/members/dana")
    assert "dana" not in [m["username"] for m in answer.json()["members"]]
    assert_documented(schema, answer, "/api/v1/projects/{name}/members/{username}")


def test_an_open_task_whose_intent_is_not_told_yet_is_documented(schema, alice, api):
    Task.objects.create(owner=alice, project="shop", status=TaskStatus.ACTIVE,
                        description="Tidy the imports")
    answer = api.get("/api/v1/work/tasks/open")
    assert [t["intent"] for t in answer.json()] == [""]
    assert_documented(schema, answer, "/api/v1/work/tasks/open")


def test_retrying_an_observation_with_nothing_failed_is_a_documented_409(schema, alice, api):
    observation = observe(owner=alice, messages=[{"role": "user", "text": "Use PostgreSQL"}],
                          tool_events=[], project="shop").observation
    answer = api.post(f"/api/v1/observations/{observation.pk}/retry")
    assert answer.status_code == 409
    assert_documented(schema, answer, "/api/v1/observations/{job_id}/retry")
