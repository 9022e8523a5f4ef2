"""Two imports of one file at the same moment (a double click, a CLI run again while the
first still runs) store it once: the second waits for the first and finds its memories
and contradictions stored."""

import threading

import pytest
from django.db import connection

from memories.models import Contradiction, Memory
from memories.services.remembering import remember
from memories.services.transfer import export_lines, import_jsonl

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_imports_of_one_file_at_once_store_it_once(alice, bob):
    for n in range(12):
        remember(owner=alice, content=f"Service {n} listens on port {8000 + n}")
    old = remember(owner=alice, content="The orders API listens on port 8080").memory
    new = remember(owner=alice, content="The orders API listens on port 9090").memory
    Contradiction.objects.get_or_create(owner=alice, memory_a=old, memory_b=new)
    data = "".join(export_lines(alice)).encode()
    start, reports, failures = threading.Barrier(2), [], []

    def importing():
        try:
            start.wait()
            reports.append(import_jsonl(bob, data))
        except Exception as exc:  # noqa: BLE001 -- shown by the assertion below
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=importing) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures and len(reports) == 2
    assert Memory.objects.filter(owner=bob).count() == 14
    assert Contradiction.objects.filter(owner=bob).count() == 1
    assert sorted(report.created for report in reports) == [0, 14]
    assert sorted(report.already_stored for report in reports) == [0, 14]
