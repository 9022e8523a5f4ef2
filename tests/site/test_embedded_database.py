"""The embedded PostgreSQL: shared, restartable with data intact, stopped by the last user."""

import json
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys, psycopg
from engram_site.db import embedded
params = embedded.start(sys.argv[1])
with psycopg.connect(dbname="engram", autocommit=True, **params) as conn:
    conn.execute("CREATE TABLE IF NOT EXISTS notes (body text)")
    if sys.argv[2]:
        conn.execute("INSERT INTO notes VALUES (%s)", [sys.argv[2]])
    rows = [r[0] for r in conn.execute("SELECT body FROM notes ORDER BY body")]
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    version = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
print(json.dumps({"rows": rows, "pgvector": version.fetchone()[0]}))
"""


def run(pgdata, note=""):
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(pgdata), note], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["rows"]


def server_running(pgdata) -> bool:
    pid_file = Path(pgdata) / "postmaster.pid"
    return pid_file.exists() and psutil.pid_exists(int(pid_file.read_text().split()[0]))


@pytest.fixture
def pgdata(tmp_path_factory):
    return tmp_path_factory.mktemp("engram-home") / "pgdata"


def test_it_is_postgresql_18_with_pgvector_0_8(pgdata):
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(pgdata), ""], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1])["pgvector"].startswith("0.8")
    assert (pgdata / "PG_VERSION").read_text().strip() == "18"


def test_data_survives_a_restart_and_the_server_stops_when_its_last_user_exits(pgdata):
    assert run(pgdata, "first") == ["first"]
    assert not server_running(pgdata)
    assert run(pgdata, "second") == ["first", "second"]
    assert not server_running(pgdata)


def test_a_process_that_died_without_detaching_does_not_keep_the_server_up(pgdata):
    run(pgdata, "first")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    (pgdata / ".handle_pids.json").write_text(json.dumps([int(dead.stdout)]))
    assert run(pgdata) == ["first"]
    assert not server_running(pgdata)


THREADS_SCRIPT = """
import json, sys, threading
from engram_site.db import embedded
results, errors = [], []
def attach():
    try:
        results.append(embedded.start(sys.argv[1]))
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=attach) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"errors": errors, "distinct": len({json.dumps(r, sort_keys=True) for r in results})}))
"""


def test_threads_of_one_process_connecting_at_once_attach_once(pgdata):
    """A gunicorn worker's threads take their first connections together."""
    out = subprocess.run([sys.executable, "-c", THREADS_SCRIPT, str(pgdata)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report == {"errors": [], "distinct": 1}
