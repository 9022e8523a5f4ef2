"""A developer's shell cannot change what the suite tests: tests/conftest.py pins the LLM,
the embedding model and every ENGRAM_ knob, whatever is exported."""

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from memories.providers.embeddings import get_provider
from memories.providers.llm import get_llm_provider

ROOT = Path(__file__).resolve().parents[2]
A_DEVELOPERS_SHELL = {
    "ANTHROPIC_API_KEY": "sk-ant-from-a-developers-shell",
    "ANTHROPIC_BASE_URL": "https://gateway.example.invalid",
    "OPENAI_API_KEY": "sk-from-a-developers-shell",
    "ENGRAM_LLM_PROVIDER": "anthropic",
    "ENGRAM_LLM_EXTRACT_MODEL": "claude-opus-4-1",
    "ENGRAM_LOCAL_EMBEDDING_PRECISION": "fp32",
    "ENGRAM_DEDUP_THRESHOLD": "0.6",
}


def test_the_settings_under_test_are_the_pinned_ones():
    assert (settings.ENGRAM_LLM_PROVIDER, settings.ANTHROPIC_API_KEY,
            settings.ANTHROPIC_BASE_URL, settings.OPENAI_API_KEY) == ("rules", "", "", "")
    assert settings.ENGRAM_LLM_EXTRACT_MODEL == ""
    assert get_llm_provider().name == "rules"
    assert (settings.ENGRAM_EMBEDDING_PROVIDER, settings.ENGRAM_LOCAL_EMBEDDING_PRECISION) == (
        "local", "int8")
    assert get_provider().name == "local"
    assert settings.ENGRAM_DEDUP_THRESHOLD == 0.90
    # what a test starts as a subprocess inherits the pinned environment too
    assert not {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ENGRAM_DEDUP_THRESHOLD"} & set(
        os.environ)


def test_keys_and_knobs_exported_in_the_shell_do_not_reach_the_suite():
    """The check above, run by a pytest started with a developer's keys and knobs set."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"{__file__}::test_the_settings_under_test_are_the_pinned_ones"],
        cwd=ROOT, env={**os.environ, **A_DEVELOPERS_SHELL}, capture_output=True, text=True,
        timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "1 passed" in result.stdout
