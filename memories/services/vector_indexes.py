"""Each large owner's and each large project's own HNSW index: built by a task when the
owner or project crosses `settings.ENGRAM_OWN_INDEX_FROM` memories, and by a sweep for
any the queue missed.

Partial indexes (WHERE owner_id = N) rather than partitioning the memory table by owner:
they need no change to the table, its keys or its foreign keys, and the planner picks
the owner's (or project's: WHERE shared_with_id = P) index by the literal predicate the
dense query carries. Their price is in planning: every partial index on the table is
weighed for every query on it (~8 us each, measured: 200 of them added 1.6 ms to the
candidate query's planning). Past a few hundred large owners and projects in one
database, list partitions are the next step (each its own partition, pruned at planning;
docs/BENCHMARKS.md, section 12).
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

from .. import queue, selectors
from ..models import Memory, MemoryTerm, TermDocuments
from ..providers.embeddings import get_provider

log = logging.getLogger(__name__)

_queued: set[tuple[str, int, str]] = set()


def queue_owner_index_if_due(owner_id: int) -> None:
    """Queue the build of this owner's index when it is past the threshold without one
    (once per process: the task is idempotent, and the sweep catches a lost one).

    Asks afresh (one indexed lookup), which also refreshes the cached path: the answer
    cached before this write may predate the crossing."""
    model_id = get_provider().model_id
    key = (connection.settings_dict["NAME"], owner_id, model_id)
    if key in _queued:
        return
    selectors.forget_dense_path(owner_id, model_id)
    if selectors.dense_path(owner_id, model_id) == selectors.SHARED_INDEX:
        _queued.add(key)
        queue.after_commit("memories.tasks.index_owner_vectors", owner_id)


@contextmanager
def _building_alone(kind: str, key) -> Iterator[bool]:
    """Whether this process may build the index of `kind` for `key`: no other process
    holds the advisory lock for it, which is held until the block ends."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(hashtext(%s), hashtext(%s))",
                       [kind, str(key)])
        alone = cursor.fetchone()[0]
    try:
        yield alone
    finally:
        if alone:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(hashtext(%s), hashtext(%s))",
                               [kind, str(key)])


def index_owner_vectors(owner_id: int) -> str | None:
    """Build the owner's index for the current model, unless another process is building
    it or the owner is below the threshold."""
    provider = get_provider()
    with _building_alone("owner vector index", owner_id) as alone:
        if not alone:
            return None
        selectors.forget_dense_path(owner_id, provider.model_id)
        if selectors.dense_path(owner_id, provider.model_id) == selectors.EXACT:
            return None
        name = selectors.create_owner_vector_index(owner_id, provider.model_id,
                                                   provider.dimensions)
        # Until the tables are analysed the planner takes an owner who grew since the
        # last ANALYZE for one of no rows, and beside a large owner it planned that
        # owner's candidate query as nested loops over every posting: recall p50 62 ms
        # (3,000 memories) and 231 ms (10,000) beside a million-memory owner, 8.6 and
        # 8.8 ms once analysed (docs/BENCHMARKS.md). Autoanalyze waits for a tenth of
        # the table to change, which a small owner never is.
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Memory._meta.db_table}, {MemoryTerm._meta.db_table}, "
                           f"{TermDocuments._meta.db_table}")
        log.info("built the vector index %s of owner %s", name, owner_id)
        return name


def queue_project_index_if_due(project_id) -> None:
    """Queue the build of this project's index when it is past the threshold without one
    (once per process, as for an owner)."""
    model_id = get_provider().model_id
    key = (connection.settings_dict["NAME"], str(project_id), model_id)
    if key in _queued:
        return
    if (not selectors.project_has_index(project_id, model_id)
            and selectors.project_size(project_id) >= settings.ENGRAM_OWN_INDEX_FROM):
        _queued.add(key)
        queue.after_commit("memories.tasks.index_project_vectors", str(project_id))


def index_project_vectors(project_id) -> str | None:
    """Build the project's index for the current model, unless another process is
    building it or the project is below the threshold."""
    provider = get_provider()
    with _building_alone("project vector index", project_id) as alone:
        if not alone or selectors.project_size(project_id) < settings.ENGRAM_OWN_INDEX_FROM:
            return None
        name = selectors.create_project_vector_index(project_id, provider.model_id,
                                                     provider.dimensions)
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Memory._meta.db_table}")  # as for an owner, above
        log.info("built the vector index %s of project %s", name, project_id)
        return name


def index_large_projects() -> list[str]:
    """The sweep: every project past the threshold still without its own index gets one."""
    model_id = get_provider().model_id
    return [name for project_id in selectors.projects_due_an_index(model_id)
            if (name := index_project_vectors(project_id))]


def index_large_owners() -> list[str]:
    """The sweep: every owner past the threshold still without its own index gets one."""
    model_id = get_provider().model_id
    return [name for owner_id in selectors.owners_due_an_index(model_id)
            if (name := index_owner_vectors(owner_id))]
