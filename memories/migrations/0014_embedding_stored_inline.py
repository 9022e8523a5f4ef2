"""The vector stays in the memory's row (storage MAIN) instead of going to TOAST.

A row of a short memory plus its 1.5 kB vector passes PostgreSQL's 2 kB TOAST threshold,
and pgvector's type moves the vector out first: an exact nearest-neighbour pass over a
3,000-memory owner then read 8,000 buffers (heap, TOAST index, TOAST heap) instead of
about 2,000 (docs/BENCHMARKS.md). With MAIN, text columns leave the row first and the
vector only when nothing else helps. Existing rows are stored again so they move too.
"""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [("memories", "0013_api_key_expiry_and_project")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE memories_memory ALTER COLUMN embedding SET STORAGE MAIN",
            "ALTER TABLE memories_memory ALTER COLUMN embedding SET STORAGE DEFAULT",
        ),
        # A new value (text and back is exact for pgvector) is toasted afresh; an
        # unchanged one would keep its TOAST pointer.
        migrations.RunSQL(
            "UPDATE memories_memory SET embedding = embedding::text::vector "
            "WHERE embedding IS NOT NULL",
            migrations.RunSQL.noop,
        ),
    ]
