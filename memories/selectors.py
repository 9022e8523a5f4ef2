"""Reads: the queries that find memories and what is said about them. Writes live in
memories/services/."""

import copy
import functools
import hashlib
import re
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np
import psycopg
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import connection, connections
from django.db.models import DEFERRED, F, JSONField, Prefetch, Q
from django.utils import timezone

from engram_site.db import replicas
from memories.engine.contradiction import CONFIDENT
from reflection.models import InsightStatus

from .models import (
    TEXT_SEARCH_RUN,
    WRITING_ROLES,
    ApiKey,
    Contradiction,
    ContradictionStatus,
    KeywordStats,
    Kind,
    Membership,
    Memory,
    MemoryLink,
    MemoryTerm,
    Project,
    Scope,
    Status,
    TermDocuments,
    UsageEvent,
    UsageKind,
    Validity,
    readable_by,
    tag_form,
)

POSTINGS_PER_TERM = 200

_MODEL_ID = re.compile(r"^[A-Za-z0-9._:/@-]{1,200}$")
_WORD = re.compile(r"\w+", re.UNICODE)


def vector_literal(vector: np.ndarray) -> str:
    numbers = vector.tolist()
    return "[" + ",".join(["%.7g"] * len(numbers)) % tuple(numbers) + "]"


def vector_index_name(model_id: str) -> str:
    return "memory_halfvec_" + hashlib.sha1(model_id.encode()).hexdigest()[:12]


def _as_halfvec(column: str, dimensions: int) -> str:
    return f"({column}::halfvec({dimensions}))"


# Below settings.ENGRAM_OWN_INDEX_FROM memories an owner's nearest neighbours are computed
# exactly over its own rows (the vectors are stored inline, not in TOAST). From it on the
# owner gets an HNSW index of its own, a partial index WHERE owner_id = N built by a task
# (services/vector_indexes.py): the index shared by all owners walked the other owners'
# vectors for every probe (recall p50 37 ms beside a 100,000-memory owner, and a
# 256-memory dedup batch took minutes), and at 2,000 memories the owner's own index
# already beats the exact pass (docs/BENCHMARKS.md). Until its own index exists a large
# owner keeps the shared one.
EXACT, OWN_INDEX, SHARED_INDEX = "exact", "own index", "shared index"

_indexed_models: set[tuple[str, str]] = set()

class Remembered:
    """Answers this process keeps for `seconds`, per database and key: each spares a
    round trip on every recall. At most MOST of them; past that it starts afresh (most
    were asked once, long ago)."""

    MOST = 10_000

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._kept: dict[tuple, tuple[object, float]] = {}

    def get(self, *key):
        """The answer kept for `key`, or None when there is none or it has run out."""
        kept = self._kept.get((connection.settings_dict["NAME"], *key))
        return kept[0] if kept is not None and kept[1] > time.monotonic() else None

    def keep(self, answer, *key):
        if len(self._kept) >= self.MOST:
            self._kept.clear()
        self._kept[(connection.settings_dict["NAME"], *key)] = (
            answer, time.monotonic() + self.seconds)
        return answer

    def forget(self, *key) -> None:
        self._kept.pop((connection.settings_dict["NAME"], *key), None)

    def clear(self) -> None:
        self._kept.clear()


# How an owner's nearest neighbours are found, per owner and model, for this many
# seconds: an owner that crosses the line only changes how its nearest neighbours are
# found, not which memories it sees.
DENSE_PATH_TTL = 60.0
_dense_paths = Remembered(DENSE_PATH_TTL)


def owner_index_name(model_id: str, owner_id: int) -> str:
    return f"{vector_index_name(model_id)}_o{int(owner_id)}"


def project_index_name(model_id: str, project_id) -> str:
    return f"{vector_index_name(model_id)}_p{uuid.UUID(str(project_id)).hex}"


# A project past the line gets an index of its own too (WHERE shared_with_id = P): its
# members' recall walked the shared index through every other owner's vectors for the
# project's part (p95 26-37 ms at 3,500 project memories where others hold similar texts,
# 8.6-9.1 ms through its own; docs/BENCHMARKS.md). Whether one is built, per project and
# model, is remembered like an owner's path.
_project_indexes = Remembered(DENSE_PATH_TTL)


def project_has_index(project_id, model_id: str) -> bool:
    project_id = uuid.UUID(str(project_id))
    known = _project_indexes.get(project_id, model_id)
    if known is not None:
        return known
    return _project_indexes.keep(bool(_index_valid(project_index_name(model_id, project_id))),
                                 project_id, model_id)


def _index_valid(name: str) -> bool | None:
    """Whether the index `name` is valid (a failed concurrent build leaves an invalid
    one); None when there is no such index."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT i.indisvalid FROM pg_class c JOIN pg_index i "
                       "ON i.indexrelid = c.oid WHERE c.relname = %s", [name])
        found = cursor.fetchone()
    return found[0] if found else None


# How many memories each project holds, counted up to a bound, per process for the
# minute: a size only decides how a project's nearest are found.
_project_sizes = Remembered(DENSE_PATH_TTL)


def project_size(project_id) -> int:
    """The project's memories (deleted ones left out), counted afresh up to the own-index
    line (and remembered for project_sizes)."""
    project_id = uuid.UUID(str(project_id))
    _project_sizes.forget(project_id, settings.ENGRAM_OWN_INDEX_FROM)
    return project_sizes([project_id])[project_id]


def project_sizes(projects: Sequence, *, up_to: int | None = None) -> dict[uuid.UUID, int]:
    """Each project's memories (deleted ones left out), counted up to `up_to` (by default
    the own-index line): in one query, for those not counted within the minute."""
    up_to = up_to or settings.ENGRAM_OWN_INDEX_FROM
    sizes = {project: _project_sizes.get(project, up_to)
             for project in (uuid.UUID(str(p)) for p in projects)}
    missing = [project for project, size in sizes.items() if size is None]
    if missing:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT p, (SELECT count(*) FROM (SELECT 1 FROM "
                           f"{Memory._meta.db_table} WHERE shared_with_id = p "
                           "AND status <> %s LIMIT %s) c) FROM unnest(%s::uuid[]) AS p",
                           [Status.DELETED, up_to, missing])
            for project, size in cursor.fetchall():
                sizes[project] = _project_sizes.keep(size, project, up_to)
    return sizes


def dense_path(owner_id: int, model_id: str) -> str:
    """EXACT for a small owner, OWN_INDEX when its own HNSW index is built and valid
    (a failed concurrent build leaves an invalid one), SHARED_INDEX for a large owner
    still waiting for it."""
    known = _dense_paths.get(owner_id, model_id)
    if known is not None:
        return known
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT documents FROM {KeywordStats._meta.db_table} WHERE owner_id = %s),"
            " (SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid"
            "  WHERE c.relname = %s)",
            [owner_id, owner_index_name(model_id, owner_id)])
        documents, valid = cursor.fetchone()
    large = (documents or 0) >= settings.ENGRAM_OWN_INDEX_FROM
    return _dense_paths.keep(OWN_INDEX if valid else SHARED_INDEX if large else EXACT,
                             owner_id, model_id)


def forget_dense_path(owner_id: int, model_id: str) -> None:
    """Drop the cached path, in this process, once an owner's index is built."""
    _dense_paths.forget(owner_id, model_id)


def _dense_sql(column: str, query: str, dimensions: int, owner_id: int,
               model_id: str) -> tuple[str, str]:
    """(cosine distance, extra condition) for an owner's nearest neighbours: the exact
    full-precision distance for a small owner (an expression no index serves), else the
    half-precision expression the HNSW indexes are built on. For the owner's own index
    the condition repeats its predicate as literals: PostgreSQL matches a partial index
    only against constants, and a generic plan for bound parameters has none."""
    path = dense_path(owner_id, model_id)
    if path == EXACT:
        return f"{column} <=> {query}::vector({dimensions})", ""
    distance = f"{_as_halfvec(column, dimensions)} <=> {query}::halfvec({dimensions})"
    if path == SHARED_INDEX:
        return distance, ""
    return distance, f" AND {_owner_rows(owner_id, model_id, column.rpartition('.')[0] + '.')}"


def _shared_dense_sql(column: str, query: str, dimensions: int, size: int) -> str:
    """The cosine distance over the memories a user reads through projects and as system
    memories: exact while they are fewer than the own-index line, else the shared HNSW
    index, filtered as it is walked (iterative scan)."""
    if size < settings.ENGRAM_OWN_INDEX_FROM:
        return f"{column} <=> {query}::vector({dimensions})"
    return f"{_as_halfvec(column, dimensions)} <=> {query}::halfvec({dimensions})"


def _nearest_sql(distance: str, where: str, own: str) -> str:
    """The memories meeting `where` nearest by `distance` (its parameters, then those of
    `where`, the model and how many)."""
    return (f"SELECT m.id, {distance} AS distance FROM {Memory._meta.db_table} m "
            f"WHERE {where} AND m.embedding_model = %s{own} ORDER BY distance LIMIT %s")


def _owner_rows(owner_id: int, model_id: str, alias: str = "") -> str:
    """The rows an owner's own index holds, as its predicate and the queries that must
    match it say them: in literals (the planner matches a partial index only against
    constants)."""
    return (f"{alias}owner_id = {int(owner_id)} "
            f"AND {alias}embedding_model = '{_checked_model(model_id)}'")


def _project_rows(project_id, model_id: str, alias: str = "") -> str:
    """The rows a project's own index holds, in literals (_owner_rows)."""
    return (f"{alias}shared_with_id = '{uuid.UUID(str(project_id))}' "
            f"AND {alias}embedding_model = '{_checked_model(model_id)}'")


def _checked_model(model_id: str) -> str:
    if not _MODEL_ID.match(model_id):
        raise ValueError(f"unusable embedding model id {model_id!r}")
    return model_id


def ensure_vector_index_once(model_id: str, dimensions: int) -> None:
    """ensure_vector_index, at most once per process and database, for the hot paths.

    Without the index every dense query scans the table (a batch of 256 dedup probes
    took 8 s instead of 0.2 s), so a changed embedding model must not wait for the next
    `migrate`. The catalog lookup comes first: CREATE INDEX, even IF NOT EXISTS, locks
    the table against writes.
    """
    key = (connection.settings_dict["NAME"], model_id)
    if key in _indexed_models:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_class WHERE relname = %s",
                       [vector_index_name(model_id)])
        exists = cursor.fetchone()
    if not exists:
        ensure_vector_index(model_id, dimensions)
    _indexed_models.add(key)


def ensure_vector_index(model_id: str, dimensions: int) -> str:
    """Create the partial HNSW (cosine) index for one embedding model, if missing.

    The column is an untyped `vector`; an index needs one size, so each model gets its
    own index over `embedding::halfvec(n)` restricted to that model's rows, and every
    dense query uses that same expression and filter. Half precision halves the index
    and its insert cost (0.87 against 1.5 ms a row at 10,000 memories) for a cosine
    error near 1e-3; the full-precision vector stays in the column.
    """
    if not _MODEL_ID.match(model_id) or not 0 < dimensions <= 4000:
        raise ValueError(f"unusable embedding model id {model_id!r} / {dimensions}")
    name = vector_index_name(model_id)
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {Memory._meta.db_table} "
            f"USING hnsw ({_as_halfvec('embedding', dimensions)} halfvec_cosine_ops) "
            f"WHERE embedding_model = '{model_id}'"
        )
    return name


def create_owner_vector_index(owner_id: int, model_id: str, dimensions: int) -> str:
    """Build one owner's partial HNSW index, if missing (_create_partial_index)."""
    name = _create_partial_index(
        owner_index_name(model_id, owner_id), dimensions,
        _owner_rows(owner_id, model_id))
    forget_dense_path(owner_id, model_id)
    return name


def create_project_vector_index(project_id, model_id: str, dimensions: int) -> str:
    """Build one project's partial HNSW index, if missing (_create_partial_index)."""
    project_id = uuid.UUID(str(project_id))
    name = _create_partial_index(
        project_index_name(model_id, project_id), dimensions,
        _project_rows(project_id, model_id))
    _project_indexes.forget(project_id, model_id)
    return name


def _create_partial_index(name: str, dimensions: int, rows: str) -> str:
    """A partial HNSW index (cosine, half precision, like the shared one) over the `rows`
    of one owner or project, if missing. Concurrently outside a transaction, so writes
    go on while it builds; an invalid leftover of a failed concurrent build is dropped
    first."""
    if not 0 < dimensions <= 4000:
        raise ValueError(f"unusable embedding dimensions {dimensions}")
    concurrently = "" if connection.in_atomic_block else "CONCURRENTLY"
    valid = _index_valid(name)
    if valid:
        return name
    with connection.cursor() as cursor:
        if valid is not None:
            cursor.execute(f"DROP INDEX {concurrently} IF EXISTS {name}")
        cursor.execute(
            f"CREATE INDEX {concurrently} IF NOT EXISTS {name} ON {Memory._meta.db_table} "
            f"USING hnsw ({_as_halfvec('embedding', dimensions)} halfvec_cosine_ops) "
            f"WHERE {rows}")
    return name


def owners_due_an_index(model_id: str) -> list[int]:
    """Owners past ENGRAM_OWN_INDEX_FROM memories without a valid index of their own."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT owner_id FROM {KeywordStats._meta.db_table} "
                       "WHERE documents >= %s ORDER BY owner_id",
                       [settings.ENGRAM_OWN_INDEX_FROM])
        large = [row[0] for row in cursor.fetchall()]
    return _without_an_index(large, lambda owner: owner_index_name(model_id, owner))


def projects_due_an_index(model_id: str) -> list[uuid.UUID]:
    """Projects past ENGRAM_OWN_INDEX_FROM memories without a valid index of their own."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT shared_with_id FROM {Memory._meta.db_table} "
                       "WHERE shared_with_id IS NOT NULL AND status <> %s "
                       "GROUP BY shared_with_id HAVING count(*) >= %s ORDER BY 1",
                       [Status.DELETED, settings.ENGRAM_OWN_INDEX_FROM])
        large = [row[0] for row in cursor.fetchall()]
    return _without_an_index(large, lambda project: project_index_name(model_id, project))


def _without_an_index(keys: list, name_of) -> list:
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname FROM pg_class c JOIN pg_index i "
                       "ON i.indexrelid = c.oid WHERE i.indisvalid AND c.relname = ANY(%s)",
                       [[name_of(key) for key in keys]])
        built = {row[0] for row in cursor.fetchall()}
    return [key for key in keys if name_of(key) not in built]


# The memory's own columns that recall reads, all but its vector and its tsvector: they
# come with each candidate (see CandidateRow). JSON comes as text, parsed for the winners
# only, by its field as the ORM parses it.
_READ_FIELDS = [f for f in Memory._meta.concrete_fields
                if f.name not in ("embedding", "search_vector")]
_READ_NAMES = [f.attname for f in _READ_FIELDS]
_READ_COLUMNS = ", ".join(f"m.{f.column}::text" if isinstance(f, JSONField) else f"m.{f.column}"
                          for f in _READ_FIELDS)
_PARSED = [(i, f) for i, f in enumerate(_READ_FIELDS) if isinstance(f, JSONField)]
# Every concrete field's value in order, as Model.from_db takes them fastest: the read
# ones at their places, the others deferred.
_READ_AT = [Memory._meta.concrete_fields.index(f) for f in _READ_FIELDS]
_UNREAD = [DEFERRED] * len(Memory._meta.concrete_fields)


def _column(name: str) -> property:
    at = _READ_NAMES.index(name)
    return property(lambda row: row.columns[at], doc=f"The memory's {name}.")


@dataclass(frozen=True, slots=True)
class CandidateRow:
    """One hybrid-retrieval candidate: what each list said, and its memory's columns.

    The columns come in the candidate query itself, so the ranker's texts, dates and
    sessions and the winners' rows cost no further round trip; the Memory instance is
    built only for the few that a recall returns (`memory()`): building model instances
    for dozens of candidates cost more than reading their columns."""

    columns: tuple  # in _READ_FIELDS order
    similarity: float | None
    dense_rank: int | None
    keyword_score: float | None
    keyword_rank: int | None
    graph_hop: int | None
    graph_from: uuid.UUID | None
    keyword_max: float | None
    graph_linked: list[uuid.UUID] | None  # walked memories one link away
    alias: str  # the database it was read from

    pk = _column("id")
    importance = _column("importance")
    helpful_count = _column("helpful_count")
    harmful_count = _column("harmful_count")
    last_accessed_at = _column("last_accessed_at")
    valid_from = _column("valid_from")
    content = _column("content")
    session_id = _column("session_id")

    def memory(self) -> Memory:
        """The memory, without its vector (deferred, read if asked for)."""
        values = list(_UNREAD)
        for at, value in zip(_READ_AT, self.columns):
            values[at] = value
        for i, field in _PARSED:
            values[_READ_AT[i]] = field.from_db_value(self.columns[i], None,
                                                      connections[self.alias])
        return Memory.from_db(self.alias, _READ_NAMES, values)


def nearest_for_each(owner_id: int, project: str, *, model_id: str, dimensions: int,
                     vectors: np.ndarray, per_vector: int = 5, scope: str = Scope.PRIVATE,
                     shared_with: uuid.UUID | None = None,
                     ) -> list[list[tuple[uuid.UUID, str, float]]]:
    """For each vector, the closest current memories of this owner and project, in one
    scope: the owner's private ones, those shared with the project `shared_with` (every
    author's), or system ones. Dedup never merges across scopes.

    A round trip or two for a whole batch (a LATERAL top-k per vector through the index,
    or, for a small owner, its vectors compared in NumPy), so bulk imports do not pay a
    query per memory for deduplication. Rows are (id, content, similarity), nearest
    first.
    """
    if len(vectors) == 0:
        return []
    table = Memory._meta.db_table
    # Only what holds now: a repeat of a superseded fact is stored anew (and judged
    # against what superseded it), and nothing is judged against a fact no longer true.
    if scope == Scope.PROJECT:
        among, values = "m.shared_with_id = %s", [shared_with]
    elif scope == Scope.SYSTEM:
        among, values = "m.scope = %s AND m.project = %s", [Scope.SYSTEM, project]
    else:
        among, values = ("m.owner_id = %s AND m.scope = %s AND m.project = %s",
                         [owner_id, Scope.PRIVATE, project])
    where = (f"WHERE {among} AND m.status = %s "
             "AND m.embedding_model = %s AND m.superseded_by_id IS NULL "
             "AND (m.valid_to IS NULL OR m.valid_to > now()) "
             "AND (m.expires_at IS NULL OR m.expires_at > now())")
    values += [Status.ACTIVE, model_id]
    # The system's memories are compared exactly, and a project's while its vectors fit
    # WAITING_EXACTLY_BYTES (at 3,500 memories 256 probes took 64 ms in NumPy against
    # 116 ms through its own index). So is a large owner still waiting for its own
    # index: until the index task analyses the table the planner takes such an owner
    # for one of no memories, and sorted all of its rows for every probe (a batch of 256
    # at 11,729 memories: 5.4 s, against 0.13-0.38 s in NumPy; docs/BENCHMARKS.md).
    fits = WAITING_EXACTLY_BYTES // (dimensions * 4)
    indexed = (scope == Scope.PROJECT and project_has_index(shared_with, model_id)
               and max(project_sizes([shared_with], up_to=fits + 1).values()) > fits)
    path = (dense_path(owner_id, model_id) if scope == Scope.PRIVATE
            else OWN_INDEX if indexed else EXACT)
    if path == EXACT or (path == SHARED_INDEX and _owner_size(owner_id) * dimensions * 4
                         <= WAITING_EXACTLY_BYTES):
        return _nearest_exactly(f"FROM {table} m {where}", values, vectors, per_vector,
                                dimensions)
    if indexed:  # literals, as the project's partial index has them
        distance = f"{_as_halfvec('m.embedding', dimensions)} <=> q.vec::halfvec({dimensions})"
        own = f" AND {_project_rows(shared_with, model_id, 'm.')}"
    else:
        distance, own = _dense_sql("m.embedding", "q.vec", dimensions, owner_id, model_id)
    # Each query vector is parsed once, not once per row it is compared with.
    sql = f"""
        WITH q AS MATERIALIZED (
            SELECT ord, vec::vector({dimensions}) AS vec
            FROM unnest(%s::text[]) WITH ORDINALITY AS u(vec, ord))
        SELECT q.ord, near.id, near.content, 1 - near.distance
        FROM q
        JOIN LATERAL (
            SELECT m.id, m.content, {distance} AS distance
            FROM (SELECT m.id, m.content, m.embedding FROM {table} m {where}{own}) m
            ORDER BY {distance}
            LIMIT %s
        ) near ON true
        ORDER BY q.ord, near.distance
    """
    literals = [vector_literal(v) for v in vectors]
    found: list[list[tuple[uuid.UUID, str, float]]] = [[] for _ in range(len(vectors))]
    with connection.cursor() as cursor:
        cursor.execute(sql, [literals, *values, per_vector])
        for ordinal, memory_id, content, similarity in cursor.fetchall():
            found[ordinal - 1].append((memory_id, content, float(similarity)))
    return found


# The vectors (as float32) an owner waiting for its index may hold and still have its
# dedup probes compared exactly: they come over once a batch. 32 MiB is 21,845 memories of
# 384 dimensions, about ten times the own-index line.
WAITING_EXACTLY_BYTES = 32 << 20


def _owner_size(owner_id: int) -> int:
    return (KeywordStats.objects.filter(owner_id=owner_id)
            .values_list("documents", flat=True).first() or 0)


def _nearest_exactly(rows_sql: str, values: list, vectors: np.ndarray, per_vector: int,
                     dimensions: int) -> list[list[tuple[uuid.UUID, str, float]]]:
    """nearest_for_each for a small owner: exact cosine against every row of the owner.

    The owner's vectors come over once, in pgvector's binary form, and NumPy compares the
    whole batch with them. In PostgreSQL (one LATERAL sort per probe) 256 probes against
    4,900 rows took 0.65 s of server time, ~2.5 ms a memory stored (docs/BENCHMARKS.md).
    """
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(f"SELECT m.id, vector_send(m.embedding) {rows_sql}", values,
                       binary=True)
        rows = cursor.fetchall()
    if not rows:
        return [[] for _ in range(len(vectors))]
    # vector_send: a 2-byte dimension count and 2 unused bytes, then big-endian float4s.
    stored = np.frombuffer(b"".join(bytes(data) for _, data in rows), dtype=">f4") \
        .reshape(len(rows), dimensions + 1)[:, 1:].astype(np.float32)
    stored /= np.maximum(np.linalg.norm(stored, axis=1, keepdims=True), 1e-12)
    probes = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    similarities = probes @ stored.T
    k = min(per_vector, len(rows))
    nearest = np.argpartition(-similarities, k - 1, axis=1)[:, :k]
    order = np.take_along_axis(similarities, nearest, axis=1).argsort(axis=1)[:, ::-1]
    nearest = np.take_along_axis(nearest, order, axis=1)
    chosen = {rows[j][0] for j in np.unique(nearest)}
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, content FROM {Memory._meta.db_table} WHERE id = ANY(%s)",
                       [list(chosen)])
        content = dict(cursor.fetchall())
    return [[(rows[j][0], content[rows[j][0]], float(similarities[i, j])) for j in row]
            for i, row in enumerate(nearest)]


# What a user reads is remembered per process for a moment, like an API key: it only
# decides whether recall's SQL asks about projects and system memories at all. Which
# projects is asked in the SQL itself, so a member who leaves loses sight at once; one
# who joins, or a system memory just written in another process, is seen within this
# many seconds (at once in this process: `forget_readers`).
READER_MEMORY_SECONDS = 2.0
_readers = Remembered(READER_MEMORY_SECONDS)


def forget_readers() -> None:
    _readers.clear()


@dataclass(frozen=True)
class Reader:
    """Whose memories a user's recall reads (models.readable_by, for raw SQL): their
    private ones, those of the projects they are a member of now, and system ones.
    `authors` are everyone who may have written one of them (the BM25 postings and
    statistics are kept per author), `projects` the user's projects, and `system_size`
    how many system memories there are, counted up to the line where an owner or a
    project gets its own vector index."""

    user_id: int
    shared: bool = False  # a member of some project
    system: bool = False  # system memories exist
    authors: tuple[int, ...] = ()
    projects: tuple[uuid.UUID, ...] = ()
    system_size: int = 0
    mine: bool = True  # the user's own private memories are among what `where` reads
    project: uuid.UUID | None = None  # `where` reads this one project alone
    skipped: tuple[uuid.UUID, ...] = ()  # projects `where` leaves out

    @classmethod
    def of(cls, user) -> "Reader":
        return _readers.get(user.pk) or _readers.keep(cls._read(user), user.pk)

    @classmethod
    def _read(cls, user) -> "Reader":
        memories, memberships = Memory._meta.db_table, Membership._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(f"""
                WITH mine AS (SELECT project_id FROM {memberships}
                              WHERE user_id = %s AND left_at IS NULL),
                     system AS (SELECT EXISTS (SELECT 1 FROM {memories}
                                WHERE scope = %s AND status <> %s) AS found)
                SELECT EXISTS (SELECT 1 FROM mine), (SELECT found FROM system),
                       CASE WHEN (SELECT found FROM system) OR EXISTS (SELECT 1 FROM mine)
                       THEN array(SELECT user_id FROM {memberships}
                                  WHERE project_id IN (SELECT project_id FROM mine)
                                  UNION SELECT owner_id FROM {memories} WHERE scope = %s)
                       END,
                       array(SELECT project_id FROM mine ORDER BY project_id),
                       CASE WHEN (SELECT found FROM system)
                       THEN (SELECT count(*) FROM (SELECT 1 FROM {memories} WHERE scope = %s
                                                   AND status <> %s LIMIT %s) s)
                       ELSE 0 END""",
                [user.pk, Scope.SYSTEM, Status.DELETED, Scope.SYSTEM, Scope.SYSTEM,
                 Status.DELETED, settings.ENGRAM_OWN_INDEX_FROM])
            shared, system, authors, projects, system_size = cursor.fetchone()
        return cls(user.pk, shared, system, tuple(sorted({user.pk, *(authors or ())})),
                   tuple(projects), system_size)

    @property
    def alone(self) -> bool:
        """Reads nothing but the user's own private memories (most users)."""
        return not self.shared and not self.system

    def own_part(self) -> "Reader":
        """What the user reads of their own: their private memories, found through their
        own vector index like those of an owner who reads nothing else."""
        return replace(self, shared=False, system=False)

    def project_part(self, project: uuid.UUID) -> "Reader":
        """What the user reads of one of their projects, found through its own index: the
        project is named as a literal, as the index's predicate has it, and membership is
        checked once for the statement, so that the planner counts the project's rows as
        what it reads."""
        return replace(self, mine=False, system=False, project=uuid.UUID(str(project)))

    def others_part(self, skipping: Sequence[uuid.UUID] = ()) -> "Reader":
        """What the user reads through projects (but those `skipping`) and as system
        memories (their own project memories included), without their private ones."""
        return replace(self, mine=False, skipped=tuple(skipping))

    def where(self, alias: str = "m") -> tuple[str, list]:
        if self.alone:
            return f"{alias}.owner_id = %s AND {alias}.scope = %s", [self.user_id, Scope.PRIVATE]
        if self.project is not None:
            member = (f"EXISTS (SELECT 1 FROM {Membership._meta.db_table} WHERE project_id = "
                      f"'{self.project}' AND user_id = %s AND left_at IS NULL)")
            return f"({alias}.shared_with_id = '{self.project}' AND {member})", [self.user_id]
        clauses: list[str] = []
        params: list = []
        if self.mine:
            clauses.append(f"({alias}.owner_id = %s AND {alias}.scope = %s)")
            params += [self.user_id, Scope.PRIVATE]
        if self.shared:
            # ARRAY(...) is computed once and matched through the index on shared_with
            skip = " AND project_id <> ALL(%s::uuid[])" if self.skipped else ""
            clauses.append(f"{alias}.shared_with_id = ANY(ARRAY(SELECT project_id FROM "
                           f"{Membership._meta.db_table} WHERE user_id = %s "
                           f"AND left_at IS NULL{skip}))")
            params += [self.user_id, *([list(self.skipped)] if self.skipped else [])]
        if self.system:
            clauses.append(f"{alias}.scope = %s")
            params.append(Scope.SYSTEM)
        return f"({' OR '.join(clauses)})", params


@dataclass(frozen=True)
class RecallFilters:
    """What a caller may narrow recall to. Deleted memories are never candidates."""

    memory_types: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # a memory must carry all of them
    project: str | None = None
    # With a project: also the memories of no project (a person's general preferences),
    # which the hooks want in every repository.
    with_general: bool = False
    shared_with: uuid.UUID | None = None  # only the memories shared with this project
    agent_id: str | None = None
    session_id: str | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    valid_at: datetime | None = None  # what was true then, instead of what is true now
    include_superseded: bool = False  # history too: superseded, expired, not yet valid
    min_importance: float | None = None
    include_archived: bool = False

    def narrows(self) -> bool:
        """True when a filter other than status applies (it may exclude most memories)."""
        return any(getattr(self, name) not in (None, (), False) for name in (
            "memory_types", "kinds", "tags", "project", "shared_with", "agent_id",
            "session_id", "created_after", "created_before", "valid_at", "min_importance"))

    def where(self, reader: Reader, alias: str = "m", *,
              now: datetime | None = None) -> tuple[str, list]:
        """The SQL condition and its parameters, over what `reader` reads. By default only
        what holds at `now` (or at `valid_at`): agents must not hear a fact a person has
        said is no longer true."""
        statuses = [Status.ACTIVE, Status.ARCHIVED] if self.include_archived else [Status.ACTIVE]
        readable, params = reader.where(alias)
        clauses = [readable, f"{alias}.status = ANY(%s)"]
        params.append(statuses)
        for column, values in (("memory_type", self.memory_types), ("kind", self.kinds)):
            if values:
                clauses.append(f"{alias}.{column} = ANY(%s)")
                params.append(list(values))
        if self.tags:
            clauses.append(f"{alias}.tags @> %s::varchar[]")
            params.append([tag_form(tag) for tag in self.tags])
        if self.project is not None:
            clauses.append(f"({alias}.project = %s OR {alias}.project = '')"
                           if self.with_general else f"{alias}.project = %s")
            params.append(self.project)
        for column, value in (("shared_with_id", self.shared_with),
                              ("agent_id", self.agent_id), ("session_id", self.session_id)):
            if value is not None:
                clauses.append(f"{alias}.{column} = %s")
                params.append(value)
        if self.created_after:
            clauses.append(f"{alias}.created_at >= %s")
            params.append(self.created_after)
        if self.created_before:
            clauses.append(f"{alias}.created_at < %s")
            params.append(self.created_before)
        if not self.include_superseded:
            # At valid_at, a memory superseded later still held; now, superseded is over.
            at = self.valid_at or now or timezone.now()
            clauses.append(f"{alias}.valid_from <= %s AND ({alias}.valid_to IS NULL "
                           f"OR %s < {alias}.valid_to) AND ({alias}.expires_at IS NULL "
                           f"OR %s < {alias}.expires_at)")
            params += [at, at, at]
            if not self.valid_at:
                clauses.append(f"{alias}.superseded_by_id IS NULL")
        if self.min_importance is not None:
            clauses.append(f"{alias}.importance >= %s")
            params.append(self.min_importance)
        return " AND ".join(clauses), params


class OutOfProject(Exception):
    """A project-restricted key asked for another project (the API answers 403)."""


class NotAllowed(PermissionDenied):
    """The caller may read this but their role does not let them change it (a reader
    editing a project memory, a non-owner adding members): 403 in the API and the
    dashboard."""


def require_writable(memory: Memory, user) -> None:
    """Raise NotAllowed, saying why, unless `user` may change `memory` (no user: the
    system's own work, such as maintenance)."""
    if user is None or memory.writable_by(user):
        return
    if memory.scope == Scope.SYSTEM:
        raise NotAllowed("Only staff change system memories.")
    if memory.scope == Scope.PRIVATE:
        raise NotAllowed("This is another user's private memory.")
    project = Project.objects.get(pk=memory.shared_with_id)
    role = role_in(project, user)
    raise NotAllowed(f"You are {'a ' + role if role else 'not a member'} of project "
                     f"{project.name!r}: only its owners and editors change its memories.")


def versions_seen_by(memory: Memory, user):
    """A memory's versions that `user` may read: all of them for its author; for anyone
    else only those since it was last moved into its scope (a move is a version of its
    own: what it said while private, or in the project it left, stays its author's; a
    move between projects changes `shared_with` alone)."""
    versions = memory.versions.select_related("changed_by")
    if user.pk == memory.owner_id:
        return versions
    move = (memory.versions.filter(after__has_any_keys=["scope", "shared_with"])
            .order_by("-changed_at", "-id")
            .values_list("changed_at", "id").first())
    if move is None:
        return versions
    at, move_id = move
    return versions.filter(Q(changed_at__gt=at) | Q(changed_at=at, id__gte=move_id))


def require_erasable(memory: Memory, user) -> None:
    """Erasing removes every copy of a text, the author's own observations and notes
    included: only its author does it (while they may change it); another member of a
    project deletes instead, which can be undone."""
    require_writable(memory, user)
    if user is not None and memory.owner_id != user.pk:
        raise NotAllowed("Only its author erases a memory for good (with every copy of "
                         "its text, their own notes included); delete it instead: a "
                         "deletion can be undone.")


class NoSuchProject(Exception):
    """No project of that name is among the caller's (the API answers 404)."""


def projects_of(user):
    """The projects `user` is a member of now, with `role` annotated, by name."""
    return (Project.objects.filter(memberships__user=user, memberships__left_at__isnull=True)
            .annotate(role=F("memberships__role")).select_related("creator")
            .order_by("name", "created_at"))


def with_members(projects):
    """`projects` with their current `members` (memberships with their users, in the
    order they joined): one more query for them all."""
    return projects.prefetch_related(Prefetch(
        "memberships", to_attr="members",
        queryset=Membership.objects.current().select_related("user").order_by("joined_at", "id")))


def project_named(user, name: str, *, creator: str | None = None) -> Project:
    """The project called `name` that `user` is a member of: the one they created if
    there are several, or the one whose creator is `creator`. Raises NoSuchProject."""
    if "\x00" in name or "\x00" in (creator or ""):  # no name PostgreSQL could hold
        raise NoSuchProject("A project name holds no NUL character.")
    found = [p for p in projects_of(user).filter(name=name)
             if creator in (None, "", p.creator_name)]
    if len(found) > 1:
        found = [p for p in found if p.creator_id == user.pk] or found
    if len(found) != 1:
        raise NoSuchProject(
            f"You are a member of no project named {name!r}" + (
                f" created by {creator!r}." if creator else ".") if not found else
            f"You are a member of {len(found)} projects named {name!r}: name its creator "
            f"too ({', '.join(p.creator_name for p in found)}).")
    return found[0]


def role_in(project: Project, user) -> str | None:
    return (Membership.objects.current().filter(project=project, user=user)
            .values_list("role", flat=True).first())


def writable_project(user, name: str, *, creator: str | None = None) -> Project:
    """The project called `name` whose memories `user` may write: one they own or edit.
    Raises NoSuchProject, or NotAllowed naming their role."""
    project = project_named(user, name, creator=creator)
    if project.role not in WRITING_ROLES:
        raise NotAllowed(f"You are a {project.role} of project {project.name!r}: only its "
                         "owners and editors write its memories.")
    return project


@dataclass(frozen=True)
class Reach:
    """What a caller may reach of its owner's store: every project, or only one (an API
    key restricted to a project). The one place reads are narrowed and writes forced:
    the REST views and the MCP tools start every query and write from here.
    """

    project: str | None = None  # None: every project

    @classmethod
    def of_key(cls, key) -> "Reach":
        """The reach of an API key (request.auth); a session or no key reaches all."""
        project = getattr(key, "project", "") or ""
        return cls(project) if project else EVERYWHERE

    @property
    def restricted(self) -> bool:
        return self.project is not None

    def project_for(self, asked: str | None) -> str | None:
        """The project a read or write may name: what was asked, or, for a restricted
        key, its own project (asked or not); another project raises OutOfProject."""
        if self.project is None:
            return asked
        if asked not in (None, "", self.project):
            raise OutOfProject(
                f"This API key is restricted to project {self.project!r}; it cannot reach "
                f"project {asked!r}. Leave project out or name {self.project!r}.")
        return self.project

    def refuse_unscoped(self, what: str) -> None:
        """Refuse work that spans every project (reflection, consolidation)."""
        if self.project is not None:
            raise OutOfProject(f"This API key is restricted to project {self.project!r}, "
                               f"and {what} spans every project: use an unrestricted key.")

    def memories(self, memories):
        """A memory queryset narrowed to the key's project."""
        return memories if self.project is None else memories.filter(project=self.project)

    def recall(self, filters: "RecallFilters") -> "RecallFilters":
        """Recall filters narrowed to the key's project (and without general memories, which
        belong to no project)."""
        if self.project is None:
            return filters
        return replace(filters, project=self.project_for(filters.project), with_general=False)

    def links(self, links):
        """Memory links narrowed to those between two memories of the key's project."""
        if self.project is None:
            return links
        return links.filter(from_memory__project=self.project, to_memory__project=self.project)

    def contradictions(self, contradictions):
        if self.project is None:
            return contradictions
        return contradictions.filter(memory_a__project=self.project,
                                     memory_b__project=self.project)


EVERYWHERE = Reach()


# A query reaches text search in the pieces a stored text is read in (models.TEXT_SEARCH_RUN).
_LONG_RUN = re.compile(TEXT_SEARCH_RUN)

# The links the graph walk follows from each memory: the strongest, each neighbour once
# (a pair may be linked by several relations). Every link of every hop was walked, and
# sixty memories linked each to all others by six relations made each search take 12 s.
LINKS_WALKED = 20


# The words much of a store holds change as slowly as the store's make-up (a new
# conversation, a new speaker), and finding them reads every term the store holds (4 ms
# at 10,000 memories, 17 ms at 100,000 with 110,000 terms): asked once a minute per reader
# and process, not on every recall.
COMMON_TERMS_SECONDS = 60.0
_common_terms = Remembered(COMMON_TERMS_SECONDS)


def common_terms(reader: Reader, *, share: float, minimum: int) -> frozenset[str]:
    """The terms (text search's stems) that at least `share` of the memories `reader`
    reads through the postings hold, and at least `minimum` of them, by the BM25
    document counts (engine/dense_query.py)."""
    known = _common_terms.get(reader.authors, share, minimum)
    if known is not None:
        return known
    if len(reader.authors) == 1:  # one author's counts need no adding up (95 -> 17 ms)
        sql, authors = _OWN_COMMON_TERMS_SQL, reader.authors[0]
    else:
        sql, authors = _COMMON_TERMS_SQL, list(reader.authors)
    _, rows = _server_bound(sql, [authors, share, authors, minimum])
    return _common_terms.keep(frozenset(term for (term,) in rows),
                              reader.authors, share, minimum)


def forget_common_terms() -> None:
    _common_terms.clear()


def _union_nearest_sql(reader: Reader, filters: RecallFilters, now, unseen: str,
                       unseen_params: list, distance: str, own: str, literal: str,
                       dimensions: int, model_id: str, k: int) -> tuple[str, list]:
    """The `k` nearest of what a project member reads, and the parameters: their own
    private memories by their own path (`distance`, `own`), each of their projects that
    has an index of its own through it, and the rest (smaller projects, system memories)
    exactly while they are fewer than the own-index line, else through the shared index.
    The parts do not overlap: a private memory is in no project."""
    mine, mine_params = filters.where(reader.own_part(), now=now)
    parts = [(_nearest_sql(distance, mine + unseen, own),
              [literal, *mine_params, *unseen_params, model_id, k])]
    sizes = project_sizes(reader.projects)
    indexed = [project for project, size in sizes.items()
               if size >= settings.ENGRAM_OWN_INDEX_FROM
               and project_has_index(project, model_id)]
    halfvec = f"{_as_halfvec('m.embedding', dimensions)} <=> %s::halfvec({dimensions})"
    for project in indexed:
        where, params = filters.where(reader.project_part(project), now=now)
        parts.append((_nearest_sql(halfvec, where + unseen,
                                   f" AND {_project_rows(project, model_id, 'm.')}"),
                      [literal, *params, *unseen_params, model_id, k]))
    rest, rest_params = filters.where(reader.others_part(skipping=indexed), now=now)
    rest_size = reader.system_size + sum(size for project, size in sizes.items()
                                         if project not in indexed)
    parts.append((_nearest_sql(_shared_dense_sql("m.embedding", "%s", dimensions, rest_size),
                               rest + unseen, ""),
                  [literal, *rest_params, *unseen_params, model_id, k]))
    return (" UNION ALL ".join(f"({sql})" for sql, _ in parts) + " ORDER BY distance LIMIT %s",
            [*(arg for _, args in parts for arg in args), k])


def hybrid_candidates(owner, *, query: str, vector: np.ndarray | None, model_id: str,
                      dimensions: int, filters: RecallFilters = RecallFilters(),
                      exclude_ids: Sequence[uuid.UUID] = (), dense_k: int = 50,
                      keyword_k: int = 50, graph_seeds: int = 10, graph_depth: int = 2,
                      now: datetime | None = None,
                      reader: Reader | None = None) -> list[CandidateRow]:
    """Dense, keyword and graph candidate lists in one round trip.

    Each returned memory carries `similarity` and `dense_rank` (HNSW over the active
    model's vectors), `keyword_score` and `keyword_rank` (BM25 over the postings,
    any query word), and `graph_hop` / `graph_from` (reached over links, in either
    direction, from the top hits of the other two lists, through candidates only);
    absent parts are None.
    `keyword_max` is the BM25 score of a memory holding every query term once at
    average length: the scale for normalising keyword scores.

    Candidates are what `owner` reads (`Reader`): alone, through the owner's own vector
    index and postings; with projects or system memories, the owner's own memories
    through their own index, what projects and the system add exactly below the
    own-index line (else through the shared index), and every author's postings, read
    in full.
    """
    reader = reader or Reader.of(owner)
    where, params = filters.where(reader, now=now)
    # What the caller has seen already is no candidate, but the graph walk may step
    # through it (theirs to read): it is left out of the lists and the final lookup only.
    walk_where, walk_params = where, params
    unseen, unseen_params = "", []
    if exclude_ids:
        unseen, unseen_params = " AND m.id <> ALL(%s)", [list(exclude_ids)]
        where, params = where + unseen, [*params, *unseen_params]
    table, links = Memory._meta.db_table, MemoryLink._meta.db_table
    words = _WORD.findall(query)
    ctes, args = [], []
    literal = vector_literal(vector) if vector is not None else None
    if vector is not None:
        distance, own = _dense_sql("m.embedding", "%s", dimensions, owner.pk, model_id)
        if reader.alone:
            nearest, nearest_args = _nearest_sql(distance, where, own), [
                literal, *params, model_id, dense_k]
        else:
            # Each part through its own index: walked for the whole union, the shared index
            # passed through every other owner's vectors (p95 35-39 ms against 6-7 alone
            # where others hold similar texts, one question 50 ms for 12,441 rows filtered
            # out; docs/BENCHMARKS.md).
            nearest, nearest_args = _union_nearest_sql(
                reader, filters, now, unseen, unseen_params, distance, own, literal,
                dimensions, model_id, dense_k)
        ctes.append(f"""dense AS (
            SELECT id, 1 - distance AS similarity,
                   row_number() OVER (ORDER BY distance, id) AS rank
            FROM ({nearest}) nearest)""")
        args += nearest_args
    else:
        ctes.append("dense AS (SELECT NULL::uuid AS id, NULL::float AS similarity, "
                    "NULL::bigint AS rank WHERE false)")
    if words:
        # BM25 over the trigger-kept postings: each query term contributes its idf times
        # the memory's precomputed impact. Unless a narrowing filter applies, only each
        # term's strongest postings of the owner's own are read and only the best-scoring
        # memories are checked against the memory table, which keeps common words cheap;
        # a narrowing filter reads everything, so a filtered search still finds matches
        # that rank low owner-wide.
        # Each hit is checked against the memory table by its key (OFFSET 0: the planner
        # neither flattens the lookup nor pushes `where` into it). Joined as a set, an
        # owner the statistics do not know yet (one importing beside a large owner, too
        # small a share of the table for autoanalyze) was read whole for every hit.
        # One author as a plain value, not an array: the postings index (owner, term,
        # impact descending) then hands over each term's strongest in order, where
        # `= ANY` made the server read and sort every posting of the term (5.5 of the
        # candidate query's 7 ms at 100,000 memories, docs/BENCHMARKS.md). A reader of
        # projects or system memories reads their own postings so too, and the other
        # authors' in full, the best of them unbounded: others' private postings would
        # crowd the readable ones out. Read whole, the owner's own postings made a
        # 100,000-memory owner's recall p50 13-15 ms instead of 3.4-4.9 once a single
        # system memory existed (docs/BENCHMARKS.md).
        def posted_by(authors: str) -> str:
            return (f"SELECT p.memory_id, p.impact FROM {MemoryTerm._meta.db_table} p "
                    f"WHERE p.owner_id {authors} AND p.term = w.term")

        authors = list(reader.authors)
        near = f"{posted_by('= %s')} ORDER BY p.impact DESC, p.memory_id LIMIT %s"
        near_args: list = [owner.pk, POSTINGS_PER_TERM]
        if not reader.alone:
            near = f"({near}) UNION ALL ({posted_by('= ANY(%s)')})"
            near_args.append([author for author in authors if author != owner.pk])
        best, best_args = ("LIMIT %s", [keyword_k * 4]) if reader.alone else ("", [])
        # Every query term counts towards the scale, those the owner never wrote too
        # (at the idf of an unseen word): a query that shares one word with the store
        # is then a weak keyword match, however many memories contain that word.
        ctes.append(f"""terms AS (
            SELECT q.term, coalesce(d.documents, 0) AS documents,
                   ln(1 + (s.documents - coalesce(d.documents, 0) + 0.5)::float8
                          / (coalesce(d.documents, 0) + 0.5)::float8) AS idf
            FROM unnest(tsvector_to_array(to_tsvector('english', %s))) AS q(term)
            CROSS JOIN (SELECT sum(documents) AS documents
                        FROM {KeywordStats._meta.db_table} WHERE owner_id = ANY(%s)) s
            LEFT JOIN LATERAL (SELECT sum(documents) AS documents
                               FROM {TermDocuments._meta.db_table}
                               WHERE owner_id = ANY(%s) AND term = q.term) d ON true
            WHERE s.documents IS NOT NULL)""")
        def matched(postings: str, best: str) -> str:
            return f"""SELECT m.id, top.score
                  FROM (SELECT p.memory_id, sum(w.idf * p.impact) AS score
                        FROM terms w CROSS JOIN LATERAL ({postings}) p
                        GROUP BY p.memory_id ORDER BY score DESC, p.memory_id {best}) top
                  CROSS JOIN LATERAL (SELECT * FROM {table} m
                                      WHERE m.id = top.memory_id OFFSET 0) m
                  WHERE {where}
                  ORDER BY top.score DESC, top.memory_id LIMIT %s"""

        ranked = "SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rank FROM"
        if filters.narrows():
            # A narrowing filter may leave few of the strongest postings: then every
            # posting is read, so that the search still finds matches that rank low
            # owner-wide. When the strongest leave enough, they serve, as without the
            # filter: read whole, a 100,000-memory owner's recall with the hooks' project
            # filter took p50 12.4 ms against 6.4 (docs/BENCHMARKS.md).
            # The strongest were every posting when no term has more and, alone, no more
            # memories hold the terms than the best checked (a small store, rare words).
            whole = ("(SELECT coalesce(bool_and(documents <= %s), true) AND (%s OR sum(documents) <= %s) "
                     "FROM terms)")
            whole_args = [POSTINGS_PER_TERM, not reader.alone, keyword_k * 4]
            ctes.append(f"keyword_near AS MATERIALIZED ({matched(near, best)})")
            ctes.append(f"""keyword AS ({ranked} (
                SELECT * FROM keyword_near
                WHERE (SELECT count(*) FROM keyword_near) >= %s OR {whole}
                UNION ALL
                SELECT * FROM ({matched(posted_by('= ANY(%s)'), '')}) everything
                WHERE (SELECT count(*) FROM keyword_near) < %s AND NOT {whole}) matched)""")
            keyword_args = [*near_args, *best_args, *params, keyword_k, keyword_k, *whole_args,
                            authors, *params, keyword_k, keyword_k, *whole_args]
        else:
            ctes.append(f"keyword AS ({ranked} ({matched(near, best)}) matched)")
            keyword_args = [*near_args, *best_args, *params, keyword_k]
        args += [_LONG_RUN.sub(r"\g<0> ", query), authors, authors, *keyword_args]
    else:
        ctes.append("terms AS (SELECT NULL::text AS term, NULL::float8 AS idf WHERE false)")
        ctes.append("keyword AS (SELECT NULL::uuid AS id, NULL::float AS score, "
                    "NULL::bigint AS rank WHERE false)")
    # Graph walk: links in either direction from the strongest hits, up to graph_depth.
    # Each step lands only on a memory that could be a candidate itself (`where`: what the
    # reader reads, within the filters and the key's project), checked before the
    # strongest are taken: a readable memory reached through one the caller cannot see,
    # or a link to it crowding readable ones out, would show how their links run. Links
    # are grouped by neighbour before that lookup: a hub's neighbour is looked up once,
    # not once a relation. Each is looked up by its key, as the keyword hits are: joined
    # as a set, each step read all the memories of an owner the statistics did not know
    # yet (recall p50 59 ms instead of 14 at 6,000 memories, docs/BENCHMARKS.md).
    ctes.append("""seeds AS (
            SELECT id FROM dense WHERE rank <= %s
            UNION SELECT id FROM keyword WHERE rank <= %s)""")
    args += [graph_seeds, graph_seeds]
    ctes.append(f"""walk AS (
            SELECT id, 0 hop, NULL::uuid came_from FROM seeds
            UNION ALL
            SELECT e.other, w.hop + 1, w.id FROM walk w
            JOIN LATERAL (
                SELECT other FROM (
                    SELECT CASE WHEN from_memory_id = w.id THEN to_memory_id
                                ELSE from_memory_id END other, max(strength) s
                    FROM {links} WHERE w.id IN (from_memory_id, to_memory_id) GROUP BY 1) l
                CROSS JOIN LATERAL (SELECT * FROM {table} m WHERE m.id = l.other OFFSET 0) m
                WHERE {walk_where}
                ORDER BY s DESC, 1 LIMIT %s) e ON true
            WHERE w.hop < %s AND e.other IS DISTINCT FROM w.came_from)""")
    args += [*walk_params, LINKS_WALKED, graph_depth]
    # Per memory reached: the fewest links from a seed, the memory it was first reached
    # from, and every walked memory it is linked to (each one link away), so ranking can
    # let it inherit from the strongest of them. A seed linked to another seed keeps no
    # hop of its own but gets its links.
    ctes.append("""graph AS (
            SELECT id, CASE WHEN id IN (SELECT id FROM seeds) THEN NULL ELSE min(hop) END hop,
                   CASE WHEN id IN (SELECT id FROM seeds) THEN NULL
                        ELSE (array_agg(came_from ORDER BY hop, came_from))[1] END came_from,
                   array_agg(DISTINCT came_from) linked
            FROM walk WHERE hop > 0 GROUP BY id)""")
    # Each candidate is looked up by its key (OFFSET 0 keeps the planner from flattening
    # the lateral join): joined as a set, the planner hashed every row of a small owner,
    # 3,000 read for 50 candidates; every list has met `where` already (the walk all
    # but what was seen, left out here). The lists are joined to the pool before that
    # lookup: joined to each row it found, they were hashed again for every candidate
    # (0.5 ms).
    # Every candidate carries its cosine, those that only the keyword list or the graph
    # walk brought too (exact, over a few dozen rows): a memory reached over a link is
    # then ranked by its own meaning as well as by where it was reached from.
    if vector is not None:
        similarity = (f"coalesce(d.similarity, CASE WHEN m.embedding_model = %s THEN "
                      f"1 - (m.embedding <=> %s::vector({dimensions})) END)")
        outer = [model_id, literal]
    else:
        similarity, outer = "d.similarity", []
    sql = f"""
        WITH RECURSIVE {', '.join(ctes)},
        pool AS (SELECT id FROM dense UNION SELECT id FROM keyword UNION SELECT id FROM graph)
        SELECT {_READ_COLUMNS},
               {similarity}, d.rank, k.score, k.rank, g.hop, g.came_from,
               (SELECT sum(idf) FROM terms), g.linked
        FROM pool
        LEFT JOIN dense d ON d.id = pool.id
        LEFT JOIN keyword k ON k.id = pool.id
        LEFT JOIN graph g ON g.id = pool.id
        CROSS JOIN LATERAL (
            SELECT * FROM {table} m WHERE m.id = pool.id{unseen} OFFSET 0) m
    """
    # The columns are read by position, in CandidateRow's order: unnamed, they keep the
    # query shorter for psycopg's cache line (_compact).
    alias, rows = _server_bound(_compact(sql), [*args, *outer, *unseen_params])
    width = len(_READ_FIELDS)
    return [CandidateRow(row[:width], *row[width:], alias) for row in rows]


@functools.lru_cache(maxsize=256)
def _compact(sql: str) -> str:
    """`sql` with each run of white space one space, for SQL whose literals hold none.

    psycopg converts the placeholders of a statement up to 4,096 characters (and 50
    parameters) once and remembers it; the indented candidate query had 4,664 and was
    converted on every recall. Compacted, an owner's recall over their own memories
    (about 3,800) is converted once and the server reads less: p50 2.25 to 2.03 ms, p95
    2.66 to 2.31 ms a round trip at 10,000 memories (docs/BENCHMARKS.md). A project
    member's, whose condition each step of the graph walk repeats (about 4,160 with the
    hooks' project filter), and narrower filters on top pass the line and are converted
    each time (61 us).
    """
    # a line comment would swallow everything after it on one line; inside a literal (a
    # model id may hold "--") two dashes are no comment
    if "--" in re.sub(r"'[^']*'", "", sql):
        raise ValueError("SQL with a -- comment cannot be compacted.")
    return " ".join(sql.split())


_OWN_COMMON_TERMS_SQL = _compact(f"""
    SELECT term FROM {TermDocuments._meta.db_table} WHERE owner_id = %s
    AND documents >= greatest(%s * (SELECT documents FROM {KeywordStats._meta.db_table}
                                    WHERE owner_id = %s), %s)""")
_COMMON_TERMS_SQL = _compact(f"""
    SELECT term FROM {TermDocuments._meta.db_table} WHERE owner_id = ANY(%s)
    GROUP BY term
    HAVING sum(documents) >= greatest(%s * (SELECT sum(documents) FROM {KeywordStats._meta.db_table}
                                          WHERE owner_id = ANY(%s)), %s)""")


def _server_bound(sql: str, params: list) -> tuple[str, list[tuple]]:
    """The database alias read from and the rows of a query whose parameters are bound
    by the server, on Django's connection; the rows come in binary.

    Django binds parameters on the client: each recall then had psycopg quote and
    inline a 384-number vector literal twice into the statement text, and the server
    parse it back (0.5 ms of the candidate query). A prepared statement was slower
    still: its generic plan lost more than planning costs (and one planned afresh each
    time, plan_cache_mode force_custom_plan, saved nothing measurable). Binary rows spare
    the parsing of every timestamp and number from text: 0.8 ms of fifty candidates'
    rows.
    """
    def run(reading):
        reading.ensure_connection()
        with reading.wrap_database_errors, psycopg.Cursor(reading.connection) as cursor:
            cursor.execute(sql, params, prepare=False, binary=True)
            return reading.alias, cursor.fetchall()

    return replicas.read(run)


def readable_ids(user, ids: Iterable, *, reach: Reach = EVERYWHERE) -> set:
    """Those of `ids` (None ignored) that are memories `user` reads within `reach`, in one
    query: a memory names others (what superseded it, what a merge made) that may have
    left the reader's sight since (made private, moved to another project)."""
    ids = {pk for pk in ids if pk is not None}
    if not ids:
        return set()
    return set(reach.memories(Memory.objects.readable_by(user)).filter(pk__in=ids)
               .values_list("pk", flat=True))


def successors_hidden(versions, user, *, reach: Reach = EVERYWHERE) -> list:
    """`versions` (MemoryVersion) as a list, each `superseded_by` one records shown as
    None unless `user` reads that memory within `reach` (readable_ids): what superseded a
    memory may have been made private or moved to another project since. One query."""
    versions = list(versions)
    readable = readable_ids(user, {_successor(side) for version in versions
                                   for side in (version.before, version.after)},
                            reach=reach)
    for version in versions:
        version.before, version.after = (
            side if side.get("superseded_by") is None or _successor(side) in readable
            else {**side, "superseded_by": None} for side in (version.before, version.after))
    return versions


def _successor(change: dict) -> uuid.UUID | None:
    """The memory a version says superseded it: an imported version may hold anything."""
    named = change.get("superseded_by")
    try:
        return uuid.UUID(named) if isinstance(named, str) else None
    except ValueError:
        return None


def related_memories(memory: Memory, *, reader, depth: int, include_superseded: bool = False,
                     now: datetime | None = None, reach: Reach = EVERYWHERE,
                     ) -> list[tuple[Memory, int, str]]:
    """Memories linked to `memory` within `depth` hops, either direction, nearest first,
    that `reader` reads within `reach`: a project memory may be linked to its author's
    private ones, which no other member ever sees.

    Each comes with its hop count and the relation of the link that first reached it.
    Deleted memories are not walked through or returned; superseded, expired and not yet
    valid ones are walked through but returned only with `include_superseded`. Only
    what the reader reads within reach is walked through, so a hop never passes through
    a memory they cannot see.
    """
    seen = {memory.pk: (0, "")}
    frontier = {memory.pk}
    for hop in range(1, depth + 1):
        links = reach.links(MemoryLink.objects.filter(
            Q(from_memory__in=frontier) | Q(to_memory__in=frontier),
            readable_by(reader, "from_memory__"), readable_by(reader, "to_memory__"),
        )).exclude(from_memory__status=Status.DELETED).exclude(to_memory__status=Status.DELETED)
        frontier = set()
        for from_id, to_id, relation in links.values_list("from_memory", "to_memory",
                                                          "relation"):
            for other in (from_id, to_id):
                if other not in seen:
                    seen[other] = (hop, relation)
                    frontier.add(other)
        if not frontier:
            break
    found = Memory.objects.readable_by(reader).filter(
        pk__in=[pk for pk in seen if pk != memory.pk]).defer("embedding", "search_vector")
    if not include_superseded:
        found = found.current(now or timezone.now())
    return sorted(((m, *seen[m.pk]) for m in found), key=lambda row: (row[1], str(row[0].pk)))


# A short name an agent can cite and send back: the last hex digits of a UUIDv7, which
# are random. The first ones are the clock, shared by everything stored within a minute.
HANDLE_LENGTH = 8
_HANDLE = re.compile(rf"^[0-9a-f]{{{HANDLE_LENGTH}}}$")


def handle_of(pk: uuid.UUID) -> str:
    return pk.hex[-HANDLE_LENGTH:]


def by_reference(rows, reference: str) -> list:
    """The rows of `rows` (an owner's queryset) that `reference` names, by full id or by
    handle: none, one, or two when a handle is ambiguous (a third is never needed)."""
    reference = reference.strip().lower()
    try:
        return list(rows.filter(pk=uuid.UUID(reference)))
    except ValueError:
        pass
    if not _HANDLE.match(reference):
        return []
    return list(rows.filter(id__endswith=reference)[:2])


def project_index(owner, project: str, *, limit: int, now: datetime | None = None) -> list:
    """What an agent should see first in a project: its active memories that hold now,
    pinned ones first, then by importance."""
    return list(Memory.objects.readable_by(owner).active().current(now or timezone.now())
                .filter(project=project).defer("embedding", "search_vector")
                .order_by("-pinned", "-importance", "-id")[:limit])


def listed(memories, *, memory_type=(), kind=(), status=(), tag=(), project=None,
           shared_with=None, agent_id=None, session_id=None, pinned=None, created_after=None,
           created_before=None, validity: str = "all", now: datetime | None = None):
    """The list view's filters; without a status, deleted memories stay out of sight.
    `validity` narrows to what holds now ("current"), what no longer does ("superseded",
    "expired"), what does not yet ("pending"), or leaves it ("all")."""
    memories = memories.filter(status__in=status) if status else memories.visible()
    if validity != "all":
        memories = _of_validity(memories, validity, now or timezone.now())
    for lookup, values in (("memory_type__in", memory_type), ("kind__in", kind)):
        if values:
            memories = memories.filter(**{lookup: list(values)})
    if tag:
        memories = memories.filter(tags__contains=[tag_form(t) for t in tag])
    for name, value in (("project", project), ("shared_with", shared_with),
                        ("agent_id", agent_id), ("session_id", session_id), ("pinned", pinned)):
        if value is not None:
            memories = memories.filter(**{name: value})
    if created_after:
        memories = memories.filter(created_at__gte=created_after)
    if created_before:
        memories = memories.filter(created_at__lt=created_before)
    return memories


def _of_validity(memories, validity: str, now: datetime):
    return {Validity.CURRENT: memories.current, Validity.SUPERSEDED: memories.superseded,
            Validity.EXPIRED: memories.expired, Validity.PENDING: memories.pending}[validity](now)


def surfaced_in_session(owner, session_id: str) -> list:
    """Memories already handed out in this session, which a context must not repeat."""
    if not session_id:
        return []
    return list(UsageEvent.objects.filter(owner=owner, session_id=session_id,
                                          kind=UsageKind.RETRIEVED)
                .values_list("memory_id", flat=True).distinct())



# --- API keys ---------------------------------------------------------------------------

# A key's lookup was a query on every request. This process remembers a usable key for a
# moment: revoking it here forgets it at once (`forget_api_key`), and a key revoked, its
# owner deactivated or deleted in another process is refused within this many seconds.
# An expiry is checked on every use.
API_KEY_MEMORY_SECONDS = 2.0
_recent_keys: dict[str, tuple[ApiKey, float]] = {}
_clock = time.monotonic


def usable_api_key(raw_key: str) -> ApiKey | None:
    """The usable key that `raw_key` is (with its owner), or None. Each call gets its own
    copies, so no two requests share a mutable user."""
    digest = ApiKey.digest(raw_key)
    known = _recent_keys.get(digest)
    if known is not None and known[1] > _clock() and not known[0].is_expired():
        key = known[0]
    else:
        key = ApiKey.objects.matching(raw_key)
        if key is None:
            _recent_keys.pop(digest, None)
            return None
        if len(_recent_keys) >= 10_000:  # keys seen once long ago: start afresh
            _recent_keys.clear()
        _recent_keys[digest] = (key, _clock() + API_KEY_MEMORY_SECONDS)
    own = copy.copy(key)
    own.owner = copy.copy(key.owner)
    return own


def note_key_used(key: ApiKey, when: datetime) -> None:
    """Keep the remembered copy's last use in step, so it is not written again at once."""
    known = _recent_keys.get(key.key_hash)
    if known is not None:
        known[0].last_used_at = when


def forget_api_key(key_hash: str) -> None:
    _recent_keys.pop(key_hash, None)


# --- Contradictions --------------------------------------------------------------------

HEAVY_MEMORY_FIELDS = ("embedding", "search_vector")


def open_contradictions_for(user, memory_ids: Iterable) -> dict:
    """memory id -> the open contradiction it is part of, for the context's critical tier:
    any the user sees (a project's reader too, who cannot resolve it but must know that
    what they read is disputed)."""
    ids = list(memory_ids)
    if not ids or not _any_open_contradiction(ids):
        return {}
    open_ = (seen_contradictions(user).confident().not_moot()
             .filter(status=ContradictionStatus.OPEN))
    found = {}
    for c in open_.filter(Q(memory_a_id__in=ids) | Q(memory_b_id__in=ids)):
        found.setdefault(c.memory_a_id, c)
        found.setdefault(c.memory_b_id, c)
    return found


def unreviewed_insights(memories: Iterable[Memory]) -> set:
    """The ids of those memories that are insights reflection wrote and no person has
    approved yet: an agent handed one must be told. A query only when an insight is
    among them."""
    ids = [m.pk for m in memories if m.kind == Kind.INSIGHT]
    if not ids:
        return set()
    return set(Memory.objects.filter(pk__in=ids, insight__isnull=False)
               .exclude(insight__status=InsightStatus.APPROVED)
               .values_list("pk", flat=True))


_ANY_OPEN_SQL = (f"SELECT EXISTS (SELECT 1 FROM {Contradiction._meta.db_table} "
                 "WHERE status = %s AND confidence >= %s "
                 "AND (memory_a_id = ANY(%s::uuid[]) OR memory_b_id = ANY(%s::uuid[])))")


def _any_open_contradiction(ids: list) -> bool:
    """Whether any of these memories is disputed at all: plain SQL, because on every
    context the answer is almost always no, and building the ORM's query (with who sees
    what) cost more than asking."""
    with connection.cursor() as cursor:
        cursor.execute(_ANY_OPEN_SQL, [ContradictionStatus.OPEN, CONFIDENT, ids, ids])
        return cursor.fetchone()[0]


def _between_readable(contradictions, user):
    return contradictions.filter(readable_by(user, "memory_a__"),
                                 readable_by(user, "memory_b__"))


def seen_contradictions(user):
    """The contradictions `user` sees: those between two memories they read (their own
    private ones, their projects' of any author, system ones). Only those queued for
    them (queued_contradictions) are theirs to resolve."""
    return _between_readable(Contradiction.objects.all(), user)


def queued_contradictions(user):
    """What `user` works through: their own private contradictions and those of the
    projects they own or edit (a reader has no queue), of memories they still read, less
    the moot ones (Contradiction.objects.not_moot)."""
    return _between_readable(Contradiction.objects.queued_for(user).not_moot(), user)


def count_open_contradictions(user) -> int:
    """The open queue's length: confident verdicts only."""
    return queued_contradictions(user).confident().filter(
        status=ContradictionStatus.OPEN).count()


def with_memories(contradictions):
    """Contradictions with both memories, their authors and who resolved them, one
    query."""
    heavy = [f"{side}__{name}" for side in ("memory_a", "memory_b", "merged_into")
             for name in HEAVY_MEMORY_FIELDS]
    return (contradictions.select_related("memory_a__owner", "memory_b__owner",
                                          "resolved_by", "merged_into", "shared_with")
            .defer(*heavy))


def contradictions_of(user):
    """The contradictions `user` sees (seen_contradictions), with both memories: a
    detail to show, or one to resolve (the service refuses a reader, 403)."""
    return with_memories(seen_contradictions(user))


def contradiction_queue(user, *, status: str, unsure: bool = False):
    """The user's queue (queued_contradictions): open ones oldest first, resolved ones
    newest resolution first; of the open ones the confident verdicts only, unless
    `unsure` asks for every one."""
    found = with_memories(queued_contradictions(user)).filter(status=status)
    if not unsure:
        found = found.listed()
    if status == ContradictionStatus.OPEN:
        return found.order_by("detected_at", "id")
    return found.order_by("-resolved_at", "-detected_at")


def next_open_contradiction(user, *, after: Contradiction | None = None):
    found = queued_contradictions(user).confident().filter(status=ContradictionStatus.OPEN)
    if after is not None:
        found = found.exclude(pk=after.pk)
    return found.order_by("detected_at", "id").only("id").first()
