"""PostgreSQL backend that starts the embedded server on demand and insists on pgvector.

Django's own backend does the work; this one only adds, on the first connection of a
process, the two failures a person can act on, each as one sentence: the server cannot
be reached, or it has no usable `vector` extension.
"""

import psycopg
from django.db import utils
from django.db.backends.postgresql import base, client

from . import embedded


class DatabaseSetupError(utils.OperationalError):
    """The database cannot serve Engram; the message says why and what to do."""


_checked_databases: set[tuple] = set()


def _describe(params: dict) -> str:
    host = params.get("host") or "localhost"
    where = host if host.startswith("/") else f"{host}:{params.get('port') or 5432}"
    return f"PostgreSQL at {where}/{params.get('dbname')}"


def ensure_vector_extension(conn, params: dict) -> None:
    """Create `vector` if it is missing, or say in one sentence why it cannot be."""
    installed = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    if installed:
        return
    available = conn.execute(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
    ).fetchone()
    if not available:
        raise DatabaseSetupError(
            f"{_describe(params)} has no pgvector extension ('vector'): install pgvector "
            "0.8 or newer on that server, or unset DATABASE_URL to use Engram's embedded "
            "PostgreSQL."
        )
    try:
        with conn.transaction():
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as exc:
        raise DatabaseSetupError(
            f"{_describe(params)} could not create the 'vector' extension "
            f"({str(exc).strip().splitlines()[0]}): run CREATE EXTENSION vector; as a "
            "superuser in that database, then start Engram again."
        ) from None


class DatabaseClient(client.DatabaseClient):
    """`manage.py dbshell` on the embedded server too."""

    @classmethod
    def settings_to_cmd_args_env(cls, settings_dict, parameters):
        if settings_dict.get("EMBEDDED_PGDATA"):
            params = embedded.start(settings_dict["EMBEDDED_PGDATA"],
                                    settings_dict.get("EMBEDDED_SHARED_BUFFERS"))
            settings_dict = {**settings_dict, "HOST": params["host"], "USER": params["user"]}
        return super().settings_to_cmd_args_env(settings_dict, parameters)


class DatabaseWrapper(base.DatabaseWrapper):
    client_class = DatabaseClient

    def get_connection_params(self):
        params = super().get_connection_params()
        pgdata = self.settings_dict.get("EMBEDDED_PGDATA")
        if pgdata:
            params.update(embedded.start(
                pgdata, self.settings_dict.get("EMBEDDED_SHARED_BUFFERS")))
        return params

    def get_new_connection(self, conn_params):
        try:
            connection = super().get_new_connection(conn_params)
        except psycopg.OperationalError as exc:
            lines = str(exc).strip().splitlines() or ["no answer"]
            reason = lines[0].removeprefix("connection failed: ").strip()
            raise DatabaseSetupError(
                f"Engram cannot reach {_describe(conn_params)} ({reason}): check "
                "DATABASE_URL and that the server is running."
            ) from None
        key = (conn_params.get("host"), conn_params.get("port"), conn_params.get("dbname"))
        # NAME None is Django's maintenance connection, used to create test databases.
        if key not in _checked_databases and self.settings_dict["NAME"] is not None:
            previous_autocommit = connection.autocommit
            connection.autocommit = True
            try:
                ensure_vector_extension(connection, conn_params)
            except DatabaseSetupError:
                connection.close()
                raise
            finally:
                if not connection.closed:
                    connection.autocommit = previous_autocommit
            _checked_databases.add(key)
        return connection
