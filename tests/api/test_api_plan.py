"""/api/v1/work/plan/...: the decision helpers over the API, validated, within the
key's project."""

import pytest
from rest_framework.test import APIClient

from memories.services.api_keys import create_api_key


@pytest.fixture(autouse=True)
def rules(settings):
    settings.ENGRAM_LLM_PROVIDER = "rules"


def test_deviation_decomposition_and_next_action_answer_with_the_rules(alice, api_client_for):
    client = api_client_for(alice)
    deviation = client.post("/api/v1/work/plan/deviation", {
        "goal": "Ship v2", "observation": "User: stop, do the hotfix first"}, format="json")
    assert deviation.json() == {"deviate": True, "reason": "user_instruction",
                                "decided_by": "rules", "note": ""}
    plan = client.post("/api/v1/work/plan/decompose", {
        "goal": "1. schema 2. endpoint 3. tests", "minutes": 45}, format="json").json()
    assert [p["goal"] for p in plan["plan"]["subplans"]] == ["schema", "endpoint", "tests"]
    action = client.post("/api/v1/work/plan/next-action", {
        "goals": [{"text": "Fix the login failure"}],
        "context": "The login failure log says the token expired", "coverage": 0.9},
        format="json").json()
    # coverage 0.9: retrieval 0.1, grounding 1.0 (no goal done): grounding wins
    assert action["selected"]["type"] == "grounding" and action["coverage"] == 0.9


@pytest.mark.parametrize("path, body", [
    ("deviation", {"goal": "x"}),
    ("decompose", {"goal": "x", "minutes": 0}),
    ("decompose", {"goal": "x", "minutes": 60, "max_depth": 9}),
    ("next-action", {"goals": []}),
    ("next-action", {"goals": [{"text": "x"}], "recent_actions": ["dancing"]}),
    ("next-action", {"goals": [{"text": "x"}], "coverage": 2}),
])
def test_bad_input_is_a_400(alice, api_client_for, path, body):
    answer = api_client_for(alice).post(f"/api/v1/work/plan/{path}", body, format="json")
    assert answer.status_code == 400


def test_a_restricted_key_cannot_work_in_another_project(alice):
    _, raw = create_api_key(owner=alice, name="shop", project="shop")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    answer = client.post("/api/v1/work/plan/deviation", {
        "goal": "x", "observation": "Tests passed", "project": "blog"}, format="json")
    assert answer.status_code == 403
