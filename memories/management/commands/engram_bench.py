import json
import random
import statistics
import time
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from memories import services
from memories.models import Memory
from memories.providers.embeddings import get_provider

BENCH_USER = "engram-bench"

TEAMS = ["The payments team", "Alice", "Bob", "The on-call engineer", "CI", "The mobile squad",
         "Our reviewer", "The data team", "The SRE rotation", "Charlie"]
COMPONENTS = ["the checkout service", "the auth middleware", "the search indexer",
              "the billing cron job", "the GraphQL gateway", "the image resizer",
              "the Kafka consumer", "the feature-flag client", "the nightly ETL",
              "the websocket hub", "the PDF exporter", "the rate limiter",
              "the session store", "the CSV importer", "the email renderer"]
PROBLEMS = ["leaks memory", "times out", "returns stale data", "double-charges customers",
            "drops messages", "deadlocks", "logs secrets", "crashes on empty input",
            "ignores the retry budget", "slows down under load", "breaks on daylight saving",
            "rejects valid tokens"]
CONDITIONS = ["after a deploy", "on Mondays", "when Redis fails over", "for EU customers",
              "with more than 10k rows", "behind the corporate proxy", "on ARM hosts",
              "when the cache is cold", "during the backup window", "in Safari only"]
FIXES = ["pinning the client library", "adding an index on created_at",
         "moving the work to a queue", "setting a 5 s timeout", "batching the writes",
         "switching to UTC everywhere", "adding a circuit breaker", "raising the pool size",
         "validating the payload first", "rotating the signing key"]


def synthetic_memories(count: int, seed: int) -> list[str]:
    """Distinct, realistic engineering notes (a ticket number keeps each one unique)."""
    rng = random.Random(seed)
    return [
        f"{rng.choice(TEAMS)} found that {rng.choice(COMPONENTS)} {rng.choice(PROBLEMS)} "
        f"{rng.choice(CONDITIONS)}; fixed by {rng.choice(FIXES)} (ticket ENG-{1000 + i})."
        for i in range(count)
    ]


def synthetic_queries(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [f"why does {rng.choice(COMPONENTS)} {rng.choice(PROBLEMS)} {rng.choice(CONDITIONS)}"
            f" #{i}" for i in range(count)]


def locomo_turns(path: Path) -> list[str]:
    samples = json.loads(path.read_text())
    turns = []
    for sample in samples:
        conversation = sample["conversation"]
        for key, session in conversation.items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [f"{turn['speaker']}: {turn['text']}" for turn in session]
    return turns


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Command(BaseCommand):
    help = "Benchmarks: `store` remembers N memories in bulk and times in-process recall."

    def add_arguments(self, parser):
        parser.add_argument("what", choices=["store"])
        parser.add_argument("--count", type=int, default=10_000)
        parser.add_argument("--batch-size", type=int, default=256)
        parser.add_argument("--queries", type=int, default=1000)
        parser.add_argument("--one-by-one", type=int, default=200,
                            help="also time this many single remember() calls")
        parser.add_argument("--texts", type=Path,
                            help="a LoCoMo-format JSON file to take memory texts from")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--keep", action="store_true", help="keep the bench owner's rows")

    def handle(self, *args, count, batch_size, queries, one_by_one, texts, seed, keep,
               **options):
        if count < 1 or batch_size < 1 or queries < 1:
            raise CommandError("--count, --batch-size and --queries must be positive.")
        if texts:
            pool = locomo_turns(texts)
            corpus = [pool[i % len(pool)] + ("" if i < len(pool) else f" [{i}]")
                      for i in range(count)]
        else:
            corpus = synthetic_memories(count, seed)
        owner, _ = get_user_model().objects.get_or_create(username=BENCH_USER)
        Memory.objects.filter(owner=owner).delete()
        provider = get_provider()
        provider.embed_documents(["warm-up"])  # model load is not part of throughput
        self.stdout.write(f"provider {provider.model_id}; {count} memories, batches of "
                          f"{batch_size}")

        started = time.perf_counter()
        created = 0
        with tqdm(total=count, unit="memory") as bar:
            for start in range(0, count, batch_size):
                batch = [services.NewMemory(content=text, kind="episode",
                                            memory_type="episodic")
                         for text in corpus[start:start + batch_size]]
                results = services.remember_many(owner=owner, items=batch)
                created += sum(r.created for r in results)
                bar.update(len(batch))
        elapsed = time.perf_counter() - started
        self.stdout.write(f"remember_many: {count / elapsed:.0f} memories/s "
                          f"({elapsed:.1f} s; {created} created, {count - created} merged "
                          "as duplicates)")

        if one_by_one:
            singles = synthetic_memories(one_by_one, seed + 1)
            started = time.perf_counter()
            for text in singles:
                services.remember(owner=owner, content=text + " (single)")
            elapsed = time.perf_counter() - started
            self.stdout.write(f"remember, one by one: {one_by_one / elapsed:.0f} memories/s")

        total = Memory.objects.filter(owner=owner).count()
        asked = synthetic_queries(queries, seed + 2)
        for query in asked[:20]:  # warm the index pages and the connection
            services.recall(owner=owner, query=query + " warm")
        timings = []
        for query in asked:
            started = time.perf_counter()
            services.recall(owner=owner, query=query, limit=10)
            timings.append((time.perf_counter() - started) * 1000)
        cached = []
        for query in asked[:200]:  # the same prompts again: query embeddings are cached
            started = time.perf_counter()
            services.recall(owner=owner, query=query, limit=10)
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
