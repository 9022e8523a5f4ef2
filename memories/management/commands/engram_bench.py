import contextlib
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
import httpx2
import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection, transaction
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from tqdm import tqdm

from memories import selectors
from memories.engine.dedup import content_hash
from memories.evaluation import locomo
from memories.models import Memory
from memories.providers.embeddings import get_provider
from memories.services import vector_indexes
from memories.services.api_keys import create_api_key
from memories.services.copy_insert import insert_by_copy
from memories.services.embeddings import memory_vectors
from memories.services.recall import recall
from memories.services.remembering import (
    NewMemory,
    embedded_ahead,
    remember,
    remember_many,
)

BENCH_USER = "engram-bench"

FIRST = ["Alice","Bob","Charlie","Dana","Eve","Farid","Grace","Hiro","Ines","Jonas","Kemal","Lena","Mina","Noor","Omar","Priya","Quinn","Rosa","Sven","Tara"]
SERVICES = ["checkout","auth","search","billing","gateway","image-resizer","kafka-consumer","feature-flags","etl","websocket-hub","pdf-export","rate-limiter","sessions","csv-import","email","notifications","geo","ledger","inventory","recommendations"]
LANGS = ["Python","Go","Rust","TypeScript","Kotlin","Ruby","Elixir","Java","C#","Swift"]
TOOLS = ["pytest","ruff","mypy","black","eslint","prettier","terraform","helm","docker compose","bazel","poetry","uv","webpack","vite","gradle"]
DBS = ["PostgreSQL","Redis","MySQL","SQLite","DynamoDB","Elasticsearch","ClickHouse","MongoDB","Cassandra","S3"]
ERRS = ["TimeoutError","KeyError","NullPointerException","ECONNRESET","OOMKilled","deadlock detected","429 Too Many Requests","SSL handshake failure","segfault","UnicodeDecodeError","disk full","clock skew"]
TEMPLATES = [
 lambda r,i: f"{r.choice(FIRST)} prefers {r.choice(TOOLS)} over {r.choice(TOOLS)} for the {r.choice(SERVICES)} repo and wants line length {r.choice([79,88,100,120])}.",
 lambda r,i: f"Incident {i}: {r.choice(SERVICES)} hit {r.choice(ERRS)} talking to {r.choice(DBS)}; root cause was a missing index on {r.choice(['user_id','created_at','order_id','tenant_id','sku'])}.",
 lambda r,i: f"Decision: the {r.choice(SERVICES)} service moves from {r.choice(LANGS)} to {r.choice(LANGS)} by Q{r.randint(1,4)} {r.randint(2024,2027)} because of {r.choice(['latency','hiring','memory use','type safety','library support','cost'])}.",
 lambda r,i: f"To release {r.choice(SERVICES)}, run `{r.choice(TOOLS)}` then tag v{r.randint(1,9)}.{r.randint(0,30)}.{r.randint(0,99)} and wait for the {r.choice(['canary','blue-green','staging','smoke'])} checks.",
 lambda r,i: f"{r.choice(FIRST)} asked to never commit directly to {r.choice(['main','release','develop','prod'])}; use a PR with {r.randint(1,3)} reviewers for {r.choice(SERVICES)}.",
 lambda r,i: f"The {r.choice(DBS)} cluster for {r.choice(SERVICES)} is in {r.choice(['eu-west-1','us-east-2','ap-south-1','eu-central-1'])} with {r.choice([2,3,5,7])} replicas and a {r.choice([7,14,30,90])}-day backup retention.",
 lambda r,i: f"Fixed {r.choice(ERRS)} in {r.choice(SERVICES)}/{r.choice(['handlers','models','client','worker','api'])}.py line {r.randint(10,900)} by {r.choice(['retrying with jitter','closing the cursor','bounding the queue','normalising Unicode','raising the ulimit','syncing NTP'])}.",
 lambda r,i: f"Meeting note {i}: {r.choice(FIRST)} and {r.choice(FIRST)} agreed the {r.choice(SERVICES)} API returns {r.choice(['ISO 8601 dates','cents as integers','snake_case keys','cursor pagination','RFC 7807 errors'])}.",
]


def synthetic_memories(count: int, seed: int) -> list[str]:
    """Engineering notes of eight shapes: many share a shape and differ in details,
    which is what makes deduplication and recall hard on real stores."""
    rng = random.Random(seed)
    return [rng.choice(TEMPLATES)(rng, i) for i in range(count)]


def locomo_workload(path: Path) -> list[str]:
    """Every LoCoMo turn as the evaluation stores it, in order, then every turn again with
    a suffix: the second half are near-duplicates, as an agent re-telling its day is."""
    try:
        turns = [turn.content for conversation in locomo.load(path)
                 for turn in conversation.turns]
    except (OSError, ValueError, KeyError) as exc:
        raise CommandError(f"Cannot read LoCoMo from {path}: {exc}") from exc
    return turns + [f"{text} (again)" for text in turns]


def synthetic_queries(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    asks = ["which database does {s} use", "how do we release {s}", "who decided on {s}",
            "what broke in {s} last time", "review rules for {s}", "{s} API conventions"]
    return [rng.choice(asks).format(s=rng.choice(SERVICES)) + f" ({i})" for i in range(count)]



def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Command(BaseCommand):
    help = ("Benchmarks: `store` remembers N memories in bulk and times in-process recall; "
            "`recall` times in-process recall on LoCoMo (--locomo PATH) for owners of "
            "--sizes, optionally beside a --neighbour of SIZE; `memory` sums the served "
            "processes' RSS and PSS with the model loaded per worker and before forking; "
            "`http` seeds stores of each --sizes and drives /context and /search over HTTP "
            "with concurrent clients; `hook` times engram-hook on UserPromptSubmit against "
            "a served store of --count memories, and with Engram stopped; `load` drives "
            "a served store of --count memories at --rate requests/s for --minutes and "
            "samples the server's resident memory (docs/RELIABILITY.md).")

    def add_arguments(self, parser):
        parser.add_argument("what", choices=["store", "recall", "http", "hook", "load",
                                             "memory"])
        parser.add_argument("--neighbour", type=int, default=None, metavar="SIZE",
                            help="recall: also time, in the same run, a large owner of SIZE "
                                 "memories beside the LoCoMo owners (the `http` store of that "
                                 "size, seeded when missing)")
        parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000],
                            help="http: store sizes to measure")
        parser.add_argument("--real", type=int, default=None,
                            help="http, load: memories embedded for real (default: all); "
                                 "the rest get nearby vectors (a real one plus noise)")
        parser.add_argument("--concurrency", type=int, default=4)
        parser.add_argument("--server", choices=["asgi", "wsgi"], default="asgi",
                            help="http: the router `make run` serves (asgi, which also times "
                                 "the memory_search MCP tool), or plain gunicorn WSGI as before")
        parser.add_argument("--restart-database-after", type=float, default=None,
                            metavar="SECONDS",
                            help="load: restart the embedded PostgreSQL (pg_ctl restart) "
                                 "this long into the run")
        parser.add_argument("--reuse", action="store_true",
                            help="http: measure the store a --keep run left, without seeding")
        parser.add_argument("--count", type=int, default=10_000)
        parser.add_argument("--locomo", type=Path, default=None, metavar="PATH",
                            help="store: remember LoCoMo's turns (locomo10.json) in order, "
                                 "then all of them again with a suffix, instead of --count "
                                 "synthetic notes; recall: store that workload up to each "
                                 "size and ask LoCoMo's questions")
        parser.add_argument("--batch-size", type=int, default=256)
        parser.add_argument("--in-turn", action="store_true",
                            help="store: embed each batch, then write it, in turn, instead of "
                                 "embedding the next batch while this one is written")
        parser.add_argument("--tokens-per-run", type=int, default=None,
                            help="store: padded tokens per ONNX run of the local model "
                                 "(to compare run sizes; default the model's)")
        parser.add_argument("--queries", type=int, default=1000)
        parser.add_argument("--one-by-one", type=int, default=200,
                            help="also time this many single remember() calls")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--keep", action="store_true", help="keep the bench owner's rows")
        parser.add_argument("--minutes", type=float, default=10,
                            help="load: how long to drive the server")
        parser.add_argument("--rate", type=float, default=20,
                            help="load: requests per second aimed at, over all clients")

    def handle(self, *args, what, count, batch_size, queries, one_by_one, seed, keep,
               **options):
        if count < 1 or batch_size < 1 or queries < 1:
            raise CommandError("--count, --batch-size and --queries must be positive.")
        if what == "memory":
            return self.memory_bench(queries, seed)
        if what == "recall":
            return self.recall_bench(options["sizes"], options["locomo"], queries,
                                     options["reuse"], options["neighbour"], options["real"],
                                     seed)
        if what == "load":
            return self.load(count, options["real"], options["concurrency"],
                             options["minutes"], options["rate"], seed, options["reuse"],
                             options["server"], options["restart_database_after"])
        if what == "hook":
            return self.hook(count, queries, seed, keep, options["reuse"], options["server"])
        if what == "http":
            return self.http(options["sizes"], options["real"], options["concurrency"],
                             queries, seed, keep, options["reuse"], options["server"])
        corpus = (locomo_workload(options["locomo"]) if options["locomo"]
                  else synthetic_memories(count, seed))
        count = len(corpus)
        owner, _ = get_user_model().objects.get_or_create(username=BENCH_USER)
        Memory.objects.filter(owner=owner).delete()
        provider = get_provider()
        provider.embed_documents(["warm-up"])  # model load is not part of throughput
        if options["tokens_per_run"]:
            if not hasattr(provider, "encoder"):
                raise CommandError("--tokens-per-run needs the local embedding model.")
            provider.encoder().tokens_per_run = options["tokens_per_run"]
        self.stdout.write(f"provider {provider.model_id}; {count} memories, batches of "
                          f"{batch_size}")

        started = time.perf_counter()
        created = 0
        with tqdm(total=count, unit="memory") as bar:
            batches = ([NewMemory(content=text, kind="episode", memory_type="episodic")
                        for text in corpus[start:start + batch_size]]
                       for start in range(0, count, batch_size))
            for batch in (batches if options["in_turn"] else embedded_ahead(batches)):
                results = remember_many(owner=owner, items=batch)
                created += sum(r.created for r in results)
                # The worker builds an owner's own index once it crosses the line; no
                # worker runs here, so the bench does it in line, and its time counts.
                if selectors.dense_path(owner.pk, provider.model_id) == selectors.SHARED_INDEX:
                    vector_indexes.index_owner_vectors(owner.pk)
                bar.update(len(batch))
        elapsed = time.perf_counter() - started
        self.stdout.write(f"remember_many: {count / elapsed:.0f} memories/s "
                          f"({elapsed:.1f} s; {created} created, {count - created} merged "
                          "as duplicates)")

        if one_by_one:
            singles = synthetic_memories(one_by_one, seed + 1)
            started = time.perf_counter()
            for text in singles:
                remember(owner=owner, content=text + " (single)")
            elapsed = time.perf_counter() - started
            self.stdout.write(f"remember, one by one: {one_by_one / elapsed:.0f} memories/s")

        total = Memory.objects.filter(owner=owner).count()
        asked = synthetic_queries(queries, seed + 2)
        timings = time_recall(owner, asked)
        cached = []
        for query in asked[:200]:  # the same prompts again: query embeddings are cached
            started = time.perf_counter()
            recall(owner=owner, query=query, limit=10)
            cached.append((time.perf_counter() - started) * 1000)
        self.stdout.write(
            f"recall top-10 over {total} memories, {queries} distinct queries: "
            f"p50 {statistics.median(timings):.2f} ms, p95 {percentile(timings, 95):.2f} ms, "
            f"p99 {percentile(timings, 99):.2f} ms"
        )
        self.stdout.write(
            f"recall, repeated queries (embedding cached): p50 {statistics.median(cached):.2f}"
            f" ms, p95 {percentile(cached, 95):.2f} ms"
        )
        if not keep:
            Memory.objects.filter(owner=owner).delete()

    def recall_bench(self, sizes, path, queries, reuse, neighbour, real, seed):
        """In-process `recall` (top 10) on the issue's workload: the LoCoMo turns in order,
        then again with a suffix, up to each size, one owner per size; the LoCoMo
        questions as queries. With --reuse a store left by an earlier run is measured as
        it is (seeding 10,000 turns takes minutes)."""
        if not path:
            raise CommandError("recall needs --locomo PATH (the LoCoMo JSON).")
        workload = locomo_workload(path)
        asked = [q.question for c in locomo.load(path) for q in c.questions][:queries]
        provider = get_provider()
        provider.embed_query("warm-up")
        if neighbour:
            large, _ = self.seeded_owner(f"{BENCH_USER}-http-{neighbour}", neighbour,
                                         5_000 if real is None else real, seed, True)
            vector_indexes.index_owner_vectors(large.pk)
        for size in sizes:
            owner, _ = get_user_model().objects.get_or_create(
                username=f"{BENCH_USER}-recall-{size}")
            if not (reuse and Memory.objects.filter(owner=owner).exists()):
                Memory.objects.filter(owner=owner).delete()
                started = time.perf_counter()
                texts = workload[:size]
                for start in range(0, size, 256):
                    remember_many(owner=owner, items=[
                        NewMemory(content=text, kind="episode", memory_type="episodic")
                        for text in texts[start:start + 256]])
                self.stdout.write(f"seeded {size} LoCoMo turns in "
                                  f"{time.perf_counter() - started:.0f} s")
            vector_indexes.index_owner_vectors(owner.pk)  # as the worker would
            stored = Memory.objects.filter(owner=owner).count()
            timings = time_recall(owner, asked)
            self.stdout.write(f"recall top-10, {stored} memories, {len(timings)} LoCoMo "
                              f"questions: p50 {statistics.median(timings):.2f} ms, "
                              f"p95 {percentile(timings, 95):.2f} ms, "
                              f"p99 {percentile(timings, 99):.2f} ms")
            if neighbour:
                beside = time_recall(large, synthetic_queries(len(asked), seed + size))
                self.stdout.write(
                    f"  its neighbour, {Memory.objects.filter(owner=large).count()} memories,"
                    f" right after: p50 {statistics.median(beside):.2f} ms, "
                    f"p95 {percentile(beside, 95):.2f} ms")

    def memory_bench(self, requests, seed):
        """Resident memory of the served processes (gunicorn's master and 2 workers, as
        `make run` starts them), with the app and model loaded before forking and without:
        RSS and PSS (a page shared by n processes counts 1/n: the honest sum under
        copy-on-write), at rest and after `requests` /context calls from 4 clients."""
        import psutil

        _, key = self.seeded_owner(f"{BENCH_USER}-memory", 2000, None, seed, True)
        queries = synthetic_queries(requests + 20, seed)
        for preload in (False, True):
            with running_server("asgi", with_process=True, preload=preload) as (port, server):
                time.sleep(2)
                rest = resident(server, psutil)
                drive(port, key, "context", {"max_tokens": 500}, requests, 4, queries)
                loaded = resident(server, psutil)
            label = "preloaded before fork" if preload else "loaded by each worker"
            for when, (rss, pss, count) in (("at rest", rest), ("under load", loaded)):
                self.stdout.write(f"{label:<22} {when:<10} {count} processes: RSS "
                                  f"{rss:.0f} MiB, PSS {pss:.0f} MiB")

    def http(self, sizes, real, concurrency, requests, seed, keep, reuse, server):
        owners = []
        for size in sizes:
            # One owner per size, so that --keep / --reuse keep each store and measuring
            # a small one does not first delete a large one (minutes at 100,000).
            owner, key = self.seeded_owner(f"{BENCH_USER}-http-{size}", size, real, seed,
                                           reuse)
            owners.append(owner)
            size = Memory.objects.filter(owner=owner).count()
            with running_server(server, with_process=True) as (port, process):
                for path, body in (("context", {"max_tokens": 500}), ("search", {"limit": 10})):
                    spent = CpuSpent(process)
                    timings, elapsed = drive(port, key, path, body, requests, concurrency,
                                             synthetic_queries(requests + 20, seed + size))
                    self.report(size, f"/{path}", f"{concurrency} client(s)", timings, elapsed)
                    # drive's 20 warm-up requests ran on this CPU too
                    self.stdout.write(f"{'':>17}CPU a request: {spent.per(len(timings) + 20)}")
                if server == "asgi":
                    queries = synthetic_queries(requests + 20, seed + size)
                    started = time.perf_counter()
                    timings = anyio.run(drive_mcp, port, key, queries, requests)
                    self.report(size, "MCP memory_search", "1 client", timings,
                                time.perf_counter() - started)
        if not keep:
            Memory.objects.filter(owner__in=owners).delete()

    def load(self, size, real, concurrency, minutes, rate, seed, reuse, server,
             restart_after=None):
        """A steady mix (context, search, remember, list) at `rate` requests/s for
        `minutes` against a served store of `size`: errors, latency, and the resident
        memory of the server's processes sampled every 10 s (docs/RELIABILITY.md)."""
        import psutil

        owner, key = self.seeded_owner(f"{BENCH_USER}-load", size, real, seed, reuse)
        stored = Memory.objects.filter(owner=owner).count()
        with running_server(server, with_process=True) as (port, process):
            if restart_after is not None:
                threading.Timer(restart_after, self.restart_database).start()
            result = drive_load(port, key, concurrency, minutes * 60, rate, seed, process,
                                psutil, self.stdout.write)
        if restart_after is not None:
            connection.close()  # this process's connection did not survive the restart
            kept = Memory.objects.filter(owner=owner).count() - stored
            self.stdout.write(
                f"database restarted at {restart_after:g} s: errors from "
                f"{result['first_error_at']} s to {result['last_error_at']} s; "
                f"{result['created']} memories answered 201, {kept} new rows stored")
        self.stdout.write(f"load on {stored} memories, {server}, {concurrency} clients, "
                          f"{rate:g} req/s aimed, {minutes:g} min: {result['sent']} requests,"
                          f" {result['errors']} errors {result['error_kinds'] or ''}")
        for kind, timings in sorted(result["timings"].items()):
            self.stdout.write(f"  {kind:<10} n {len(timings):>6}  p50 "
                              f"{statistics.median(timings):.1f} ms  p95 "
                              f"{percentile(timings, 95):.1f} ms  p99 "
                              f"{percentile(timings, 99):.1f} ms")
        samples = result["rss"]
        self.stdout.write("  server RSS (MiB, all processes) every 10 s: "
                          + " ".join(f"{mib:.0f}" for _, mib in samples))
        steady = [s for s in samples if s[0] >= 60]  # after the first minute's warm-up
        if len(steady) >= 3:
            third = max(1, len(steady) // 3)
            first = statistics.mean(m for _, m in steady[:third])
            last = statistics.mean(m for _, m in steady[-third:])
            self.stdout.write(f"  RSS after warm-up: first third {first:.0f} MiB, last third "
                              f"{last:.0f} MiB ({last - first:+.0f} MiB), max "
                              f"{max(m for _, m in steady):.0f} MiB")
        if not reuse:
            self.stdout.write("  (the store is kept for --reuse; delete the owner to drop it)")

    def restart_database(self):
        """pg_ctl restart of the embedded server, as a crash-and-come-back would look to
        the served Engram (its connections are cut; it must answer 503, then recover)."""
        from engram_site.db import embedded

        pgdata = settings.DATABASES["default"].get("EMBEDDED_PGDATA")
        if not pgdata:
            raise CommandError("--restart-database-after needs the embedded database.")
        command = [str(embedded.bin_dir() / "pg_ctl"), "-D", pgdata, "-m", "fast", "-w",
                   "restart"]
        if os.geteuid() == 0:  # pg_ctl refuses root: run it as the data folder's owner
            import pwd

            owner = pwd.getpwuid(os.stat(pgdata).st_uid).pw_name
            command = ["runuser", "-u", owner, "--", *command]
        started = time.monotonic()
        # No pipes: the new postmaster would hold them open and this call would never end.
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        self.stdout.write(f"  restarted PostgreSQL in {time.monotonic() - started:.1f} s")

    def seeded_owner(self, username, size, real, seed, reuse):
        """The bench owner `username` with a new key and a store of `size` memories (`real`
        of them embedded for real), kept as it is with --reuse when it has one."""
        owner, _ = get_user_model().objects.get_or_create(username=username)
        _, key = create_api_key(owner=owner, name="bench")
        if not (reuse and Memory.objects.filter(owner=owner).exists()):
            Memory.objects.filter(owner=owner).delete()
            started = time.perf_counter()
            real = size if real is None else min(real, size)
            seed_store(owner, size, real=real, seed=seed)
            self.stdout.write(f"seeded {size} memories in {time.perf_counter() - started:.0f}"
                              f" s ({real} embedded for real)")
        return owner, key

    def report(self, size, what, clients, timings, elapsed):
        self.stdout.write(f"{size:>7} memories  {what:<18} {clients}: "
                          f"p50 {statistics.median(timings):.1f} ms  "
                          f"p95 {percentile(timings, 95):.1f} ms  "
                          f"p99 {percentile(timings, 99):.1f} ms  "
                          f"{len(timings) / elapsed:.0f} req/s")


    def hook(self, size, prompts, seed, keep, reuse, server):
        owner, key = self.seeded_owner(f"{BENCH_USER}-hook", size, size, seed, reuse)
        asked = synthetic_queries(prompts, seed + 3)
        with running_server(server) as port:
            served = time_hook(f"http://127.0.0.1:{port}", key, asked)
        self.stdout.write(hook_line(f"served, {size} memories", served))
        stopped = time_hook(f"http://127.0.0.1:{port}", key, asked)  # the server is gone
        self.stdout.write(hook_line("Engram stopped", stopped))
        if not keep:
            Memory.objects.filter(owner=owner).delete()


def time_recall(owner, queries: list[str]) -> list[float]:
    """Wall time in ms of in-process recall (top 10) for each query, after 20 warm-ups,
    each query embedded afresh (the same questions asked of another owner before must not
    come from the cache)."""
    for query in queries[:20]:
        recall(owner=owner, query=query + " warm")
    get_provider().forget_queries()
    timings = []
    for query in queries:
        started = time.perf_counter()
        recall(owner=owner, query=query, limit=10)
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def time_hook(url: str, key: str, prompts: list[str]) -> list[tuple[float, bool]]:
    """Wall time in ms of `engram-hook` on UserPromptSubmit, started as Claude Code starts
    it (a new process per prompt, each prompt its own session), and whether it injected."""
    with tempfile.TemporaryDirectory() as state:
        environment = {**os.environ, "ENGRAM_URL": url, "ENGRAM_API_KEY": key,
                       "ENGRAM_STATE_DIR": state, "ENGRAM_CONFIG": os.path.join(state, "none")}
        command = [sys.executable, str(Path(settings.BASE_DIR) / "bin" / "engram-hook")]
        results = []
        for i, prompt in enumerate(prompts):
            event = json.dumps({"session_id": f"bench-{i}", "transcript_path": "",
                                "cwd": str(settings.BASE_DIR), "permission_mode": "default",
                                "hook_event_name": "UserPromptSubmit", "prompt": prompt})
            started = time.perf_counter()
            done = subprocess.run(command, input=event.encode(), capture_output=True,
                                  env=environment)
            results.append(((time.perf_counter() - started) * 1000, bool(done.stdout)))
    return results


def hook_line(label: str, results: list[tuple[float, bool]]) -> str:
    timings = [ms for ms, _ in results]
    injected = sum(output for _, output in results)
    return (f"engram-hook UserPromptSubmit, {label}: p50 {statistics.median(timings):.1f} ms, "
            f"p95 {percentile(timings, 95):.1f} ms, max {max(timings):.1f} ms "
            f"({injected}/{len(results)} prompts got context)")


REBUILD_SHARED_INDEX_FROM = 200_000


def seed_store(owner, size: int, *, real: int, seed: int) -> None:
    """`size` synthetic notes written directly (no deduplication), the first `real` of
    them with their own embeddings, in batches of 512; the rest, if any, with vectors
    near the real ones (a real one plus noise, cosine ~0.7 to its source). The BM25
    postings come from the triggers as usual; the owner's own vector index is built as
    the worker would build it. A really embedded 100,000 store takes minutes: keep it
    with --keep and measure it again with --reuse."""
    if real < 1:
        raise CommandError("--real must be at least 1: the other vectors are drawn near it.")
    texts = synthetic_memories(size, seed)
    provider = get_provider()
    rng = np.random.default_rng(seed)
    # A large store is written without the shared vector index and the index is built
    # again at the end: the same rows in the same index, but one build of a million
    # vectors takes minutes where a million inserts into the growing graph take hours.
    rebuild = size >= REBUILD_SHARED_INDEX_FROM
    with connection.cursor() as cursor:
        # A large graph needs about 1.5 GB a million vectors to be built in memory; with
        # the server's default (64 MB) pgvector builds it on disk, many times slower.
        cursor.execute("SET maintenance_work_mem = '4GB'")
        if rebuild:
            shared = selectors.vector_index_name(provider.model_id)
            cursor.execute(f"DROP INDEX IF EXISTS {shared}")
    bases = None
    for start in tqdm(range(0, size, 512), unit="batch"):
        chunk = texts[start:min(size, start + 512)]
        vectors = memory_vectors(provider, chunk[:max(0, real - start)])
        if len(vectors):
            bases = vectors if bases is None else np.concatenate([bases, vectors])[-20_000:]
        if len(vectors) < len(chunk):
            noisy = bases[rng.integers(0, len(bases), len(chunk) - len(vectors))]
            noisy = noisy + rng.normal(0, 0.05, noisy.shape).astype(np.float32)
            noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
            vectors = np.concatenate([vectors, noisy])
        with transaction.atomic():
            insert_by_copy(Memory, [
                Memory(owner=owner, content=f"{text} (#{start + i})",
                       content_hash=content_hash(f"{text} (#{start + i})"), kind="episode",
                       memory_type="episodic", embedding=vector,
                       embedding_model=provider.model_id)
                for i, (text, vector) in enumerate(zip(chunk, vectors))])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memories_memory; ANALYZE memories_memoryterm; "
                       "ANALYZE memories_termdocuments")
    if rebuild:
        selectors.ensure_vector_index(provider.model_id, provider.dimensions)
    vector_indexes.index_owner_vectors(owner.pk)


@contextlib.contextmanager
def running_server(kind: str, *, with_process: bool = False, preload: bool = True):
    """gunicorn as `make run` starts it (asgi) or as it did before /mcp (wsgi), on a free
    loopback port, for this benchmark; the port (and the gunicorn process)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # The benchmark measures latency, not the rate limits: lift them for this server.
    unthrottled = {f"ENGRAM_RATE_{scope}": "1000000/min"
                   for scope in ("MEMORIES", "SEARCH", "CONTEXT", "FEEDBACK")}
    # asgi as `manage.py serve` starts it: the app and the model loaded before forking.
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "2",
         "--log-level", "warning",
         *(["engram_site.asgi:application", "--worker-class", "uvicorn_worker.UvicornWorker",
            *(["--preload"] if preload else [])]
           if kind == "asgi" else ["engram_site.wsgi", "--threads", "4"])],
        cwd=settings.BASE_DIR, env={**os.environ, **unthrottled,
                                    "ENGRAM_PRELOAD_MODEL": "1" if preload else "0"})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                probe.request("GET", "/healthz")
                if probe.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.3)
        else:
            raise CommandError("the benchmark server did not start within 60 s")
        yield (port, server) if with_process else port
    finally:
        server.terminate()
        server.wait(timeout=30)


def process_tree(pid: int) -> list:
    """The process `pid` and all its descendants (none when it is gone)."""
    import psutil

    with contextlib.suppress(psutil.Error):
        parent = psutil.Process(pid)
        return [parent, *parent.children(recursive=True)]
    return []


class CpuSpent:
    """CPU time spent from now on by the benchmark server's processes, the database
    server's (when it runs on this machine) and this process (the clients): with every
    core busy, latency under concurrency is this total, queued (docs/BENCHMARKS.md)."""

    def __init__(self, server):
        import psutil

        self.psutil, self.server = psutil, server
        self.start = {proc.pid: self.used(proc)
                      for procs in self.groups().values() for proc in procs}

    def groups(self) -> dict[str, list]:
        return {"server": process_tree(self.server.pid), "PostgreSQL": self.database(),
                "clients": [self.psutil.Process()]}

    def database(self) -> list:
        """The postmaster and its backends, found by the postmaster.pid of its data
        directory: none when the server runs elsewhere, or when the role may not read
        where its data lives (only superusers and pg_read_all_settings may)."""
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT current_setting('data_directory')")
                pid_file = Path(cursor.fetchone()[0]) / "postmaster.pid"
            return process_tree(int(pid_file.read_text().split()[0]))
        except (DatabaseError, OSError, ValueError):
            return []

    def used(self, proc) -> float:
        with contextlib.suppress(self.psutil.Error):
            times = proc.cpu_times()
            return times.user + times.system
        return 0.0

    def per(self, requests: int) -> str:
        """ms of CPU a request in each group (a process started since counts in full)."""
        spent = {name: sum(self.used(proc) - self.start.get(proc.pid, 0.0) for proc in procs)
                 * 1000 / requests for name, procs in self.groups().items() if procs}
        return ("  ".join(f"{name} {ms:.2f} ms" for name, ms in spent.items())
                + f"  total {sum(spent.values()):.2f} ms")


def resident(server, psutil) -> tuple[float, float, int]:
    """(RSS, PSS, processes) of the server and its children, in MiB."""
    processes = process_tree(server.pid)
    rss = pss = 0
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            info = process.memory_full_info()
            rss, pss = rss + info.rss, pss + info.pss
    return rss / 2**20, pss / 2**20, len(processes)


def drive_load(port, key, concurrency, seconds, rate, seed, process, psutil, say) -> dict:
    """`concurrency` keep-alive clients sharing `rate` requests/s for `seconds`: 45%
    /context, 35% /search, 15% remember (new notes, a few near-duplicates), 5% list.
    Every non-2xx answer and every failed connection counts as an error."""
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    notes = synthetic_memories(200_000, seed + 11)
    queries = synthetic_queries(200_000, seed + 12)
    lock = threading.Lock()
    timings: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    state = {"sent": 0, "created": 0, "first_error_at": None, "last_error_at": None}
    begun = time.monotonic()
    deadline = begun + seconds
    interval = concurrency / rate

    def one(conn, rng, n):
        pick = rng.random()
        if pick < 0.45:
            kind, method, url = "context", "POST", "/api/v1/memories/context"
            body = {"query": queries[n % len(queries)], "max_tokens": 500}
        elif pick < 0.80:
            kind, method, url = "search", "POST", "/api/v1/memories/search"
            body = {"query": queries[n % len(queries)], "limit": 10}
        elif pick < 0.95:
            kind, method, url = "remember", "POST", "/api/v1/memories"
            body = {"content": notes[n % len(notes)], "kind": "episode"}
        else:
            kind, method, url, body = "list", "GET", "/api/v1/memories?limit=20", None
        started = time.perf_counter()
        conn.request(method, url, None if body is None else json.dumps(body), headers)
        response = conn.getresponse()
        response.read()
        return kind, response.status, (time.perf_counter() - started) * 1000

    def client(index):
        rng = random.Random(seed * 100 + index)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        n = index
        next_at = time.monotonic() + rng.random() * interval
        while True:
            now = time.monotonic()
            if now >= deadline:
                return
            if next_at > now:
                time.sleep(next_at - now)
            next_at += interval
            try:
                kind, status, ms = one(conn, rng, n)
                failed = None if 200 <= status < 300 else f"{kind} {status}"
            except (OSError, http.client.HTTPException) as exc:
                kind, status, ms, failed = "failed", 0, 0.0, type(exc).__name__
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            n += concurrency
            with lock:
                state["sent"] += 1
                state["created"] += kind == "remember" and status == 201
                if failed:
                    errors[failed] = errors.get(failed, 0) + 1
                    at = round(time.monotonic() - begun, 1)
                    state["first_error_at"] = state["first_error_at"] or at
                    state["last_error_at"] = at
                else:
                    timings.setdefault(kind, []).append(ms)

    def rss_mib() -> float:
        total = 0
        for proc in process_tree(process.pid):
            with contextlib.suppress(psutil.NoSuchProcess):
                total += proc.memory_info().rss
        return total / 2**20

    threads = [threading.Thread(target=client, args=(i,), daemon=True)
               for i in range(concurrency)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    samples = [(0.0, rss_mib())]
    while any(thread.is_alive() for thread in threads):
        time.sleep(min(10, max(0.1, deadline - time.monotonic())))
        if time.monotonic() - started - samples[-1][0] >= 9.5:
            samples.append((time.monotonic() - started, rss_mib()))
            with lock:
                say(f"  {samples[-1][0]:5.0f} s  {state['sent']} sent  "
                    f"{sum(errors.values())} errors  RSS {samples[-1][1]:.0f} MiB")
    return {**state, "errors": sum(errors.values()), "error_kinds": errors,
            "timings": timings, "rss": samples}


def drive(port, key, path, body, requests, concurrency, queries):
    """`requests` POSTs from `concurrency` keep-alive clients; per-request latency in ms."""
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    url = f"/api/v1/memories/{path}"

    def post(conn, query):
        conn.request("POST", url, json.dumps({**body, "query": query}), headers)
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise CommandError(f"{url} answered {response.status}")

    warm = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for query in queries[:20]:  # load the model and open the connections
        post(warm, query)
    pending = iter(queries[20:20 + requests])
    lock = threading.Lock()
    timings: list[float] = []

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while True:
            with lock:
                query = next(pending, None)
            if query is None:
                return
            started = time.perf_counter()
            post(conn, query)
            with lock:
                timings.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return timings, time.perf_counter() - started


async def drive_mcp(port, key, queries, requests):
    """`requests` memory_search tool calls, one after another, through the SDK's client on
    one session; per-call latency in ms (the first 20 warm up)."""
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http_client:
        transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                           http_client=http_client)
        async with Client(transport) as client:
            timings = []
            for n, query in enumerate(queries[:20 + requests]):
                started = time.perf_counter()
                result = await client.call_tool("memory_search", {"query": query})
                if result.is_error:
                    raise CommandError(f"memory_search failed: {result.content[0].text}")
                if n >= 20:
                    timings.append((time.perf_counter() - started) * 1000)
    return timings
