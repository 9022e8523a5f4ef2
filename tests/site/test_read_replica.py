"""Search and context read from a real PostgreSQL streaming replica (pg_basebackup of the
suite's server, started in standby mode with the embedded server's own binaries), writes
go to the primary, a request that wrote reads its own write, and a replica that lags or
is down leaves reads to the primary."""

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections

from engram_site.db import embedded, replicas
from memories.services.recall import recall
from memories.services.remembering import remember

ROUTER = "engram_site.db.replicas.ReplicaRouter"

# pg_basebackup and pg_ctl come from the embedded server, and the standby is made from its
# data directory: with DATABASE_URL pointing at another server there is neither.
pytestmark = pytest.mark.skipif(
    not settings.DATABASES["default"].get("EMBEDDED_PGDATA"),
    reason="DATABASE_URL is set: the standby is made from the embedded server's data "
           "directory and binaries, which another server does not give")


def _as_server_user(command: list[str], owner: str) -> list[str]:
    """PostgreSQL refuses root: run as the user that owns the primary's data."""
    return ["runuser", "-u", owner, "--", *command] if os.geteuid() == 0 else command


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def standby(django_db_setup, django_db_blocker):
    """A hot standby of the suite's primary; yields (socket dir, port)."""
    with django_db_blocker.unblock():
        primary = connections["default"].get_connection_params()
    pgdata = Path(connections["default"].settings_dict["EMBEDDED_PGDATA"])
    owner = pwd.getpwuid(pgdata.stat().st_uid).pw_name
    root = Path(tempfile.mkdtemp(prefix="engram-replica-"))
    shutil.chown(root, owner)
    data, port = root / "data", _free_port()
    bin_dir = embedded.bin_dir()

    def run(*command, check=True):
        subprocess.run(_as_server_user([str(c) for c in command], owner), check=check,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    try:
        run(bin_dir / "pg_basebackup", "-h", primary["host"], "-p",
            primary.get("port") or 5432, "-U", primary["user"], "-D", data, "-R",
            "-X", "stream", "-c", "fast")
        run(bin_dir / "pg_ctl", "-D", data, "-l", root / "log", "-w", "-o",
            f"-c port={port} -c listen_addresses='' -c unix_socket_directories={root} "
            "-c hot_standby=on", "start")
        yield str(root), port
    finally:
        if (data / "postmaster.pid").exists():
            run(bin_dir / "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def replica_at(transactional_db, settings):
    """Route reads to a replica at (host, port), as DATABASE_REPLICA_URLS would; the
    test's writes commit, so the replica can replay them."""

    def point(host: str, port: int):
        primary = connections["default"]
        conf = {**primary.settings_dict, "HOST": host, "PORT": str(port),
                "USER": primary.get_connection_params()["user"],
                "EMBEDDED_PGDATA": "",
                "OPTIONS": {**primary.settings_dict["OPTIONS"], "connect_timeout": 2}}
        # An alias made at run time, as Django's test isolation allows one to be
        connections["replica"] = type(primary)(conf, alias="replica")
        settings.ENGRAM_REPLICAS = ["replica"]
        settings.ENGRAM_REPLICA_CHECK_SECONDS = 0  # look again on every read
        settings.ENGRAM_REPLICA_MAX_LAG_BYTES = 1 << 30
        settings.DATABASE_ROUTERS = [ROUTER]

    yield point
    connections["replica"].close()
    del connections["replica"]
    replicas._health.clear()


def _on_replica(sql: str) -> list:
    with connections["replica"].cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall() if cursor.description else []


def _replayed(content: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _on_replica(f"SELECT 1 FROM memories_memory WHERE content = '{content}'"):
            return
        time.sleep(0.05)
    raise AssertionError(f"the replica never replayed {content!r}")


def _found(owner, query: str) -> set[str]:
    with replicas.replica_reads():
        return {hit.memory.content for hit in recall(owner=owner, query=query, limit=10)}


def test_reads_go_to_the_replica_and_a_writer_reads_its_own_writes(
        standby, replica_at, alice, api_client_for, settings):
    replica_at(*standby)
    old = "The staging cluster runs in Dublin"
    remember(owner=alice, content=old)
    _replayed(old)
    _on_replica("SELECT pg_wal_replay_pause()")  # the replica now lags behind on purpose
    try:
        new = "The staging cluster moved to Frankfurt in March"
        remember(owner=alice, content=new)

        with replicas.replica_reads():
            assert replicas.read_alias() == "replica"
        assert _found(alice, "where is the staging cluster") == {old}  # the replica answered
        api = api_client_for(alice)
        searched = api.post("/api/v1/memories/search", {"query": "staging cluster"},
                            format="json").json()["results"]
        assert {hit["memory"]["content"] for hit in searched} == {old}
        context = api.post("/api/v1/memories/context", {"query": "staging cluster"},
                           format="json").json()
        assert old in context["context"] and new not in context["context"]

        with replicas.replica_reads():  # a request that writes reads its own write
            mine = "The staging cluster is backed up hourly"
            remember(owner=alice, content=mine)
            assert replicas.read_alias() == "default"
            seen = {hit.memory.content
                    for hit in recall(owner=alice, query="staging cluster", limit=10)}
        assert seen == {old, new, mine}
        assert replicas.read_alias() == "default"  # outside the mark: the primary

        settings.ENGRAM_REPLICA_MAX_LAG_BYTES = 0  # lagging past the limit: the primary
        assert _found(alice, "staging cluster") == {old, new, mine}
        settings.ENGRAM_REPLICA_MAX_LAG_BYTES = 1 << 30
    finally:
        _on_replica("SELECT pg_wal_replay_resume()")
    _replayed(mine)
    assert _found(alice, "staging cluster") == {old, new, mine}  # caught up: the replica


def test_a_replica_that_does_not_answer_leaves_reads_to_the_primary(replica_at, alice, tmp_path):
    replica_at(str(tmp_path), _free_port())  # nothing listens there
    remember(owner=alice, content="Releases are tagged from the main branch")
    assert _found(alice, "how are releases tagged") == {
        "Releases are tagged from the main branch"}


def test_a_replica_that_died_since_its_last_check_leaves_the_read_to_the_primary(
        replica_at, alice, tmp_path, settings):
    replica_at(str(tmp_path), _free_port())  # nothing listens there any more
    settings.ENGRAM_REPLICA_CHECK_SECONDS = 3600
    replicas._health["replica"] = (time.monotonic(), True)  # it answered at its last check
    remember(owner=alice, content="Hotfixes skip the canary stage")
    with replicas.replica_reads():
        assert replicas.read_alias() == "replica"
        hits = recall(owner=alice, query="do hotfixes go through the canary", limit=5)
        assert [hit.memory.content for hit in hits] == ["Hotfixes skip the canary stage"]
        assert replicas.read_alias() == "default"  # set aside until the next check


def test_database_replica_urls_become_aliases_and_the_router():
    script = ("import json, django; django.setup(); from django.conf import settings as s; "
              "print(json.dumps([s.ENGRAM_REPLICAS, s.DATABASE_ROUTERS, "
              "[(s.DATABASES[a]['HOST'], s.DATABASES[a]['PORT'], s.DATABASES[a]['NAME']) "
              "for a in s.ENGRAM_REPLICAS]]))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "engram_site.settings",
           "DATABASE_REPLICA_URLS":
               "postgres://u@replica-a/engram, postgres://u@replica-b:5433/engram"}
    out = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).parents[2],
                         env=env, capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == [
        ["replica1", "replica2"], [ROUTER],
        [["replica-a", "", "engram"], ["replica-b", 5433, "engram"]]]
