"""`engram_bench http` says where each request's CPU went: the server's processes, the
database server's and the clients'."""

import re
import subprocess
import sys

import pytest
from django.db import connection

from memories.management.commands.engram_bench import CpuSpent, process_tree

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n" \
       "time.sleep(30)"


@pytest.fixture
def busy_server():
    server = subprocess.Popen([sys.executable, "-c", BURN])
    yield server
    server.kill()
    server.wait()


def spent_ms(line: str) -> dict[str, float]:
    return {name: float(ms) for name, ms in re.findall(r"(\w+) (\d+\.\d+) ms", line)}


@pytest.mark.django_db
def test_the_server_s_cpu_is_shared_out_over_the_requests(busy_server):
    spent = CpuSpent(busy_server)
    while busy_server.poll() is None and spent.used(process_tree(busy_server.pid)[0]) < 0.3:
        pass
    line = spent.per(10)
    # the server burnt 0.3 s of CPU (part of it before the count began) over 10 requests
    assert 0 < spent_ms(line)["server"] <= 30.5
    assert spent_ms(line)["total"] >= spent_ms(line)["server"]


@pytest.mark.django_db
def test_the_database_server_s_work_is_counted_when_it_runs_here(busy_server):
    spent = CpuSpent(busy_server)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM generate_series(1, 3000000)")
    assert spent_ms(spent.per(1))["PostgreSQL"] > 50


@pytest.mark.django_db
def test_a_role_that_may_not_see_the_data_directory_leaves_the_database_out(busy_server):
    with connection.cursor() as cursor:
        cursor.execute("CREATE ROLE bench_reader")
        cursor.execute("SET ROLE bench_reader")
    try:
        spent = CpuSpent(busy_server)
        assert spent.database() == []
        assert "PostgreSQL" not in spent_ms(spent.per(1)) and "server" in spent_ms(spent.per(1))
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
