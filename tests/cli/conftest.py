import io

import pytest

from engram_client import cli
from memories.services.api_keys import create_api_key


@pytest.fixture
def engram(live_server, alice, monkeypatch, tmp_path):
    """Run `engram ARGS` as alice against a served Engram: (exit code, stdout)."""
    monkeypatch.setenv("ENGRAM_URL", live_server.url)
    monkeypatch.setenv("ENGRAM_API_KEY", create_api_key(owner=alice, name="cli")[1])
    monkeypatch.setenv("ENGRAM_CONFIG", str(tmp_path / "none.json"))

    def run(*args):
        out = io.StringIO()
        return cli.main(list(args), out=out), out.getvalue()
    return run
