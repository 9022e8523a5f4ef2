"""owner_id on every row that hangs off a memory or an observation (links, versions,
entity mentions, chunks), filled from its parent: the distribution key when the tables
are sharded by owner (docs/SCALING.md). Added nullable, filled, then made required."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# (table, parent column, parent table)
FILLED_FROM = [
    ("memories_memorylink", "from_memory_id", "memories_memory"),
    ("memories_memoryversion", "memory_id", "memories_memory"),
    ("memories_memoryentity", "memory_id", "memories_memory"),
    ("memories_observationchunk", "observation_id", "memories_observation"),
]
MODELS = ["memorylink", "memoryversion", "memoryentity", "observationchunk"]


def owner(null: bool):
    return models.ForeignKey(null=null, editable=False,
                             on_delete=django.db.models.deletion.CASCADE,
                             related_name="+", to=settings.AUTH_USER_MODEL)


class Migration(migrations.Migration):

    dependencies = [
        ("memories", "0015_contradiction_confidence"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        *[migrations.AddField(model_name=name, name="owner", field=owner(null=True))
          for name in MODELS],
        # Deferred foreign-key checks left pending by the UPDATEs would forbid the ALTER
        # that follows in this same transaction: check them as they happen.
        migrations.RunSQL("SET CONSTRAINTS ALL IMMEDIATE", migrations.RunSQL.noop),
        *[migrations.RunSQL(
            f"UPDATE {table} t SET owner_id = p.owner_id FROM {parent} p "
            f"WHERE p.id = t.{column} AND t.owner_id IS NULL",
            migrations.RunSQL.noop)
          for table, column, parent in FILLED_FROM],
        *[migrations.AlterField(model_name=name, name="owner", field=owner(null=False))
          for name in MODELS],
    ]
