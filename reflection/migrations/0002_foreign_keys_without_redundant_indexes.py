"""Foreign keys whose column another index of the table leads with lose their own
index (engram_site/db/foreign_key_indexes.py)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from engram_site.db.foreign_key_indexes import DropOwnIndex


class Migration(migrations.Migration):

    dependencies = [
        ('reflection', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        DropOwnIndex(
            model_name='insight',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='insights', to=settings.AUTH_USER_MODEL),
            index='reflection_insight_owner_id_c3d864d0',
        ),
    ]
