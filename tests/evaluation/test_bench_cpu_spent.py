"""`engram_bench http` says where each request's CPU went: the server's processes, the
database server's and the clients'."""

import re
import subprocess
import sys

import pytest
from django.db import connection

from memories.management.commands.engram_bench import CpuSpent

# Started, it says so and waits for a line; then it burns 0.3 s of CPU, says so and
# sleeps. The count begins after its start-up, whose CPU (more than 5 ms on a slow
# machine) is not the requests'.
BURN = "import sys, time\nprint('ready', flush=True)\nsys.stdin.readline()\n" \
       "end = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n" \
       "print('burnt', flush=True)\ntime.sleep(30)"


@pytest.fixture
def busy_server():
    server = subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert server.stdout.readline() == "ready\n"
    yield server
    server.kill()
    server.wait()


def burn(server) -> None:
    server.stdin.write("go\n")
    server.stdin.flush()
    assert server.stdout.readline() == "burnt\n"


def spent_ms(line: str) -> dict[str, float]:
    return {name: float(ms) for name, ms in re.findall(r"(\w+) (\d+\.\d+) ms", line)}


@pytest.mark.django_db
def test_the_server_s_cpu_is_shared_out_over_the_requests(busy_server):
    spent = CpuSpent(busy_server)
    burn(busy_server)
    line = spent.per(10)
    # the server burnt 0.3 s of CPU over 10 requests; the kernel counts a process's CPU
    # in ticks of 10 ms, at either end of the count
    assert 28 <= spent_ms(line)["server"] <= 32
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
