"""The cache's table is UNLOGGED: its writes skip the write-ahead log, so the throttle's
count on every API request no longer waits for a disk flush at commit (the count and
its transaction were the largest per-request cost outside recall, docs/BENCHMARKS.md).
A cache may lose its contents in a crash; the counters then start again. Unlogged tables
are not copied to streaming replicas: the cache must be read on the primary."""

from django.db import migrations

TABLE = "engram_cache"  # settings.CACHE_TABLE


class Migration(migrations.Migration):
    dependencies = [("engram_site", "0001_cache_table")]

    operations = [
        migrations.RunSQL(f'ALTER TABLE "{TABLE}" SET UNLOGGED',
                          reverse_sql=f'ALTER TABLE "{TABLE}" SET LOGGED'),
    ]
