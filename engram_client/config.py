"""Where the hook and the CLI find Engram: the environment first, then the config file.

`manage.py install_claude_hooks` writes the file (mode 0600, it holds a key), so a
person never has to export variables into every shell Claude Code starts from.
"""
import json
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_URL = "http://127.0.0.1:8000"


def config_path() -> Path:
    return Path(os.environ.get("ENGRAM_CONFIG") or
                Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
                / "engram" / "config.json")


def state_dir() -> Path:
    """Per-machine state: each session's read offsets and injections, and the spool."""
    # A plugin's data folder survives plugin updates; outside a plugin, XDG's state home.
    return Path(os.environ.get("ENGRAM_STATE_DIR") or os.environ.get("CLAUDE_PLUGIN_DATA") or
                Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
                / "engram")


@dataclass(frozen=True)
class Config:
    url: str = DEFAULT_URL
    api_key: str = ""
    # Seconds a prompt-time call may take before the agent goes on without memory.
    timeout: float = 2.0
    # Seconds for calls in async hooks (PostToolUse, Stop, ...), which delay nobody.
    background_timeout: float = 10.0
    session_tokens: int = 1500
    prompt_tokens: int = 500
    agent_id: str = "claude-code"


def _number(value, default, low, high):
    if isinstance(value, bool):
        return default
    try:
        number = type(default)(value)
    except (TypeError, ValueError):
        return default
    return number if low <= number <= high else default


def load() -> Config:
    """The settings in force; anything unreadable or out of range falls back to its default,
    because a hook must never fail over its own configuration."""
    stored = {}
    try:
        loaded = json.loads(config_path().read_text(encoding="utf-8"))
        stored = loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        pass
    environ = os.environ
    base = Config()
    url = environ.get("ENGRAM_URL") or stored.get("url") or base.url
    key = environ.get("ENGRAM_API_KEY") or stored.get("api_key") or ""
    return Config(
        url=str(url).rstrip("/"),
        api_key=str(key),
        timeout=_number(environ.get("ENGRAM_TIMEOUT", stored.get("timeout")),
                        base.timeout, 0.1, 60.0),
        background_timeout=_number(stored.get("background_timeout"),
                                   base.background_timeout, 0.1, 300.0),
        session_tokens=_number(environ.get("ENGRAM_SESSION_TOKENS",
                                           stored.get("session_tokens")),
                               base.session_tokens, 100, 8000),
        prompt_tokens=_number(environ.get("ENGRAM_PROMPT_TOKENS", stored.get("prompt_tokens")),
                              base.prompt_tokens, 50, 500),
        agent_id=str(stored.get("agent_id") or base.agent_id)[:200],
    )
