"""A migration operation that drops a foreign key's own index and nothing else.

Django indexes every foreign key column. Where another index of the table already leads
with that column (a composite index or a unique constraint), the column's own index serves
no lookup the other does not, and every insert still writes it: a recall logs ten usage
events, each writing every index of its table. Setting `db_index=False` fixes the state,
but Django's AlterField then drops and re-adds the foreign key constraint too, which
re-checks every row of the table under a lock; this operation drops the index only.
"""

from django.db import migrations


def drop_own_index(alter: migrations.AlterField, *, table: str, column: str,
                   index: str) -> migrations.SeparateDatabaseAndState:
    """`alter` (setting db_index=False) in the migration state; in the database, only
    `index` on `table` (`column`) dropped, and re-created when migrating back."""
    return migrations.SeparateDatabaseAndState(
        state_operations=[alter],
        database_operations=[migrations.RunSQL(
            f'DROP INDEX IF EXISTS "{index}"',
            reverse_sql=f'CREATE INDEX IF NOT EXISTS "{index}" ON "{table}" ("{column}")')])
