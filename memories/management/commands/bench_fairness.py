"""How long another owner's agent waits while one owner imports: the fairness benchmark.

A real Huey worker (`run_huey`, on this Engram's queue) runs beside this process. Owner A
stores COUNT memories, one by one or in import batches, from a thread; meanwhile owner B,
every few seconds, stores a contradicting pair and hands over an observation, and the
command measures how long until the pair is flagged and the observation extracted. The
same tries run with the queue idle first. Figures go to docs/BENCHMARKS.md.
"""

import statistics
import subprocess
import sys
import threading
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from huey.contrib.djhuey import HUEY

from memories.capture.observe import observe
from memories.models import Contradiction, Memory, Observation, ObservationStatus
from memories.providers.embeddings import get_provider
from memories.services.remembering import NewMemory, remember, remember_many

VERSIONS = ["PostgreSQL 14", "PostgreSQL 15", "PostgreSQL 16", "PostgreSQL 17"]
SERVICES = ["billing", "search", "auth", "orders", "ledger", "gateway", "inventory"]


def _percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class Command(BaseCommand):
    help = "Owner B's wait for a flagged contradiction and an extraction while A imports."

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, default=10_000)
        parser.add_argument("--tries", type=int, default=20)
        parser.add_argument("--mode", choices=["one-by-one", "import"], default="one-by-one")
        parser.add_argument("--timeout", type=float, default=120.0,
                            help="seconds to wait for one flag or extraction")

    def handle(self, *args, count, tries, mode, timeout, **options):
        if settings.HUEY.get("immediate"):
            raise CommandError("Set HUEY_IMMEDIATE=false: the benchmark needs a real worker.")
        users = get_user_model().objects
        a, _ = users.get_or_create(username="bench-fair-a")
        b, _ = users.get_or_create(username="bench-fair-b")
        for owner in (a, b):
            Memory.objects.filter(owner=owner).delete()
            Observation.objects.filter(owner=owner).delete()
        get_provider().embed_documents(["warm-up"])
        HUEY.flush()
        worker = subprocess.Popen([sys.executable, "manage.py", "run_huey", "-w", "2"],
                                  cwd=settings.BASE_DIR, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            idle = self._tries(b, tries, timeout, "idle")
            done = threading.Event()
            rate = {}
            thread = threading.Thread(target=self._import, args=(a, count, mode, done, rate))
            thread.start()
            busy = self._tries(b, tries, timeout, "busy", stop=done)
            thread.join()
        finally:
            worker.terminate()
            worker.wait(timeout=30)
        self.stdout.write(f"mode {mode}, {count} memories for A at {rate['per_second']:.1f}/s")
        for name, found in (("idle", idle), ("during A's import", busy)):
            for what in ("flagged", "extracted"):
                seconds = [s for s in found[what] if s is not None]
                missed = len(found[what]) - len(seconds)
                if seconds:
                    self.stdout.write(
                        f"{name}: {what} p50 {statistics.median(seconds):.1f} s, p95 "
                        f"{_percentile(seconds, 0.95):.1f} s over {len(seconds)} tries"
                        + (f", {missed} not within {timeout:.0f} s" if missed else ""))
                else:
                    self.stdout.write(f"{name}: {what} never within {timeout:.0f} s")

    def _import(self, owner, count, mode, done, rate):
        started = time.monotonic()
        try:
            texts = [f"Import {i}: the {SERVICES[i % 7]} job number {i} moved {i * 13} rows "
                     f"to shard {i % 11}" for i in range(count)]
            if mode == "one-by-one":
                for text in texts:
                    remember(owner=owner, content=text)
            else:
                for start in range(0, count, 500):
                    remember_many(owner=owner, items=[NewMemory(content=t)
                                                      for t in texts[start:start + 500]])
        finally:
            rate["per_second"] = count / (time.monotonic() - started)
            connection.close()
            done.set()

    def _tries(self, owner, tries, timeout, label, stop=None):
        found = {"flagged": [], "extracted": []}
        for n in range(tries):
            service = f"{SERVICES[n % 7]}-{label}-{n}"
            started = time.monotonic()
            first = remember(owner=owner, content=f"The {service} database runs "
                                                  f"{VERSIONS[n % 4]}.").memory
            second = remember(owner=owner, content=f"The {service} database runs "
                                                   f"{VERSIONS[(n + 1) % 4]}.").memory
            observed = observe(owner=owner, tool_events=[], messages=[
                {"role": "user", "text": f"We decided the {service} service deploys with "
                                         f"blue-green releases from now on."},
                {"role": "assistant", "text": "Noted: blue-green for that service."}])
            found["flagged"].append(self._wait(timeout, started, lambda: Contradiction.objects
                                               .filter(memory_a__in=[first, second],
                                                       memory_b__in=[first, second]).exists()))
            found["extracted"].append(self._wait(timeout, started, lambda: Observation.objects
                                                 .filter(pk=observed.observation.pk,
                                                         status=ObservationStatus.DONE)
                                                 .exists()))
            self.stdout.write(f"{label} try {n + 1}: flagged {found['flagged'][-1]}, "
                              f"extracted {found['extracted'][-1]}")
            if stop is not None and stop.is_set():
                self.stdout.write("A's import finished; stopping the busy tries here.")
                break
            time.sleep(1)
        return found

    @staticmethod
    def _wait(timeout, started, done):
        while time.monotonic() - started < timeout:
            if done():
                return round(time.monotonic() - started, 2)
            time.sleep(0.2)
        return None
