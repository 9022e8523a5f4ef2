"""16 processes at once on the test database, each remembering the same near-duplicates
(some the same text in another case, some with other punctuation) and editing one memory:
one row per duplicate set, every edit in the history, no edit lost."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import child_database_env

from memories.models import Memory, MemoryVersion, VersionChange
from memories.services.remembering import remember

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 16
SETS = [
    "The staging database is PostgreSQL 16 listening on port 5433.",
    "Deploys of the billing service need two reviewers and a green canary.",
    "Priya wants ruff with line length 100 in the checkout repository.",
    "The nightly ETL job writes its Parquet files to the analytics bucket.",
]

CHILD = r"""
import json, os, sys, time
import django
django.setup()
from django.contrib.auth import get_user_model
from memories.models import Memory
from memories.providers.embeddings import get_provider
from memories.services.editing import add_tag, update_memory
from memories.services.remembering import remember

worker, owner_id, memory_id, go, sets = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                         sys.argv[4], json.loads(sys.argv[5]))
owner = get_user_model().objects.get(pk=owner_id)
memory = Memory.objects.get(pk=memory_id)  # read once, before everyone starts: stale later
get_provider().embed_documents(["warm up"])
open(go + f".ready{worker}", "w").close()
while not os.path.exists(go):
    time.sleep(0.01)
actions = []
for n, text in enumerate(sets):
    variant = (text.upper() if worker % 3 == 0 else
               text.rstrip(".") + "!" if worker % 3 == 1 else "  " + text + "  ")
    actions.append(remember(owner=owner, content=variant, agent_id=f"w{worker}").action)
add_tag(memory, f"worker-{worker}", by=owner)
update_memory(memory, by=owner, agent_id=f"w{worker}",
              content=f"The deploy freeze starts on Friday (edit by worker {worker}).")
print(json.dumps(actions))
"""


def test_sixteen_processes_leave_one_row_per_duplicate_and_every_edit(alice, tmp_path):
    shared = remember(owner=alice, content="The deploy freeze starts on Friday.").memory
    go = str(tmp_path / "go")
    env = child_database_env(ENGRAM_EMBEDDING_THREADS="1")
    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(i), str(alice.pk),
                                  str(shared.pk), go, json.dumps(SETS)],
                                 cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for i in range(PROCESSES)]
    try:
        deadline = time.monotonic() + 300
        while sum(Path(f"{go}.ready{i}").exists() for i in range(PROCESSES)) < PROCESSES:
            assert time.monotonic() < deadline, "the children did not start"
            assert all(c.poll() is None for c in children), children[0].communicate()
            time.sleep(0.1)
        Path(go).touch()  # all at once
        outputs = [c.communicate(timeout=300) for c in children]
    finally:
        for child in children:
            child.kill() if child.poll() is None else None
    assert all(c.returncode == 0 for c in children), [err for _, err in outputs]
    actions = [json.loads(out) for out, _ in outputs]

    # One row per duplicate set, the other fifteen kept as reinforcements of it.
    rows = list(Memory.objects.filter(owner=alice).exclude(pk=shared.pk))
    assert len(rows) == len(SETS), [m.content for m in rows]
    for n, text in enumerate(SETS):
        [row] = [m for m in rows if text.rstrip(".").casefold() in m.content.casefold()]
        assert [a[n] for a in actions].count("created") == 1
        versions = MemoryVersion.objects.filter(memory=row)
        assert versions.filter(change=VersionChange.CREATED).count() == 1
        assert versions.filter(change=VersionChange.REINFORCED).count() == PROCESSES - 1
        assert row.helpful_count == PROCESSES - 1

    # Every edit is in the history, each starting from the one before it, none lost.
    shared.refresh_from_db()
    assert sorted(shared.tags) == sorted(f"worker-{i}" for i in range(PROCESSES))
    edits = list(MemoryVersion.objects.filter(memory=shared, change=VersionChange.UPDATED)
                 .order_by("changed_at", "id"))
    content_edits = [v for v in edits if "content" in v.after]
    tag_edits = [v for v in edits if "tags" in v.after]
    assert len(content_edits) == PROCESSES and len(tag_edits) == PROCESSES
    chain = ["The deploy freeze starts on Friday."] + [v.after["content"] for v in content_edits]
    assert [v.before["content"] for v in content_edits] == chain[:-1]
    assert shared.content == chain[-1]
    assert len(set(chain)) == PROCESSES + 1


def test_tagging_a_memory_read_before_another_tag_keeps_both(alice):
    from memories.services.editing import add_tag

    memory = remember(owner=alice, content="The on-call rota lives in PagerDuty.").memory
    stale = Memory.objects.get(pk=memory.pk)
    add_tag(memory, "ops", by=alice)
    add_tag(stale, "rota", by=alice)  # read before "ops" was added
    assert sorted(Memory.objects.get(pk=memory.pk).tags) == ["ops", "rota"]
