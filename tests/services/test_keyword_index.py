"""BM25 postings stay exact through every write, and rank rare words above common ones."""

import math

import pytest

from memories.services.editing import update_memory
from memories.services import remembering
from memories.models import KeywordStats, Memory, MemoryTerm, TermDocuments
from memories.selectors import hybrid_candidates


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
