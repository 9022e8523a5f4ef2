"""Triggers that keep the BM25 postings in step with every write to a memory's text.

In the database rather than in services, so bulk inserts, ORM updates and raw SQL all
stay indexed, and a half-written memory can never leave half-written postings.
Existing memories are indexed at the end.
"""

from django.db import migrations

INDEX_TERMS = r"""
CREATE OR REPLACE FUNCTION engram_index_terms() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    doc_length integer;
    avg_length double precision;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE memories_termdocuments d SET documents = d.documents - 1
          FROM (SELECT term FROM memories_memoryterm WHERE memory_id = OLD.id
                ORDER BY term) gone
         WHERE d.owner_id = OLD.owner_id AND d.term = gone.term;
        UPDATE memories_keywordstats s
           SET documents = s.documents - 1,
               terms = s.terms - (SELECT coalesce(sum(tf), 0) FROM memories_memoryterm
                                  WHERE memory_id = OLD.id)
         WHERE s.owner_id = OLD.owner_id;
        DELETE FROM memories_memoryterm WHERE memory_id = OLD.id;
        IF TG_OP = 'DELETE' THEN
            RETURN NULL;
        END IF;
    END IF;

    SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0) INTO doc_length
      FROM unnest(NEW.search_vector);
    INSERT INTO memories_keywordstats (owner_id, documents, terms)
         VALUES (NEW.owner_id, 1, doc_length)
    ON CONFLICT (owner_id) DO UPDATE
         SET documents = memories_keywordstats.documents + 1,
             terms = memories_keywordstats.terms + doc_length
    RETURNING terms::double precision / greatest(documents, 1) INTO avg_length;
    -- Sorted, so concurrent writers take the counters' row locks in one order.
    INSERT INTO memories_termdocuments (owner_id, term, documents)
         SELECT NEW.owner_id, lexeme, 1 FROM unnest(NEW.search_vector) ORDER BY lexeme
    ON CONFLICT (owner_id, term) DO UPDATE
         SET documents = memories_termdocuments.documents + 1;
    INSERT INTO memories_memoryterm (memory_id, owner_id, term, tf, impact)
         SELECT NEW.id, NEW.owner_id, lexeme, tf,
                tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * doc_length / greatest(avg_length, 1)))
           FROM (SELECT lexeme, coalesce(array_length(positions, 1), 1) AS tf
                   FROM unnest(NEW.search_vector)) terms;
    RETURN NULL;
END
$$;

CREATE TRIGGER memory_terms_on_insert AFTER INSERT ON memories_memory
    FOR EACH ROW EXECUTE FUNCTION engram_index_terms();
CREATE TRIGGER memory_terms_on_update AFTER UPDATE OF content, summary ON memories_memory
    FOR EACH ROW WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector)
    EXECUTE FUNCTION engram_index_terms();
CREATE TRIGGER memory_terms_on_delete AFTER DELETE ON memories_memory
    FOR EACH ROW EXECUTE FUNCTION engram_index_terms();
"""

BACKFILL = r"""
CREATE TEMP TABLE engram_lengths ON COMMIT DROP AS
    SELECT m.id, m.owner_id,
           (SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)
              FROM unnest(m.search_vector)) AS doc_length
      FROM memories_memory m;
INSERT INTO memories_keywordstats (owner_id, documents, terms)
     SELECT owner_id, count(*), sum(doc_length) FROM engram_lengths GROUP BY owner_id;
INSERT INTO memories_termdocuments (owner_id, term, documents)
     SELECT m.owner_id, t.lexeme, count(*) FROM memories_memory m, unnest(m.search_vector) t
      GROUP BY m.owner_id, t.lexeme;
INSERT INTO memories_memoryterm (memory_id, owner_id, term, tf, impact)
     SELECT m.id, m.owner_id, t.lexeme, t.tf,
            t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * l.doc_length
                                        / greatest(s.terms::float / s.documents, 1)))
       FROM memories_memory m
       JOIN engram_lengths l ON l.id = m.id
       JOIN memories_keywordstats s ON s.owner_id = m.owner_id,
            LATERAL (SELECT lexeme, coalesce(array_length(positions, 1), 1) AS tf
                       FROM unnest(m.search_vector)) t;
"""


DROP = r"""
DROP TRIGGER IF EXISTS memory_terms_on_insert ON memories_memory;
DROP TRIGGER IF EXISTS memory_terms_on_update ON memories_memory;
DROP TRIGGER IF EXISTS memory_terms_on_delete ON memories_memory;
DROP FUNCTION IF EXISTS engram_index_terms();
"""


class Migration(migrations.Migration):
    dependencies = [("memories", "0003_bm25_postings")]

    operations = [
        migrations.RunSQL(INDEX_TERMS, DROP),
        migrations.RunSQL(BACKFILL, "DELETE FROM memories_memoryterm; "
                                    "DELETE FROM memories_termdocuments; "
                                    "DELETE FROM memories_keywordstats;"),
    ]
