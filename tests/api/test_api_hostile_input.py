"""Hostile input gets a 4xx in the one error shape, never a 500, and nothing is stored."""

import json

import pytest

from memories.api import views
from memories.models import Memory, Observation
from memories.services.erasing import erase_memory
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice, api_client_for):
    return api_client_for(alice)


def post_raw(api, path, body: str):
    return api.generic("POST", path, body.encode("utf-8", "surrogatepass"),
                       content_type="application/json")


def error(response, status):
    assert response.status_code == status, response.content
    body = response.json()["error"]
    assert body["status"] == status and body["message"]
    return body


@pytest.mark.parametrize("body", [
    {"content": "Deploys run on Fridays", "metadata": {"note": "a\x00b"}},
    {"content": "Deploys run on Fridays", "metadata": {"a\x00": 1}},
    {"content": "Deploys run on Fridays", "tags": ["ok", "bad\x00tag"]},
])
def test_a_nul_character_anywhere_is_a_400_and_nothing_is_stored(api, body):
    message = error(api.post("/api/v1/memories", body, format="json"), 400)["message"]
    assert "nul" in message.lower()
    assert not Memory.objects.exists()


def test_a_lone_surrogate_is_a_400_and_nothing_is_stored(api):
    response = post_raw(api, "/api/v1/memories", '{"content": "broken \\ud800 text"}')
    assert "surrogate" in error(response, 400)["message"].lower()
    assert not Memory.objects.exists()


def test_json_nested_too_deeply_is_a_400(api):
    message = error(post_raw(api, "/api/v1/memories", "[" * 100_000), 400)["message"]
    assert message == "The JSON is nested too deeply to read."


@pytest.mark.parametrize("depth", [300, 700])
def test_json_read_whole_but_nested_deeper_than_engram_walks_is_a_400(api, depth):
    """Python's reader follows it; the checks of what can be stored, walking it
    recursively, did not (a 500)."""
    api.raise_request_exception = False
    metadata = '{"a": ' * depth + "1" + "}" * depth
    response = post_raw(api, "/api/v1/memories",
                        f'{{"content": "Deploys run on Fridays", "metadata": {metadata}}}')
    assert error(response, 400)["message"] == "The JSON is nested too deeply to read."
    assert not Memory.objects.exists()


def test_a_number_longer_than_python_reads_is_a_400_that_names_no_setting_of_the_server(api):
    response = post_raw(api, "/api/v1/memories",
                        '{"content": "Deploys run on Fridays", "importance": ' + "9" * 5000 + "}")
    message = error(response, 400)["message"]
    assert "more than 4,300 digits" in message and "sys." not in message
    assert not Memory.objects.exists()


def test_an_import_line_with_such_a_number_is_a_bad_line_and_the_rest_is_imported(api):
    body = ('{"content": "Deploys run on Fridays"}\n'
            '{"content": "big", "importance": ' + "9" * 5000 + "}\n")
    response = api.generic("POST", "/api/v1/import", body.encode(),
                           content_type="application/x-ndjson")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["imported"]["memories"] == 1
    assert [(e["line"], "4,300 digits" in e["message"]) for e in report["errors"]] == [(2, True)]


def test_json_nested_within_the_limit_is_read(api):
    metadata = '{"a": ' * 120 + "1" + "}" * 120
    response = post_raw(api, "/api/v1/memories",
                        f'{{"content": "Deploys run on Fridays", "metadata": {metadata}}}')
    assert response.status_code == 201, response.content


def test_a_recursion_fault_inside_engram_is_not_blamed_on_the_input(api, monkeypatch):
    def runs_away(**fields):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("memories.api.views.remember", runs_away)
    api.raise_request_exception = False
    response = api.post("/api/v1/memories", {"content": "Deploys run on Fridays"},
                        format="json")
    assert response.status_code == 500
    assert b"nested" not in response.content


def test_a_body_over_the_limit_is_a_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    body = json.dumps({"content": "x" * 200_000})
    assert "over 100,000 bytes" in error(post_raw(api, "/api/v1/memories", body),
                                         413)["message"]
    assert not Memory.objects.exists()


def test_an_observation_with_timestamps_and_nul_characters_is_stored_storably(api):
    response = api.post("/api/v1/observe", {
        "messages": [{"role": "user", "text": "The build fails on CI",
                      "timestamp": "2026-11-24T10:00:00Z"}],
        "tool_events": [{"tool_name": "Bash", "input": "make\x00 test",
                         "response": "exit 2", "success": False}]}, format="json")
    assert response.status_code == 202, response.content
    observation = Observation.objects.get()
    assert observation.messages[0]["timestamp"].startswith("2026-11-24T10:00:00")
    assert "\x00" not in json.dumps(observation.messages + observation.tool_events)
    assert "make\ufffd test" in observation.tool_events[0]["input"]


def test_metadata_over_its_limit_is_a_400_and_nothing_is_stored(api):
    from memories.services.validation import MAX_METADATA_BYTES

    body = {"content": "Deploys run on Fridays", "metadata": {"note": "x" * MAX_METADATA_BYTES}}
    assert "the limit is" in error(api.post("/api/v1/memories", body, format="json"),
                                   400)["message"]
    assert not Memory.objects.exists()
    body["metadata"] = {"note": "x" * 1_000}
    assert api.post("/api/v1/memories", body, format="json").status_code == 201


def test_more_query_parameters_than_django_reads_is_a_400(api, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 10
    query = "&".join(f"tag=t{n}" for n in range(20))
    assert "parameters" in error(api.get(f"/api/v1/memories?{query}"), 400)["message"]


@pytest.mark.parametrize("answer", [
    "[" * 500 + "]" * 500,  # read by json.loads, too deep for `storable` to walk
    '{"a": ' * 500 + "1" + "}" * 500,
    "[" * 5_000 + "]" * 5_000,  # too deep for json.loads
])
def test_a_tool_answer_nested_past_what_python_walks_is_stored(api, answer):
    """Text in the request (a string): the work log read it as JSON, and a RecursionError,
    which is no ValueError, was a 500 and the observation was lost."""
    response = api.post("/api/v1/observe", {
        "messages": [{"role": "user", "text": "The generator prints brackets"}],
        "tool_events": [{"tool_name": "Bash", "input": "./gen", "response": answer,
                         "success": True}]}, format="json")
    assert response.status_code == 202, response.content
    assert Observation.objects.get().tool_events[0]["response"] == answer


@pytest.mark.parametrize(("path", "body"), [
    ("/api/v1/memories", '{"content": "Deploys run on Fridays", "kind": "\\ud800"}'),
    ("/api/v1/memories/search", '{"query": "deploys", "filters": {"kinds": ["\\ud800"]}}'),
    ("/api/v1/memories/context", '{"query": "deploys", "format": "\\udfff"}'),
])
def test_a_lone_surrogate_in_a_choice_is_a_400_naming_the_field(api, path, body):
    response = post_raw(api, path, body)
    assert response.status_code == 400, response.content
    error = json.loads(response.content)["error"]
    assert "\\ud" in error["message"] and "is not a valid choice" in error["message"]
    assert not Memory.objects.exists()


def test_a_huge_refused_value_is_answered_in_a_few_hundred_characters(api):
    response = api.post("/api/v1/memories", {"content": "Deploys run on Fridays",
                                              "kind": "k" * 200_000}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith("kind: ") and error["message"].endswith("valid choice.")
    assert len(response.content) < 2_000


def test_a_memory_erased_by_another_request_meanwhile_is_a_404(api, alice, monkeypatch):
    memory = remember(owner=alice, content="The build pool has 12 machines").memory

    def erased_first(found, **kwargs):  # the other request wins the race for the row
        Memory.objects.filter(pk=found.pk).delete()
        return erase_memory(found, **kwargs)

    monkeypatch.setattr(views, "erase_memory", erased_first)
    response = api.post(f"/api/v1/memories/{memory.pk}/erase")
    assert response.status_code == 404, response.content
    assert response.json()["error"]["message"] == "No such memory for this owner."
