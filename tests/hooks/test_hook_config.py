"""The hook's settings: the environment wins over the config file, and nothing in either
can make the hook fail (a bad value falls back to its default)."""
import json

import pytest

from engram_client import config


@pytest.fixture
def config_file(tmp_path, monkeypatch):
    path = tmp_path / "config.json"
    monkeypatch.setenv("ENGRAM_CONFIG", str(path))
    for name in ("ENGRAM_URL", "ENGRAM_API_KEY", "ENGRAM_TIMEOUT", "ENGRAM_SESSION_TOKENS",
                 "ENGRAM_PROMPT_TOKENS"):
        monkeypatch.delenv(name, raising=False)
    return path


def test_the_config_file_is_read_and_the_environment_overrides_it(config_file, monkeypatch):
    config_file.write_text(json.dumps({"url": "http://10.0.0.5:8000/", "api_key": "engram_a",
                                       "timeout": 1.5, "prompt_tokens": 300}))
    loaded = config.load()
    assert (loaded.url, loaded.api_key, loaded.timeout, loaded.prompt_tokens) == (
        "http://10.0.0.5:8000", "engram_a", 1.5, 300)
    monkeypatch.setenv("ENGRAM_API_KEY", "engram_b")
    monkeypatch.setenv("ENGRAM_TIMEOUT", "0.5")
    assert (config.load().api_key, config.load().timeout) == ("engram_b", 0.5)


@pytest.mark.parametrize("stored", [{"timeout": "soon"}, {"timeout": 10_000},
                                    {"prompt_tokens": 5000}, {"timeout": True}, [1, 2]])
def test_a_bad_value_falls_back_to_its_default(config_file, stored):
    config_file.write_text(json.dumps(stored))
    loaded = config.load()
    assert (loaded.timeout, loaded.prompt_tokens) == (2.0, 500)


def test_an_unreadable_file_means_the_defaults(config_file):
    config_file.write_text("{ not json")
    loaded = config.load()
    assert (loaded.url, loaded.api_key, loaded.session_tokens) == (
        config.DEFAULT_URL, "", 2000)
