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


def synthetic_queries(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    asks = ["which database does {s} use", "how do we release {s}", "who decided on {s}",
            "what broke in {s} last time", "review rules for {s}", "{s} API conventions"]
    return [rng.choice(asks).format(s=rng.choice(SERVICES)) + f" ({i})" for i in range(count)]



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
