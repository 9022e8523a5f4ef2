"""The table of Django's database cache (settings.CACHES), created by `migrate` so that
`make run` and a clean clone need no `createcachetable` step. Created whichever cache is
configured, so that switching from Redis back to the database finds it in place. The
same table `createcachetable` would make."""

from django.db import migrations

TABLE = "engram_cache"  # settings.CACHE_TABLE


class Migration(migrations.Migration):
    initial = True
    dependencies = []

    operations = [
        migrations.RunSQL(
            f'CREATE TABLE IF NOT EXISTS "{TABLE}" ('
            '"cache_key" varchar(255) NOT NULL PRIMARY KEY, '
            '"value" text NOT NULL, '
            '"expires" timestamp with time zone NOT NULL)',
            reverse_sql=f'DROP TABLE IF EXISTS "{TABLE}"',
        ),
        migrations.RunSQL(
            f'CREATE INDEX IF NOT EXISTS "{TABLE}_expires" ON "{TABLE}" ("expires")',
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
