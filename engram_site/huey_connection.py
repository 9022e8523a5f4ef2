"""Huey's own PostgreSQL connection, built from Django's database settings.

Huey must never share Django's connection (its LISTEN and autocommit would interfere),
but it should reach the very same server, embedded or not, without a second config.
"""


def connect():
    import psycopg
    from django.db import connections

    params = connections["default"].get_connection_params()
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    return psycopg.connect(**params)
