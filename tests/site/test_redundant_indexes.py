"""No index of Engram's tables repeats the start of another: every insert writes every
index of its table (a recall logs ten usage events), and an index whose columns lead
another one serves no lookup the longer one does not. Foreign keys lose theirs without
their constraint being dropped and re-checked (engram_site/db/foreign_key_indexes.py)."""

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from memories.models import UsageEvent

ENGRAM_TABLES = r"^(memories|reflection|work|codegraph|engram)_"

# Kept on purpose, each for its reason:
KEPT = {
    # Counting an owner's memories (the dense path's size, the dashboard) reads this
    # deduplicated index of one integer a row, not a composite ten times its size.
    ("memories_memory", "owner_id"),
    # work's `Scoped.owner` is one field of an abstract model for six tables; two of them
    # (context snapshots, episode artifacts) have no other index that leads with it.
    ("work_task", "owner_id"), ("work_toolexecution", "owner_id"),
    ("work_fileinteraction", "owner_id"), ("work_learnedpattern", "owner_id"),
}

# A non-unique, non-partial btree index whose columns are the first columns of another
# non-partial btree index of the same table.
REPEATS = r"""
    WITH idx AS (
        SELECT i.indrelid, i.indexrelid, i.indisunique AS uniq,
               string_to_array(i.indkey::text, ' ') AS cols,
               i.indpred IS NOT NULL AS partial, am.amname
        FROM pg_index i
        JOIN pg_class c ON c.oid = i.indexrelid
        JOIN pg_am am ON am.oid = c.relam
        WHERE i.indrelid::regclass::text ~ %s)
    SELECT DISTINCT a.indrelid::regclass::text,
           (SELECT string_agg(attname, ',') FROM pg_attribute
             WHERE attrelid = a.indrelid AND attnum::text = ANY(a.cols))
    FROM idx a JOIN idx b ON a.indrelid = b.indrelid AND a.indexrelid <> b.indexrelid
    WHERE a.amname = 'btree' AND b.amname = 'btree' AND NOT a.uniq
      AND NOT a.partial AND NOT b.partial
      AND cardinality(a.cols) < cardinality(b.cols)
      AND a.cols = b.cols[1:cardinality(a.cols)]
"""


def repeated_indexes() -> set[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(REPEATS, [ENGRAM_TABLES])
        return set(cursor.fetchall())


def index_names(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [table])
        return {name for (name,) in cursor.fetchall()}


@pytest.mark.django_db
def test_only_the_indexes_kept_on_purpose_repeat_the_start_of_another():
    assert repeated_indexes() == KEPT


@pytest.mark.django_db
def test_the_foreign_keys_that_lost_their_index_are_still_enforced(alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        UsageEvent.objects.create(memory_id="00000000-0000-0000-0000-000000000000",
                                  owner=alice, kind="retrieved")
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.mark.django_db(transaction=True)
def test_migrating_back_brings_the_dropped_indexes_back():
    dropped = {"memories_usageevent_memory_id_eb3ec472", "memories_usageevent_owner_id_f7a2c3b3"}
    assert not dropped & index_names("memories_usageevent")
    call_command("migrate", "memories", "0019", verbosity=0)
    try:
        assert dropped <= index_names("memories_usageevent")
        assert ("memories_usageevent", "memory_id") in repeated_indexes()
    finally:
        call_command("migrate", "memories", verbosity=0)
    assert not dropped & index_names("memories_usageevent")
