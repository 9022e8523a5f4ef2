"""Foreign keys whose column another index of the table leads with lose their own
index (engram_site/db/foreign_key_indexes.py)."""

import django.db.models.deletion
from django.db import migrations, models

from engram_site.db.foreign_key_indexes import DropOwnIndex


class Migration(migrations.Migration):

    dependencies = [
        ('work', '0001_work_log'),
    ]

    operations = [
        DropOwnIndex(
            model_name='episodeartifact',
            name='task',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='artifacts', to='work.task'),
            index='work_episodeartifact_task_id_a71ba5a7',
        ),
        DropOwnIndex(
            model_name='toolexecution',
            name='task',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='tool_executions', to='work.task'),
            index='work_toolexecution_task_id_27e78b72',
        ),
    ]
