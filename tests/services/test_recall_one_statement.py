"""Recall reads its candidates, what the learned ranker reads of them and the memories it
returns in one statement, and returns each memory as the ORM would load it."""

import psycopg
import pytest

from memories.models import Memory
from memories.services.recall import recall
from memories.services.remembering import remember

LOADED = [f.attname for f in Memory._meta.concrete_fields
          if f.name not in ("embedding", "search_vector")]


@pytest.fixture
def statements(monkeypatch):
    """Every statement sent to the database, on any cursor (the ORM's and raw ones)."""
    sent = []
    execute = psycopg.Cursor.execute

    def counting(cursor, query, *args, **kwargs):
        sent.append(query)
        return execute(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counting)
    return sent


def test_one_recall_is_one_statement_once_the_reader_is_known(alice, statements):
    for text in ("Deploys need two approvals", "Deploys run on Tuesdays",
                 "The staging database is rebuilt every night"):
        remember(owner=alice, content=text)
    recall(owner=alice, query="when do deploys run?")  # learns whom alice reads
    statements.clear()

    hits = recall(owner=alice, query="when do deploys run?")

    assert hits[0].memory.content == "Deploys run on Tuesdays"
    assert len(statements) == 1


def test_a_recalled_memory_is_the_stored_memory_field_by_field(alice, bob, team):
    mine = remember(owner=alice, content="The VPN certificate expires in May",
                    tags=["vpn", "certs"], metadata={"source": "ticket", "ids": [4, 2]},
                    session_id="s-1", agent_id="claude").memory
    shared = remember(owner=alice, content="The shop's VPN gateway is vpn.shop.example",
                      project=team.name, scope="project", shared_with=team).memory

    recalled = {}
    for reader, stored in ((alice, mine), (bob, shared)):
        hit = next(h for h in recall(owner=reader, query="VPN") if h.memory.pk == stored.pk)
        loaded = Memory.objects.defer("embedding", "search_vector").get(pk=stored.pk)
        assert {n: getattr(hit.memory, n) for n in LOADED} == {
            n: getattr(loaded, n) for n in LOADED}
        recalled[stored.pk] = hit.memory
    assert recalled[mine.pk].metadata == {"source": "ticket", "ids": [4, 2]}  # not its text
    assert recalled[mine.pk].tags == ["certs", "vpn"]
    assert recalled[shared.pk].shared_with_id == team.pk
    assert recalled[shared.pk].get_deferred_fields() == {"embedding", "search_vector"}
