import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from memories.services.api_keys import create_api_key

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "hooks"


@pytest.fixture
def hook_event():
    """A sample event from tests/fixtures/hooks, with the fields a test needs changed."""
    def payload(name: str, **changes) -> dict:
        return {**json.loads((FIXTURES / f"{name}.json").read_text()), **changes}
    return payload


@pytest.fixture
def transcript(tmp_path):
    path = tmp_path / "transcript.jsonl"
    shutil.copy(FIXTURES / "transcript.jsonl", path)
    return path


@pytest.fixture
def transcript_of(tmp_path):
    """A transcript of `texts`, said by the user and the assistant in turn."""
    def write(texts: list[str]):
        path = tmp_path / "long.jsonl"
        with open(path, "w") as file:
            for number, text in enumerate(texts):
                role = ("user", "assistant")[number % 2]
                file.write(json.dumps({"type": role, "message": {
                    "role": role, "content": [{"type": "text", "text": text}]}}) + "\n")
        return path
    return write


@pytest.fixture
def checkout(tmp_path):
    """A clone of acme/shop, as the hooks' cwd."""
    folder = tmp_path / "projects" / "shop"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n')
    return folder


@pytest.fixture
def closed_url():
    """An address on loopback where nothing listens: Engram down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.fixture
def run_hook(tmp_path):
    """Run `engram-hook` as Claude Code does: a process, the event on stdin."""
    def run(event: dict | bytes, *, url: str, key: str = "", timeout: float = 30, **env):
        environment = {name: value for name, value in os.environ.items()
                       if not name.startswith("ENGRAM_")}
        environment.update(HOME=str(tmp_path / "home"), ENGRAM_URL=url, ENGRAM_API_KEY=key,
                           ENGRAM_STATE_DIR=str(tmp_path / "state"),
                           ENGRAM_CONFIG=str(tmp_path / "no-config.json"), **env)
        stdin = event if isinstance(event, bytes) else json.dumps(event).encode()
        return subprocess.run([sys.executable, str(ROOT / "bin" / "engram-hook")], input=stdin,
                              capture_output=True, env=environment, timeout=timeout,
                              check=False)
    return run


@pytest.fixture
def alice_key(alice):
    return create_api_key(owner=alice, name="hooks")[1]


@pytest.fixture
def state(tmp_path):
    return tmp_path / "state"
