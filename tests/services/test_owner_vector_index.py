"""An owner past the size line gets an HNSW index of its own, the dense query uses it, and
recall answers the same with it as without it; until it is built, the owner's dedup probes
are compared exactly. A project past the line gets an index of its own the same way; a
member's recall finds their own memories through their own index, each large project's
through its index, the rest exactly while small, and nothing they may not read."""

from itertools import pairwise

import numpy as np
import pytest
from django.db import connection, transaction

from memories import selectors
from memories.models import Memory, Scope
from memories.providers.embeddings import get_provider
from memories.services import vector_indexes
from memories.services.recall import recall
from memories.services.remembering import NewMemory, remember_many
from tests.helpers import SHOP

SUBJECTS = ["billing", "search", "auth", "ledger", "gateway", "inventory", "email",
            "geo", "sessions", "etl"]
FACTS = ["runs on port {n}", "was rewritten in Go during sprint {n}",
         "pages the on-call team after {n} failed health checks",
         "keeps its backups for {n} days", "is owned by team number {n}"]
QUERIES = ["which port does billing use", "how long are ledger backups kept",
           "who owns the gateway", "when was search rewritten"]


def notes(count):
    return [f"The {SUBJECTS[i % 10]} service {FACTS[i // 10 % 5].format(n=i + 7)}."
            for i in range(count)]


@pytest.fixture
def low_line(settings):
    """The size line at 30 memories, fresh caches, and no index left behind."""
    settings.ENGRAM_OWN_INDEX_FROM = 30
    forget_paths()
    vector_indexes._queued.clear()
    yield
    forget_paths()
    vector_indexes._queued.clear()
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname FROM pg_class WHERE relname LIKE %s",
                       [selectors.vector_index_name(get_provider().model_id) + "\\_%"])
        for (name,) in cursor.fetchall():
            cursor.execute(f"DROP INDEX IF EXISTS {name}")


def forget_paths():
    """As when the minute's remembered answers have run out."""
    for remembered in (selectors._dense_paths, selectors._project_indexes,
                       selectors._project_sizes):
        remembered.clear()


def exact_comparisons(monkeypatch) -> list:
    """The batches dedup compares exactly in NumPy from now on, as they come."""
    exactly = []
    real = selectors._nearest_exactly
    monkeypatch.setattr(selectors, "_nearest_exactly",
                        lambda *args: exactly.append(args) or real(*args))
    return exactly


def as_if_the_queue_were_down(owner):
    vector_indexes._queued.add((connection.settings_dict["NAME"], owner.pk,
                                get_provider().model_id))


def own_index_of(owner):
    return selectors.owner_index_name(get_provider().model_id, owner.pk)


def index_exists(name):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_class WHERE relname = %s", [name])
        return cursor.fetchone() is not None


def dense_plan(owner, query):
    """EXPLAIN of recall's candidate query, with sorting priced out so that the planner
    must pick an index that yields rows in distance order (as it does at real sizes)."""
    plans = []

    def explain(sql, params):
        if "dense AS" not in sql:  # recall's other reads (the store's common terms)
            return original(sql, params)
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_sort = off")
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + sql, params)
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
        return connection.alias, []

    original = selectors._server_bound
    selectors._server_bound = explain
    try:
        with transaction.atomic():  # SET LOCAL lasts as long as this transaction
            recall(owner=owner, query=query)
    finally:
        selectors._server_bound = original
    return plans[0]


@pytest.mark.django_db(transaction=True)
def test_an_owner_crossing_the_line_gets_its_own_index_built_by_the_task(alice, bob, low_line):
    remember_many(owner=alice, items=[NewMemory(content=text) for text in notes(20)])
    assert not index_exists(own_index_of(alice))

    selectors._dense_paths.clear()  # the minute's cached answer has run out
    remember_many(owner=alice, items=[NewMemory(content=text) for text in notes(40)[20:]])

    assert index_exists(own_index_of(alice))
    assert not index_exists(own_index_of(bob))
    assert selectors.dense_path(alice.pk, get_provider().model_id) == selectors.OWN_INDEX


@pytest.mark.django_db(transaction=True)
def test_the_sweep_indexes_large_owners_the_queue_missed(alice, bob, low_line):
    for owner, count in ((alice, 40), (bob, 10)):
        as_if_the_queue_were_down(owner)
        remember_many(owner=owner, items=[NewMemory(content=text) for text in notes(count)])
    assert selectors.owners_due_an_index(get_provider().model_id) == [alice.pk]

    assert vector_indexes.index_large_owners() == [own_index_of(alice)]
    assert selectors.owners_due_an_index(get_provider().model_id) == []
    assert not index_exists(own_index_of(bob))


@pytest.mark.django_db(transaction=True)
def test_building_an_owners_index_tells_the_planner_about_the_owner(alice, low_line):
    as_if_the_queue_were_down(alice)
    remember_many(owner=alice, items=[NewMemory(content=text) for text in notes(40)])
    assert alice.pk not in owners_the_planner_knows()

    vector_indexes.index_owner_vectors(alice.pk)

    assert alice.pk in owners_the_planner_knows()


def owners_the_planner_knows():
    with connection.cursor() as cursor:
        cursor.execute("SELECT most_common_vals::text::bigint[] FROM pg_stats "
                       "WHERE tablename = 'memories_memory' AND attname = 'owner_id'")
        row = cursor.fetchone()
    return set(row[0] or ()) if row else set()


@pytest.mark.django_db(transaction=True)
def test_the_dense_query_of_a_large_owner_uses_its_own_index(alice, bob, low_line):
    remember_many(owner=alice, items=[NewMemory(content=text) for text in notes(40)])
    as_if_the_queue_were_down(bob)
    remember_many(owner=bob, items=[NewMemory(content=text) for text in notes(40)])
    assert index_exists(own_index_of(alice)) and not index_exists(own_index_of(bob))
    selectors._dense_paths.clear()  # the minute's cached answer has run out

    plan = dense_plan(alice, QUERIES[0])
    assert f"Index Scan using {own_index_of(alice)}" in plan
    # Bob is as large but has no index of his own yet: the shared one serves him.
    other = dense_plan(bob, QUERIES[0])
    assert own_index_of(alice) not in other
    assert f"Index Scan using {selectors.vector_index_name(get_provider().model_id)} " in other


@pytest.mark.django_db(transaction=True)
def test_recall_answers_the_same_with_the_owners_index_as_without(alice, low_line):
    as_if_the_queue_were_down(alice)
    remember_many(owner=alice, items=[NewMemory(content=text) for text in notes(50)])
    selectors._dense_paths.clear()
    assert selectors.dense_path(alice.pk, get_provider().model_id) == selectors.SHARED_INDEX
    before = {q: [hit.memory.pk for hit in recall(owner=alice, query=q)] for q in QUERIES}

    vector_indexes.index_owner_vectors(alice.pk)
    assert selectors.dense_path(alice.pk, get_provider().model_id) == selectors.OWN_INDEX
    after = {q: [hit.memory.pk for hit in recall(owner=alice, query=q)] for q in QUERIES}

    assert after == before
    assert all(len(found) == 10 for found in after.values())


@pytest.mark.django_db(transaction=True)
def test_an_owner_waiting_for_its_index_is_deduplicated_exactly_while_its_vectors_fit(
        alice, low_line, monkeypatch):
    as_if_the_queue_were_down(alice)
    remember_many(owner=alice, items=[NewMemory(content=text) for text in notes(40)])
    exactly = exact_comparisons(monkeypatch)
    probe = get_provider().embed_documents(["The billing service runs on port 8080."])

    def nearest():
        [found] = selectors.nearest_for_each(alice.pk, "", model_id=get_provider().model_id,
                                             dimensions=get_provider().dimensions,
                                             vectors=np.asarray(probe))
        return found

    selectors._dense_paths.clear()
    assert selectors.dense_path(alice.pk, get_provider().model_id) == selectors.SHARED_INDEX
    exact = nearest()
    assert len(exactly) == 1

    # room for the vectors of 30 memories, not 40
    monkeypatch.setattr(selectors, "WAITING_EXACTLY_BYTES", 30 * get_provider().dimensions * 4)
    through_the_index = nearest()
    assert len(exactly) == 1
    assert {pk for pk, _, _ in through_the_index} == {pk for pk, _, _ in exact}


def shared_index():
    return f"Index Scan using {selectors.vector_index_name(get_provider().model_id)} "


def share_with(team, author, texts):
    remember_many(owner=author, items=[
        NewMemory(content=text, scope=Scope.PROJECT, shared_with=team, project=SHOP)
        for text in texts])


@pytest.mark.django_db(transaction=True)
def test_a_members_own_memories_go_through_their_own_index_and_the_projects_exactly(
        team, alice, dana, low_line):
    remember_many(owner=dana, items=[NewMemory(content=text) for text in notes(40)])
    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(10))])
    assert index_exists(own_index_of(dana))
    forget_paths()
    selectors.forget_readers()

    plan = dense_plan(dana, QUERIES[0])

    # The shared index, walked for a union, passed through every other owner's vectors.
    assert f"Index Scan using {own_index_of(dana)}" in plan
    assert shared_index() not in plan


def project_index_of(project):
    return selectors.project_index_name(get_provider().model_id, project.pk)


def as_if_the_queue_were_down_for(project):
    vector_indexes._queued.add((connection.settings_dict["NAME"], str(project.pk),
                                get_provider().model_id))


@pytest.mark.django_db(transaction=True)
def test_a_project_crossing_the_line_gets_its_own_index_built_by_the_task(team, alice,
                                                                          low_line):
    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(20))])
    assert not index_exists(project_index_of(team))

    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(40))][20:])

    assert index_exists(project_index_of(team))


@pytest.mark.django_db(transaction=True)
def test_the_sweep_indexes_large_projects_the_queue_missed(team, alice, low_line):
    as_if_the_queue_were_down_for(team)
    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(40))])
    assert selectors.projects_due_an_index(get_provider().model_id) == [team.pk]

    assert vector_indexes.index_large_projects() == [project_index_of(team)]
    assert selectors.projects_due_an_index(get_provider().model_id) == []


@pytest.mark.django_db(transaction=True)
def test_once_a_system_memory_exists_every_owner_still_walks_their_own_index(
        alice, low_line, django_user_model):
    remember_many(owner=alice, items=[NewMemory(content=text) for text in notes(40)])
    staff = django_user_model.objects.create_user("sam", is_staff=True)
    remember_many(owner=staff, items=[NewMemory(content="Answers cite their memories.",
                                                scope=Scope.SYSTEM)])
    forget_paths()
    selectors.forget_readers()
    assert not selectors.Reader.of(alice).alone  # everyone reads the system's memories

    plan = dense_plan(alice, QUERIES[0])

    assert f"Index Scan using {own_index_of(alice)}" in plan
    assert shared_index() not in plan
    assert "Answers cite their memories." in [
        hit.memory.content for hit in recall(owner=alice, query="what must answers cite")]


@pytest.mark.django_db(transaction=True)
def test_a_large_projects_memories_go_through_its_own_index_once_built(team, alice, dana,
                                                                        low_line):
    remember_many(owner=dana, items=[NewMemory(content=text) for text in notes(40)])
    as_if_the_queue_were_down_for(team)
    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(35))])
    forget_paths()
    selectors.forget_readers()

    waiting = dense_plan(dana, QUERIES[0])
    vector_indexes.index_project_vectors(team.pk)
    built = dense_plan(dana, QUERIES[0])

    assert shared_index() in waiting and project_index_of(team) not in waiting
    assert f"Index Scan using {project_index_of(team)}" in built
    assert f"Index Scan using {own_index_of(dana)}" in built
    assert shared_index() not in built


@pytest.mark.django_db(transaction=True)
def test_a_member_who_leaves_a_large_project_loses_sight_of_it_at_once(team, alice, dana,
                                                                       low_line):
    from memories.services.projects import remove_member

    remember_many(owner=dana, items=[NewMemory(content=text) for text in notes(40)])
    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(40))])
    assert index_exists(project_index_of(team))
    selectors.forget_readers()
    assert any(hit.memory.shared_with_id == team.pk
               for hit in recall(owner=dana, query="which port does billing use", limit=20))

    stale = selectors.Reader.of(dana)
    remove_member(team, by=alice, username="dana")
    selectors._readers.keep(stale, dana.pk)  # as another process still has it, for seconds
    assert selectors.Reader.of(dana).projects

    assert not any(hit.memory.shared_with_id == team.pk
                   for hit in recall(owner=dana, query="which port does billing use", limit=20))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("shared", [12, 40])  # the project compared exactly, or indexed
def test_a_members_nearest_are_the_nearest_of_all_they_read(team, alice, bob, charlie, dana,
                                                              low_line, shared):
    remember_many(owner=dana, items=[NewMemory(content=text) for text in notes(40)])
    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(shared))])
    assert index_exists(project_index_of(team)) == (shared >= 30)
    for other in (bob, charlie):  # their private memories are not dana's to read
        remember_many(owner=other, items=[NewMemory(content=f"{other.username}: {text}")
                                          for text in notes(20)])
    forget_paths()
    selectors.forget_readers()
    for query in QUERIES:
        dense, similarity = dense_list(dana, query, k=15)
        nearest = sorted(similarity, key=similarity.get, reverse=True)[:15]
        tie = similarity[nearest[-1]]

        # the exact nearest, but where half precision (the indexes') may swap a near tie
        assert {pk for pk in set(dense) ^ set(nearest)
                if abs(similarity[pk] - tie) > NEAR_TIE} == set()
        assert all(similarity[a] >= similarity[b] - NEAR_TIE for a, b in pairwise(dense))
        assert {Memory.objects.get(pk=pk).owner_id for pk in dense} == {dana.pk, alice.pk}


NEAR_TIE = 0.002  # a cosine in half precision is within about 1e-3 of the exact one


def dense_list(user, query, *, k, **options):
    """The ids of `user`'s dense candidates for `query`, nearest first, and the exact
    cosine of every memory they read."""
    provider = get_provider()
    readable = list(Memory.objects.readable_by(user).values_list("id", "embedding"))
    vector = provider.embed_query(query)
    found = selectors.hybrid_candidates(
        user, query=query, vector=vector, model_id=provider.model_id,
        dimensions=provider.dimensions, dense_k=k, keyword_k=k, **options)
    dense = [c.pk for c in sorted((c for c in found if c.dense_rank is not None),
                                  key=lambda c: c.dense_rank)]
    return dense, {pk: float(np.asarray(embedding) @ vector) for pk, embedding in readable}


@pytest.mark.django_db(transaction=True)
def test_a_large_projects_memories_are_deduplicated_through_its_own_index(team, alice,
                                                                          low_line,
                                                                          monkeypatch):
    as_if_the_queue_were_down_for(team)
    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(40))])
    exactly = exact_comparisons(monkeypatch)
    probe = get_provider().embed_documents(["Shop note: the billing service runs on 8080."])

    def nearest():
        [found] = selectors.nearest_for_each(
            alice.pk, SHOP, model_id=get_provider().model_id,
            dimensions=get_provider().dimensions, vectors=np.asarray(probe),
            scope=Scope.PROJECT, shared_with=team.pk)
        return found

    exact = nearest()
    assert len(exactly) == 1
    vector_indexes.index_project_vectors(team.pk)
    assert nearest() == exact and len(exactly) == 2  # its vectors fit: still exact

    # room for the vectors of 30 memories, not 40
    monkeypatch.setattr(selectors, "WAITING_EXACTLY_BYTES", 30 * get_provider().dimensions * 4)
    through_the_index = nearest()

    assert len(exactly) == 2
    assert [pk for pk, _, _ in through_the_index] == [pk for pk, _, _ in exact]


@pytest.mark.django_db(transaction=True)
def test_every_part_of_a_members_list_keeps_to_what_they_read_and_asked_for(
        team, alice, charlie, dana, low_line):
    from memories.models import Status
    from memories.services.projects import create_project

    remember_many(owner=dana, items=[NewMemory(content=text) for text in notes(40)])
    share_with(team, alice, [f"Shop note {i}: {text}" for i, text in enumerate(notes(40))])
    elsewhere = create_project(creator=charlie, name="github.com/acme/elsewhere")
    remember_many(owner=charlie, items=[
        NewMemory(content=f"Elsewhere: {text}", scope=Scope.PROJECT, shared_with=elsewhere,
                  project=elsewhere.name) for text in notes(40)])
    assert index_exists(project_index_of(team)) and index_exists(project_index_of(elsewhere))
    gone = Memory.objects.filter(shared_with=team).order_by("created_at").first()
    Memory.objects.filter(pk=gone.pk).update(status=Status.DELETED)
    forget_paths()
    selectors.forget_readers()
    readable = set(Memory.objects.readable_by(dana).filter(status=Status.ACTIVE)
                   .values_list("id", flat=True))

    everything, _ = dense_list(dana, gone.content, k=40)
    seen = everything[:5]
    unseen, _ = dense_list(dana, gone.content, k=40, exclude_ids=seen)
    restricted, _ = dense_list(dana, gone.content, k=40, filters=selectors.Reach(SHOP).recall(
        selectors.RecallFilters()))

    assert len(everything) == 40 and set(everything) <= readable
    assert {Memory.objects.get(pk=pk).owner_id for pk in everything} == {dana.pk, alice.pk}
    assert len(unseen) == 40 and not set(seen) & set(unseen) and set(unseen) <= readable
    assert restricted and {Memory.objects.get(pk=pk).shared_with_id
                           for pk in restricted} == {team.pk}
