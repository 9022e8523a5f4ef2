"""The search vector reads runs of joined tokens in pieces of 100 characters.

PostgreSQL's text search parser takes time in the square of a run without spaces made
of many short tokens ("a-b.c_d" 10,000 times: 17 s to store one memory); with a space
after every 100 characters of such a run it takes 0.06 s. No word is that long, so what
any other text is indexed as is unchanged.

Django changes a generated column by removing it and adding it again. The update
trigger's WHEN clause (0004) depends on the column, so it is dropped first and made
again after; the GIN index goes and comes back with the column. Postings of memories
holding such a run are indexed anew by 0022.
"""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

UPDATE_TRIGGER = """
CREATE TRIGGER memory_terms_on_update AFTER UPDATE OF content, summary ON memories_memory
    FOR EACH ROW WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector)
    EXECUTE FUNCTION engram_index_terms();
"""
DROP_UPDATE_TRIGGER = "DROP TRIGGER memory_terms_on_update ON memories_memory;"


def search_vector(*columns):
    return models.GeneratedField(
        db_persist=True, output_field=django.contrib.postgres.search.SearchVectorField(),
        expression=django.contrib.postgres.search.SearchVector(*columns, config="english"))


def in_pieces(column):
    return models.Func(models.F(column), models.Value("\\S{100}"), models.Value("\\& "),
                       models.Value("g"), function="regexp_replace",
                       output_field=models.TextField())


GIN = django.contrib.postgres.indexes.GinIndex(fields=["search_vector"],
                                               name="memory_search_vector_gin")


class Migration(migrations.Migration):
    dependencies = [("memories", "0020_foreign_keys_without_redundant_indexes")]
    operations = [
        migrations.RunSQL(DROP_UPDATE_TRIGGER, UPDATE_TRIGGER),
        migrations.RemoveIndex("memory", "memory_search_vector_gin"),
        migrations.RemoveField("memory", "search_vector"),
        migrations.AddField("memory", "search_vector",
                            search_vector(in_pieces("content"), in_pieces("summary"))),
        migrations.AddIndex("memory", GIN),
        migrations.RunSQL(UPDATE_TRIGGER, DROP_UPDATE_TRIGGER),
    ]
