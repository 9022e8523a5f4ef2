"""Reads from PostgreSQL streaming replicas (DATABASE_REPLICA_URLS), writes to the primary.

Only what a caller marks with `replica_reads()` (recall, search and context) may go to a
replica; everything else reads the primary, so a key just revoked or a memory just edited
is never read stale by the screens and the API's other views. Inside the mark:

- read-your-writes: once the request writes (the router sees every ORM write), its later
  reads go to the primary, which holds the write the replica may not have replayed yet;
- a replica more than ENGRAM_REPLICA_MAX_LAG_BYTES of WAL behind the primary, or one that
  does not answer, is skipped (checked at most every ENGRAM_REPLICA_CHECK_SECONDS per
  process), and with none usable the primary answers: a replica down breaks no read.
  One that dies between two checks fails over to the primary in the plain-SQL reads of
  recall (`read`); an ORM read sent to it fails until the next check.

A request that follows another's write may read from a replica up to that lag behind.
"""

import contextvars
import itertools
import logging
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    InterfaceError,
    OperationalError,
    connections,
)
from django.db.backends.base.base import BaseDatabaseWrapper

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class _Reads:
    wrote: bool = False


_marked: contextvars.ContextVar[_Reads | None] = contextvars.ContextVar(
    "engram_replica_reads", default=None)
_health: dict[str, tuple[float, bool]] = {}  # alias -> (checked at, usable)
_turn = itertools.count()


@contextmanager
def replica_reads():
    """Within: reads may be served by a replica until the first write."""
    token = _marked.set(_Reads())
    try:
        yield
    finally:
        _marked.reset(token)


def read_alias() -> str:
    """The database alias the next read should use."""
    marked = _marked.get()
    replicas = getattr(settings, "ENGRAM_REPLICAS", [])
    if marked is None or marked.wrote or not replicas:
        return DEFAULT_DB_ALIAS
    start = next(_turn)  # spread readers over the replicas
    for i in range(len(replicas)):
        alias = replicas[(start + i) % len(replicas)]
        if _usable(alias):
            return alias
    return DEFAULT_DB_ALIAS


def read(run: Callable[[BaseDatabaseWrapper], T]) -> T:
    """`run(connection)` on the connection a read should use, for reads in plain SQL (the
    ORM's go through the router). A replica that fails, having died since its last
    check, is set aside until the next check and the primary answers instead."""
    alias = read_alias()
    if alias == DEFAULT_DB_ALIAS:
        return run(connections[alias])
    try:
        return run(connections[alias])
    except (OperationalError, InterfaceError) as exc:
        log.warning("Read replica %s failed, reading the primary: %s", alias, exc)
        _health[alias] = (time.monotonic(), False)
        connections[alias].close()
        return run(connections[DEFAULT_DB_ALIAS])


def _usable(alias: str) -> bool:
    checked = _health.get(alias)
    now = time.monotonic()
    if checked and now - checked[0] < settings.ENGRAM_REPLICA_CHECK_SECONDS:
        return checked[1]
    lag = _lag_bytes(alias)
    usable = lag is not None and lag <= settings.ENGRAM_REPLICA_MAX_LAG_BYTES
    _health[alias] = (now, usable)
    return usable


def _lag_bytes(alias: str) -> float | None:
    """WAL bytes the replica has yet to replay; None when it does not answer or is no
    replica (promoted, or pointed at a primary by mistake)."""
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT pg_current_wal_lsn()::text")
            primary_lsn = cursor.fetchone()[0]
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT pg_wal_lsn_diff(%s::pg_lsn, pg_last_wal_replay_lsn())",
                           [primary_lsn])
            lag = cursor.fetchone()[0]
    except DatabaseError as exc:
        log.warning("Read replica %s is not usable, reading the primary: %s", alias, exc)
        connections[alias].close()
        return None
    return float(lag) if lag is not None else None


class ReplicaRouter:
    """Django's database router for settings.ENGRAM_REPLICAS (see the module's doc)."""

    def db_for_read(self, model, **hints):
        return read_alias()

    def db_for_write(self, model, **hints):
        marked = _marked.get()
        if marked is not None:
            marked.wrote = True
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True  # one database, copied

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == DEFAULT_DB_ALIAS
