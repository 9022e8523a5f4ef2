"""BM25 postings for inserts and deletes kept by one trigger call per statement.

The row triggers of 0004 updated the owner's counters once per memory: a COPY of 512
memories updated the owner's KeywordStats row 512 times in one transaction, and each
update had to walk past every version the transaction had already left of that row, so
a statement's cost grew with the square of its size (deleting 64,000 memories of one
owner in one statement had not finished after 11 minutes). The statement triggers read
the rows from transition tables and update each counter once per statement.

An edit keeps the row trigger (a trigger with a column list cannot have transition
tables), and so does the posting weight of a single insert: each memory's term weights
use the owner's average length once the statement's memories are counted, which is what
the row trigger computed for a statement of one memory.
"""

from django.db import migrations

# Memory ids go in as an array rather than a join on the transition table: plpgsql keeps
# one plan per statement, and a plan made for a large first statement (a hash join over
# every posting) would be reused for every small one after it; `= ANY(array)` is an
# index lookup whatever the size.
STATEMENT_TRIGGERS = r"""
CREATE OR REPLACE FUNCTION engram_index_added_terms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Sorted, so concurrent writers take the counters' row locks in one order.
    INSERT INTO memories_keywordstats (owner_id, documents, terms)
         SELECT a.owner_id, count(*), sum(l.doc_length)
           FROM added a, LATERAL (SELECT coalesce(sum(coalesce(array_length(positions, 1),
                                                              1)), 0) AS doc_length
                                    FROM unnest(a.search_vector)) l
          GROUP BY a.owner_id ORDER BY a.owner_id
    ON CONFLICT (owner_id) DO UPDATE
         SET documents = memories_keywordstats.documents + excluded.documents,
             terms = memories_keywordstats.terms + excluded.terms;
    INSERT INTO memories_termdocuments (owner_id, term, documents)
         SELECT a.owner_id, t.lexeme, count(*) FROM added a, unnest(a.search_vector) t
          GROUP BY a.owner_id, t.lexeme ORDER BY a.owner_id, t.lexeme
    ON CONFLICT (owner_id, term) DO UPDATE
         SET documents = memories_termdocuments.documents + excluded.documents;
    INSERT INTO memories_memoryterm (memory_id, owner_id, term, tf, impact)
         SELECT a.id, a.owner_id, t.lexeme, t.tf,
                t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * l.doc_length
                   / greatest(s.terms::double precision / greatest(s.documents, 1), 1)))
           FROM added a
           JOIN memories_keywordstats s ON s.owner_id = a.owner_id,
                LATERAL (SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)
                                AS doc_length FROM unnest(a.search_vector)) l,
                LATERAL (SELECT lexeme, coalesce(array_length(positions, 1), 1) AS tf
                           FROM unnest(a.search_vector)) t;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION engram_unindex_removed_terms() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    ids uuid[] := ARRAY(SELECT id FROM removed);
BEGIN
    UPDATE memories_termdocuments d SET documents = d.documents - gone.documents
      FROM (SELECT owner_id, term, count(*) AS documents FROM memories_memoryterm
             WHERE memory_id = ANY(ids) GROUP BY owner_id, term
             ORDER BY owner_id, term) gone
     WHERE d.owner_id = gone.owner_id AND d.term = gone.term;
    UPDATE memories_keywordstats s
       SET documents = s.documents - gone.documents, terms = s.terms - gone.terms
      FROM (SELECT r.owner_id, count(*) AS documents,
                   coalesce(sum((SELECT sum(tf) FROM memories_memoryterm t
                                  WHERE t.memory_id = r.id)), 0) AS terms
              FROM removed r GROUP BY r.owner_id ORDER BY r.owner_id) gone
     WHERE s.owner_id = gone.owner_id;
    DELETE FROM memories_memoryterm WHERE memory_id = ANY(ids);
    RETURN NULL;
END
$$;

DROP TRIGGER memory_terms_on_insert ON memories_memory;
DROP TRIGGER memory_terms_on_delete ON memories_memory;
CREATE TRIGGER memory_terms_on_insert AFTER INSERT ON memories_memory
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION engram_index_added_terms();
CREATE TRIGGER memory_terms_on_delete AFTER DELETE ON memories_memory
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION engram_unindex_removed_terms();
"""

ROW_TRIGGERS = r"""
DROP TRIGGER memory_terms_on_insert ON memories_memory;
DROP TRIGGER memory_terms_on_delete ON memories_memory;
DROP FUNCTION engram_index_added_terms();
DROP FUNCTION engram_unindex_removed_terms();
CREATE TRIGGER memory_terms_on_insert AFTER INSERT ON memories_memory
    FOR EACH ROW EXECUTE FUNCTION engram_index_terms();
CREATE TRIGGER memory_terms_on_delete AFTER DELETE ON memories_memory
    FOR EACH ROW EXECUTE FUNCTION engram_index_terms();
"""


class Migration(migrations.Migration):
    dependencies = [("memories", "0018_observation_shared_with")]
    operations = [migrations.RunSQL(STATEMENT_TRIGGERS, ROW_TRIGGERS)]
