"""The repository is a Claude Code plugin and its own marketplace, in the documented shapes."""
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

EVENTS = {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "PreCompact",
          "SessionEnd"}


def read(path: str) -> dict:
    return json.loads((ROOT / path).read_text())


def test_every_hook_runs_the_plugins_own_engram_hook():
    hooks = read("hooks/hooks.json")["hooks"]  # without the "hooks" wrapper it fails to load
    assert set(hooks) == EVENTS
    commands = {hook["command"] for groups in hooks.values() for group in groups
                for hook in group["hooks"]}
    assert commands == {'"${CLAUDE_PLUGIN_ROOT}/bin/engram-hook"'}
    assert os.access(ROOT / "bin" / "engram-hook", os.X_OK)


def test_only_prompt_hooks_make_the_agent_wait():
    hooks = read("hooks/hooks.json")["hooks"]
    waits = {event for event, groups in hooks.items() for group in groups
             for hook in group["hooks"] if not hook.get("async")}
    # SessionEnd is not async: Claude Code may be gone before a background hook runs.
    assert waits == {"SessionStart", "UserPromptSubmit", "SessionEnd"}


def test_the_plugin_brings_the_mcp_server_with_the_key_from_the_environment():
    server = read(".mcp.json")["mcpServers"]["engram"]
    assert server["type"] == "http" and server["url"].endswith("/mcp")
    assert server["headers"]["Authorization"] == "Bearer ${ENGRAM_API_KEY}"


def test_the_marketplace_offers_the_plugin_from_this_folder():
    assert read(".claude-plugin/plugin.json")["name"] == "engram"
    [plugin] = read(".claude-plugin/marketplace.json")["plugins"]
    assert (plugin["name"], plugin["source"]) == ("engram", "./")
