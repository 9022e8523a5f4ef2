"""The BM25 postings of memories holding a run of 100 characters without a space follow
their search vector again.

0021 changed what such a run is indexed as (pieces of 100 characters), but a generated
column added again fires no trigger: their postings kept the terms the whole run was
read as, which no query, read in pieces now, matches. Memories without such a run read
alike before and after, so only these are indexed anew: their old postings taken off the
counters, their vector's put on. The counters of documents stay (the same memories).
"""

from django.db import migrations

REINDEX = r"""
CREATE TEMP TABLE engram_reindexed ON COMMIT DROP AS
    SELECT id, owner_id, search_vector FROM memories_memory
     WHERE content ~ '\S{100}' OR summary ~ '\S{100}';

UPDATE memories_termdocuments d SET documents = d.documents - gone.documents
  FROM (SELECT t.owner_id, t.term, count(*) AS documents
          FROM memories_memoryterm t JOIN engram_reindexed r ON r.id = t.memory_id
         GROUP BY t.owner_id, t.term) gone
 WHERE d.owner_id = gone.owner_id AND d.term = gone.term;
UPDATE memories_keywordstats s SET terms = s.terms - gone.terms
  FROM (SELECT t.owner_id, sum(t.tf) AS terms
          FROM memories_memoryterm t JOIN engram_reindexed r ON r.id = t.memory_id
         GROUP BY t.owner_id) gone
 WHERE s.owner_id = gone.owner_id;
DELETE FROM memories_memoryterm t USING engram_reindexed r WHERE t.memory_id = r.id;

CREATE TEMP TABLE engram_reindexed_terms ON COMMIT DROP AS
    SELECT r.id, r.owner_id, t.lexeme, coalesce(array_length(t.positions, 1), 1) AS tf
      FROM engram_reindexed r, unnest(r.search_vector) t;
UPDATE memories_keywordstats s SET terms = s.terms + added.terms
  FROM (SELECT owner_id, sum(tf) AS terms FROM engram_reindexed_terms GROUP BY owner_id) added
 WHERE s.owner_id = added.owner_id;
INSERT INTO memories_termdocuments (owner_id, term, documents)
     SELECT owner_id, lexeme, count(*) FROM engram_reindexed_terms GROUP BY owner_id, lexeme
ON CONFLICT (owner_id, term) DO UPDATE
     SET documents = memories_termdocuments.documents + excluded.documents;
INSERT INTO memories_memoryterm (memory_id, owner_id, term, tf, impact)
     SELECT t.id, t.owner_id, t.lexeme, t.tf,
            t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * l.doc_length
               / greatest(s.terms::double precision / greatest(s.documents, 1), 1)))
       FROM engram_reindexed_terms t
       JOIN (SELECT id, sum(tf) AS doc_length FROM engram_reindexed_terms GROUP BY id) l
         ON l.id = t.id
       JOIN memories_keywordstats s ON s.owner_id = t.owner_id;
"""


class Migration(migrations.Migration):
    dependencies = [("memories", "0021_search_vector_in_pieces")]
    # Going back, 0021's reverse reads runs whole again and these postings go stale the
    # other way, as 0021's own did: nothing to undo here.
    operations = [migrations.RunSQL(REINDEX, migrations.RunSQL.noop)]
