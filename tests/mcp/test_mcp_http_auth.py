"""/mcp answers only to an Engram API key, and never invites an OAuth flow."""

import httpx
import pytest
from mcp_helpers import mcp_client, run_async

pytestmark = pytest.mark.django_db(transaction=True)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "curl", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def tool_names(base_url, key, statuses=None):
    async def scenario():
        async with mcp_client(base_url, key, statuses) as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)
    return run_async(scenario)


def test_a_valid_key_lists_the_memory_tools(server_url, alice, key_for):
    assert tool_names(server_url, key_for(alice)) == sorted([
        "memory_search", "memory_context", "memory_remember", "memory_observe",
        "memory_feedback", "memory_forget", "memory_related", "memory_reflect",
        "memory_contradictions", "memory_resolve", "memory_projects", "work_file_history",
        "work_co_edits", "work_tool_success_rates", "work_open_tasks", "work_error_fixes",
        "context_predict",
        "plan_deviation", "plan_decompose", "plan_next_action", "code_definitions",
        "code_callers", "code_file", "code_dependencies", "code_dependents", "code_reindex"])


@pytest.mark.parametrize("key", ["engram_not-a-real-key", None], ids=["wrong key", "no key"])
def test_a_wrong_or_missing_key_gets_no_tools(server_url, key):
    statuses = []
    with pytest.raises(Exception, match="unhandled errors|error response"):
        tool_names(server_url, key, statuses)
    assert statuses and set(statuses) == {401}


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer engram_wrong"},
                                     {"Authorization": "Basic YWxpY2U6c2VjcmV0"}],
                         ids=["none", "unknown key", "not bearer"])
def test_the_401_names_no_resource_metadata(server_url, headers):
    answer = httpx.post(f"{server_url}/mcp", json=INITIALIZE,
                        headers={**MCP_HEADERS, **headers})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert answer.json()["error"]["code"] == "unauthorized"
    assert "tools" not in answer.text


def test_a_revoked_key_is_refused(server_url, alice):
    from memories.services.api_keys import create_api_key, revoke_api_key

    key, raw = create_api_key(owner=alice, name="soon revoked")
    revoke_api_key(key)
    answer = httpx.post(f"{server_url}/mcp", json=INITIALIZE,
                        headers={**MCP_HEADERS, "Authorization": f"Bearer {raw}"})
    assert answer.status_code == 401


@pytest.mark.parametrize("path", [
    "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration",
    "/register"])
def test_oauth_discovery_paths_are_a_plain_404(server_url, path):
    for method in ("GET", "POST"):
        answer = httpx.request(method, f"{server_url}{path}")
        assert answer.status_code == 404
        assert answer.headers["content-type"] == "text/plain"
        assert answer.text == "Not Found"


def test_the_dashboard_api_and_static_files_are_served_beside_mcp(server_url, alice, key_for):
    assert httpx.get(f"{server_url}/healthz").json()["status"] in ("ok", "degraded")
    assert httpx.get(f"{server_url}/accounts/login/").status_code == 200
    assert httpx.get(f"{server_url}/").headers["location"].startswith("/accounts/login/")
    css = httpx.get(f"{server_url}/static/engram/engram.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    search = httpx.post(f"{server_url}/api/v1/memories/search", json={"query": "anything"},
                        headers={"Authorization": f"Bearer {key_for(alice)}"})
    assert search.status_code == 200 and search.json() == {"results": []}


def test_an_engram_url_ending_in_a_slash_still_reaches_the_tools(server_url, alice, key_for):
    """The plugin's .mcp.json appends "/mcp" to ENGRAM_URL: "http://host:8000/" gives
    "//mcp"."""
    assert "memory_search" in tool_names(server_url + "/", key_for(alice))
