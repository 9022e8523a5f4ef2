"""Inserting many new rows with PostgreSQL's binary COPY instead of bulk_create's INSERT.

bulk_create spends about two thirds of its time building the INSERT text in Python: the
compiler's placeholders, pgvector's vector-to-text list comprehension (~0.4 ms a
memory) and psycopg's conversion of the query; COPY sends each value in binary, the
vector as its 4-byte header and big-endian floats (Python time 0.06 against 0.72 ms a
memory for 256 LoCoMo turns, docs/BENCHMARKS.md). The rows are the ones bulk_create
would write: every field's pre_save (auto_now) and get_db_prep_save run as they do
there, and triggers fire on COPY as on INSERT. Generated columns are left to the
server and deferred on the objects (loaded on first access), where bulk_create would
have fetched them back with RETURNING.
"""

from collections.abc import Sequence

from django.db import connections, models, router
from pgvector import Vector
from pgvector.django import VectorField

# A column declared bytea is sent as the raw bytes given; in binary COPY the server reads
# each field with the column's own receive function, so these bytes are vector_recv's.
BYTEA_OID = 17


def insert_by_copy(model: type[models.Model], objs: Sequence[models.Model]) -> None:
    """Insert `objs`, whose primary keys are already set, as bulk_create(objs) would."""
    if not objs:
        return
    if any(obj.pk is None for obj in objs):
        raise ValueError("insert_by_copy needs the primary keys set in Python.")
    alias = router.db_for_write(model)
    connection = connections[alias]
    fields = [f for f in model._meta.concrete_fields if not f.generated]
    generated = [f for f in model._meta.concrete_fields if f.generated]
    types = _column_types(connection, model, fields)
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    for obj in objs:
        obj._prepare_related_fields_for_save(operation_name="bulk_create")
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY {quote(model._meta.db_table)} ({columns}) "
                                "FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(types)
            for obj in objs:
                copy.write_row([_db_value(f, obj, connection) for f in fields])
    for obj in objs:
        for field in generated:
            obj.__dict__.pop(field.attname, None)  # deferred: read back on first access
        obj._state.adding = False
        obj._state.db = alias


def _db_value(field: models.Field, obj: models.Model, connection):
    value = field.pre_save(obj, add=True)
    if isinstance(field, VectorField):
        return None if value is None else Vector(value).to_binary()
    return field.get_db_prep_save(value, connection)


_types_by_table: dict[tuple, list[int]] = {}


def _column_types(connection, model, fields) -> list[int]:
    """The columns' own type oids (read once per process), so that each value is sent
    in exactly the binary form its column receives."""
    key = (connection.alias, model._meta.db_table)
    if key not in _types_by_table:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT attname, atttypid::int FROM pg_attribute "
                "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
                [model._meta.db_table])
            by_column = dict(cursor.fetchall())
        _types_by_table[key] = [
            BYTEA_OID if isinstance(f, VectorField) else by_column[f.column] for f in fields]
    return _types_by_table[key]
