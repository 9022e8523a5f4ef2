"""`manage.py backup` and `manage.py restore`: a populated database, backed up, changed
and restored, reads the same row by row in every model, and recall (pgvector, its HNSW
index, the BM25 triggers) works on it as before."""

import io
import json
import re

import numpy as np
import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import connection

from memories.jobs import create_job
from memories.models import ApiKey, JobKind, LinkRelation, Memory, MemoryLink
from memories.selectors import vector_index_name
from memories.services.api_keys import create_api_key
from memories.services.editing import delete_memory, update_memory
from memories.services.recall import recall
from memories.services.remembering import remember
from memories.services.transfer import import_jsonl

# pg_dump and pg_restore see only committed rows, and the restore replaces tables.
pytestmark = pytest.mark.django_db(transaction=True)


def plain(value):
    if isinstance(value, np.ndarray):
        return tuple(round(float(x), 6) for x in value)
    if hasattr(value, "to_list"):  # pgvector's HalfVector, SparseVector
        return tuple(round(float(x), 6) for x in value.to_list())
    return value


def every_row() -> dict[str, list[tuple]]:
    rows = {}
    for model in apps.get_models():
        fields = [field.attname for field in model._meta.concrete_fields]
        rows[model._meta.label] = [
            tuple(plain(value) for value in row)
            for row in model._base_manager.order_by("pk").values_list(*fields)]
    return rows


def hnsw_indexes() -> list[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE indexdef "
                       "ILIKE '%USING hnsw%' ORDER BY indexname")
        return cursor.fetchall()


def populate(owner):
    deploys = remember(owner=owner, content="Deploys go out on Tuesdays after standup",
                       tags=["ops"], project="lighthouse").memory
    staging = remember(owner=owner, content="The staging database listens on port 5433",
                       project="lighthouse").memory
    update_memory(deploys, by=owner, content="Deploys go out on Wednesdays after standup",
                  pinned=True)  # a version
    MemoryLink.objects.create(from_memory=staging, to_memory=deploys,
                              relation=LinkRelation.RELATED, strength=0.7)
    gone = remember(owner=owner, content="The office plant needs water on Fridays").memory
    delete_memory(gone, by=owner)
    import_jsonl(owner, (json.dumps({"type": "entity", "name": "Maya Okafor",
                                     "entityType": "person",
                                     "observations": ["Leads the Lighthouse project"]})
                         + "\n").encode())
    create_api_key(owner=owner, name="laptop")
    create_job(JobKind.FORGET, owner=owner, dry_run=True)
    return deploys, staging


def test_a_restore_brings_back_every_row_and_recall_works(alice, tmp_path):
    deploys, staging = populate(alice)
    before = every_row()
    assert before["memories.Memory"] and before["memories.MemoryVersion"]
    assert before["memories.MemoryLink"] and before["memories.Entity"]
    assert before["memories.ApiKey"] and before["memories.Job"]
    indexes = hnsw_indexes()
    assert indexes

    out = io.StringIO()
    call_command("backup", str(tmp_path / "engram.dump"), stdout=out)
    assert re.search(rf"Backed up to {re.escape(str(tmp_path / 'engram.dump'))} "
                     r"\(\d+(\.\d)? (bytes|KB|MB)\)", out.getvalue())
    assert (tmp_path / "engram.dump").stat().st_mode & 0o077 == 0

    update_memory(staging, by=alice, content="The staging database moved to port 6543")
    Memory.objects.filter(pk=deploys.pk).delete()
    ApiKey.objects.all().delete()
    remember(owner=alice, content="A memory made after the backup")
    with connection.cursor() as cursor:  # a table the backup does not know
        cursor.execute("CREATE TABLE made_after_the_backup (id int)")
    assert every_row() != before

    with pytest.raises(CommandError, match="holds data.*--yes"):
        call_command("restore", str(tmp_path / "engram.dump"))
    out = io.StringIO()
    call_command("restore", str(tmp_path / "engram.dump"), "--yes", stdout=out)
    assert "Restored" in out.getvalue()

    assert every_row() == before
    assert hnsw_indexes() == indexes
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('made_after_the_backup')")
        assert cursor.fetchone() == (None,)
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert cursor.fetchone()[0].startswith("0.8")
    found = recall(owner=alice, query="when do deploys go out?")
    assert found and found[0].memory.pk == deploys.pk
    # The index answers a nearest-neighbour query once a scan of the table is ruled out.
    name = vector_index_name(deploys.embedding_model)
    definition = dict(indexes)[name]
    expression = re.search(r"USING hnsw \((.+) halfvec_cosine_ops\)", definition).group(1)
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        cursor.execute(f"EXPLAIN SELECT id FROM memories_memory WHERE embedding_model = "
                       f"%s ORDER BY {expression} <=> (SELECT {expression} FROM "
                       f"memories_memory WHERE id = %s) LIMIT 3",
                       [deploys.embedding_model, deploys.pk])
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("RESET enable_seqscan")
    assert name in plan, plan
    # And the restored store takes new memories, embedded and indexed as before.
    fresh = remember(owner=alice, content="Lighthouse standups start at 9:15").memory
    assert recall(owner=alice, query="what time is standup?")[0].memory.pk == fresh.pk


def test_a_backup_goes_under_engram_home_by_default(alice, tmp_path, settings):
    settings.ENGRAM_HOME = tmp_path
    out = io.StringIO()
    call_command("backup", stdout=out)
    written = list((tmp_path / "backups").glob("engram-*.dump"))
    assert len(written) == 1 and re.fullmatch(r"engram-\d{8}-\d{6}\.dump", written[0].name)
    assert str(written[0]) in out.getvalue()


def test_a_backup_under_a_file_says_it_cannot_write_there(alice, tmp_path):
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    with pytest.raises(CommandError, match="cannot write into .*notes.txt"):
        call_command("backup", str(tmp_path / "notes.txt" / "engram.dump"))


def test_restore_refuses_a_file_that_is_not_a_backup(alice, tmp_path):
    remember(owner=alice, content="Something worth keeping")
    not_a_backup = tmp_path / "notes.txt"
    not_a_backup.write_text("hello")
    with pytest.raises(CommandError, match="as it was"):
        call_command("restore", str(not_a_backup), "--yes")
    assert Memory.objects.filter(content="Something worth keeping").exists()
    with pytest.raises(CommandError, match="no backup at"):
        call_command("restore", str(tmp_path / "missing.dump"), "--yes")


def test_an_empty_database_is_restored_without_asking(tmp_path, django_user_model):
    django_user_model.objects.create_user("dora")
    call_command("backup", str(tmp_path / "one-user.dump"), stdout=io.StringIO())
    django_user_model.objects.all().delete()
    call_command("restore", str(tmp_path / "one-user.dump"), stdout=io.StringIO())
    assert list(django_user_model.objects.values_list("username", flat=True)) == ["dora"]


@pytest.mark.django_db(transaction=False)
def test_the_embedded_pg_dump_serves_any_server_up_to_its_own_version(monkeypatch, tmp_path):
    from engram_site.db import backup, embedded

    monkeypatch.setattr(backup, "server_major", lambda env, tools: 15)
    assert backup.choose_tools({}).bin_dir == embedded.bin_dir()
    # A newer server needs a pg_dump at least as new: the newest found on this machine.
    newer = tmp_path / "pg19" / "bin"
    newer.mkdir(parents=True)
    (newer / "pg_dump").write_text("#!/bin/sh\necho 'pg_dump (PostgreSQL) 19.1'\n")
    (newer / "pg_dump").chmod(0o755)
    monkeypatch.setattr(backup, "server_major", lambda env, tools: 19)
    monkeypatch.setenv("PATH", f"{newer}:/usr/bin:/bin")
    assert backup.choose_tools({}) == backup.Tools(newer, 19)
    monkeypatch.setattr(backup, "server_major", lambda env, tools: 20)
    with pytest.raises(backup.BackupError, match="PostgreSQL 20, newer than Engram's own "
                                                 "pg_dump \\(18\\)"):
        backup.choose_tools({})
