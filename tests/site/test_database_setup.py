"""Engram refuses, in one sentence, a database it cannot use."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import service_answers

ROOT = Path(__file__).resolve().parents[2]
PLAIN_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"


def run_manage(*args, database_url):
    env = {**os.environ, "DATABASE_URL": database_url}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def assert_one_sentence(result, *fragments):
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.skipif(not service_answers(5432),
                    reason="no PostgreSQL without pgvector answers on 127.0.0.1:5432")
def test_migrate_stops_with_one_sentence_when_pgvector_is_missing():
    result = run_manage("migrate", database_url=PLAIN_POSTGRES)
    assert_one_sentence(result, "127.0.0.1:5432/postgres", "no pgvector extension",
                        "unset DATABASE_URL")


@pytest.mark.skipif(not service_answers(5432),
                    reason="no PostgreSQL without pgvector answers on 127.0.0.1:5432")
def test_start_up_stops_with_the_same_sentence():
    result = run_manage("check", "--database", "default", database_url=PLAIN_POSTGRES)
    assert_one_sentence(result, "no pgvector extension")


def test_an_unreachable_server_is_named_with_the_fix():
    result = run_manage("migrate", database_url="postgres://postgres@127.0.0.1:9/engram")
    assert_one_sentence(result, "cannot reach PostgreSQL at 127.0.0.1:9/engram",
                        "check DATABASE_URL")


def test_a_non_postgres_url_is_refused():
    result = run_manage("migrate", database_url="sqlite:///engram.db")
    assert_one_sentence(result, "PostgreSQL + pgvector only")
