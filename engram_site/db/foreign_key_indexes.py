"""A migration operation that drops a foreign key's own index and nothing else.

Django indexes every foreign key column. Where another index of the table already leads
with that column (a composite index or a unique constraint), the column's own index serves
no lookup the other does not, and every insert still writes it: a recall logs ten usage
events, each writing every index of its table. Setting `db_index=False` fixes the state,
but Django's AlterField then drops and re-adds the foreign key constraint too, which
re-checks every row of the table under a lock; this operation drops the index only.
"""

from django.db import migrations


class DropOwnIndex(migrations.AlterField):
    """AlterField to `db_index=False` whose database side drops `index` only, and makes
    it again when migrating back (on the table and column the model state names)."""

    def __init__(self, model_name, name, field, index, preserve_default=True):
        super().__init__(model_name, name, field, preserve_default)
        self.index = index

    def deconstruct(self):
        name, args, kwargs = super().deconstruct()
        return name, args, {**kwargs, "index": self.index}

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if self.allow_migrate_model(schema_editor.connection.alias,
                                    to_state.apps.get_model(app_label, self.model_name)):
            schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(self.index)}")

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        model = to_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            quote = schema_editor.quote_name
            column = model._meta.get_field(self.name).column
            schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {quote(self.index)} "
                                  f"ON {quote(model._meta.db_table)} ({quote(column)})")
