"""Foreign keys whose column another index of the table leads with lose their own
index (engram_site/db/foreign_key_indexes.py)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from engram_site.db.foreign_key_indexes import DropOwnIndex


class Migration(migrations.Migration):

    dependencies = [
        ('codegraph', '0001_code_graph'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        DropOwnIndex(
            model_name='codeedge',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
            index='codegraph_codeedge_owner_id_e6a2ac29',
        ),
        DropOwnIndex(
            model_name='codefile',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
            index='codegraph_codefile_owner_id_df0f5154',
        ),
        DropOwnIndex(
            model_name='codesymbol',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
            index='codegraph_codesymbol_owner_id_bb6baae0',
        ),
    ]
