"""Request counts for the API's rate limits: one row per client and scope, the count of
the current window and of the one before (the sliding-window counter), updated by one
statement per request. UNLOGGED like the cache: a crash may reset the counts, never
slow a request with a disk flush."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("engram_site", "0002_cache_table_unlogged")]

    operations = [
        migrations.RunSQL(
            "CREATE UNLOGGED TABLE engram_throttle ("
            " key text PRIMARY KEY, period bigint NOT NULL,"
            " count integer NOT NULL, previous integer NOT NULL)",
            reverse_sql="DROP TABLE engram_throttle"),
    ]
