"""BM25 postings stay exact through every write, and rank rare words above common ones."""

import math

import pytest

from memories.models import KeywordStats, Memory, MemoryTerm, TermDocuments
from memories.selectors import hybrid_candidates
from memories.services import remembering
from memories.services.editing import update_memory


def remember(owner, content):
    return remembering.remember(owner=owner, content=content).memory


def documents(owner, term):
    row = TermDocuments.objects.filter(owner_id=owner.pk, term=term).first()
    return row.documents if row else 0


def test_postings_follow_inserts_edits_and_deletes(alice):
    first = remember(alice, "Redis caches sessions; Redis restarts nightly")
    remember(alice, "Postgres stores orders")
    assert documents(alice, "redi") == 1
    assert MemoryTerm.objects.get(memory=first, term="redi").tf == 2
    stats = KeywordStats.objects.get(owner_id=alice.pk)
    # redi x2, cach, session, restart, night + postgr, store, order (stemmed, no stopwords)
    assert (stats.documents, stats.terms) == (2, 9)

    update_memory(first, content="Memcached caches sessions")
    assert documents(alice, "redi") == 0 and documents(alice, "memcach") == 1
    assert KeywordStats.objects.get(owner_id=alice.pk).documents == 2

    Memory.objects.filter(pk=first.pk).delete()
    assert not MemoryTerm.objects.filter(memory_id=first.pk).exists()
    assert documents(alice, "session") == 0
    assert KeywordStats.objects.get(owner_id=alice.pk).documents == 1


def test_impact_is_the_bm25_term_weight(alice):
    memory = remember(alice, "alpha alpha beta")
    remember(alice, "gamma")
    # k1 = 1.2, b = 0.75; the average length when "alpha alpha beta" was written was 3.
    tf, length, average = 2, 3, 3
    expected = tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
    assert MemoryTerm.objects.get(memory=memory, term="alpha").impact == pytest.approx(expected)


def test_a_rare_word_outranks_a_common_one(alice):
    for i in range(6):
        remember(alice, f"deploy log entry {i} for the deploy pipeline")
    rare = remember(alice, "kubelet crashed during the deploy")
    found = hybrid_candidates(alice, query="kubelet deploy", vector=None, model_id="-",
                              dimensions=384)
    ranked = sorted((m for m in found if m.keyword_rank), key=lambda m: m.keyword_rank)
    assert ranked[0].pk == rare.pk
    n, df = 7, 1
    assert ranked[0].keyword_score > math.log(1 + (n - df + 0.5) / (df + 0.5)) * 0.5


def recounted(owner):
    """The owner's counters as they would be if every posting were counted afresh."""
    postings = MemoryTerm.objects.filter(owner_id=owner.pk)
    per_term = {}
    for term in postings.values_list("term", flat=True):
        per_term[term] = per_term.get(term, 0) + 1
    return (Memory.objects.filter(owner=owner).count(),
            sum(postings.values_list("tf", flat=True)), per_term)


def counted(owner):
    stats = KeywordStats.objects.get(owner_id=owner.pk)
    per_term = dict(TermDocuments.objects.filter(owner_id=owner.pk, documents__gt=0)
                    .values_list("term", "documents"))
    return stats.documents, stats.terms, per_term


def test_counters_stay_exact_through_statements_of_many_rows(alice, bob):
    remembering.remember_many(owner=alice, items=[
        remembering.NewMemory(content=f"Service {name} deploys from the {branch} branch")
        for name in ("billing", "search", "auth", "geo", "email")
        for branch in ("main", "release", "hotfix")])
    remember(bob, "Bob's search service deploys nightly")
    assert Memory.objects.filter(owner=alice).count() == 15  # one COPY, one statement
    assert counted(alice) == recounted(alice)
    assert counted(alice)[2]["deploy"] == 15

    Memory.objects.filter(owner=alice, content__contains="release").delete()
    assert counted(alice) == recounted(alice)
    assert counted(alice)[2]["deploy"] == 10 and "releas" not in counted(alice)[2]
    # A one-row delete after a many-row one: the same trigger, planned again or not.
    Memory.objects.filter(owner=alice, content__contains="geo").first().delete()
    assert counted(alice) == recounted(alice) and counted(alice)[0] == 9
    assert counted(bob) == recounted(bob) == (1, 5, {"bob": 1, "search": 1, "servic": 1,
                                                      "deploy": 1, "night": 1})


def test_a_statement_of_many_rows_weighs_terms_by_the_average_it_leaves(alice):
    short, long = remembering.remember_many(owner=alice, items=[
        remembering.NewMemory(content="alpha"),
        remembering.NewMemory(content="alpha beta gamma delta epsilon zeta eta")])
    average = (1 + 7) / 2
    expected = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1 / average))
    assert MemoryTerm.objects.get(memory=short.memory, term="alpha").impact == \
        pytest.approx(expected)


def test_a_run_of_joined_tokens_is_indexed_in_pieces_of_100_characters(alice):
    # PostgreSQL's text search parser takes time in the square of such a run (70,000
    # characters of "a-b.c_d": 17 s a memory); read in pieces, it takes a few ms
    from django.db import connection

    run = "a-b.c_d" * 40
    memory = remember(alice, f"Deploy keys {run} rotate monthly")
    pieces = f"Deploy keys {' '.join(run[i:i + 100] for i in range(0, len(run), 100))} " \
             "rotate monthly"
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector = to_tsvector('english', %s || ' '), "
                       "search_vector = to_tsvector('english', %s || ' ') "
                       "FROM memories_memory WHERE id = %s",
                       [pieces, memory.content, memory.pk])
        in_pieces, whole = cursor.fetchone()
    assert in_pieces and not whole
    assert documents(alice, "rotat") == 1  # the words around it as before


def _postings(memory) -> dict:
    return dict(MemoryTerm.objects.filter(memory=memory).values_list("term", "tf"))


def _vector_terms(memory) -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme, coalesce(array_length(positions, 1), 1) "
                       "FROM memories_memory, unnest(search_vector) WHERE id = %s", [memory.pk])
        return dict(cursor.fetchall())


@pytest.mark.django_db(transaction=True)
def test_memories_stored_before_runs_were_read_in_pieces_are_indexed_anew(alice):
    from django.core.management import call_command

    call_command("migrate", "memories", "0020", verbosity=0)
    try:
        joined = remember(alice, "Artifacts live at https://cdn.example.com/"
                                 + "releases/" * 15 + "shop.tar.gz for a week")
        plain = remember(alice, "Releases ship weekly from the main branch")
        stale = _postings(joined)
    finally:
        call_command("migrate", "memories", verbosity=0)
    assert stale != _vector_terms(joined)  # 0021 read the run anew; its postings did not
    assert _postings(joined) == _vector_terms(joined)
    assert _postings(plain) == _vector_terms(plain)
    assert counted(alice) == recounted(alice)
