"""Where the hook and the CLI find Engram: the environment first, then the config file.

`manage.py install_claude_hooks` writes the file (mode 0600, it holds a key), so a
person never has to export variables into every shell Claude Code starts from.
"""
import json
import os

DEFAULT_URL = "http://127.0.0.1:8000"


# os.path, not pathlib, and no dataclasses: each would add ~10 ms to every prompt's hook.
def config_path() -> str:
    return os.environ.get("ENGRAM_CONFIG") or os.path.join(
        os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config"),
        "engram", "config.json")


def state_dir() -> str:
    """Per-machine state: each session's read offsets and injections, and the spool."""
    # A plugin's data folder survives plugin updates; outside a plugin, XDG's state home.
    return (os.environ.get("ENGRAM_STATE_DIR") or os.environ.get("CLAUDE_PLUGIN_DATA") or
            os.path.join(os.environ.get("XDG_STATE_HOME")
                         or os.path.expanduser("~/.local/state"), "engram"))


class Config:
    def __init__(self, url: str = DEFAULT_URL, api_key: str = "", timeout: float = 2.0,
                 background_timeout: float = 10.0, session_tokens: int = 2000,
                 prompt_tokens: int = 500, agent_id: str = "claude-code"):
        self.url = url
        self.api_key = api_key
        # Seconds a prompt-time call may take before the agent goes on without memory.
        self.timeout = timeout
        # Seconds for calls in async hooks (PostToolUse, Stop, ...), which delay nobody.
        self.background_timeout = background_timeout
        # Engram tiers a context (critical, relevant, background, index) from 2,000 tokens.
        self.session_tokens = session_tokens
        self.prompt_tokens = prompt_tokens
        self.agent_id = agent_id


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
        with open(config_path(), encoding="utf-8") as file:
            loaded = json.load(file)
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
