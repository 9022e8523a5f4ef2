"""Foreign keys whose column another index of the table leads with lose their own
index (engram_site/db/foreign_key_indexes.py)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from engram_site.db.foreign_key_indexes import DropOwnIndex


class Migration(migrations.Migration):

    dependencies = [
        ('memories', '0019_bm25_statement_triggers'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        DropOwnIndex(
            model_name='contradiction',
            name='memory_a',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='memories.memory'),
            index='memories_contradiction_memory_a_id_2565b362',
        ),
        DropOwnIndex(
            model_name='contradiction',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='contradictions', to=settings.AUTH_USER_MODEL),
            index='memories_contradiction_owner_id_f51a6f18',
        ),
        DropOwnIndex(
            model_name='entity',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='entities', to=settings.AUTH_USER_MODEL),
            index='memories_entity_owner_id_563a8e49',
        ),
        DropOwnIndex(
            model_name='job',
            name='owner',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='jobs', to=settings.AUTH_USER_MODEL),
            index='memories_job_owner_id_c9d77629',
        ),
        DropOwnIndex(
            model_name='judgedpair',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
            index='memories_judgedpair_owner_id_300c2b78',
        ),
        DropOwnIndex(
            model_name='membership',
            name='project',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='memories.project'),
            index='memories_membership_project_id_3a24edc6',
        ),
        DropOwnIndex(
            model_name='memoryentity',
            name='memory',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to='memories.memory'),
            index='memories_memoryentity_memory_id_f761127c',
        ),
        DropOwnIndex(
            model_name='memorylink',
            name='from_memory',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='links_out', to='memories.memory'),
            index='memories_memorylink_from_memory_id_4a628516',
        ),
        DropOwnIndex(
            model_name='memoryversion',
            name='memory',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='versions', to='memories.memory'),
            index='memories_memoryversion_memory_id_b9ab0a6a',
        ),
        DropOwnIndex(
            model_name='modelcall',
            name='owner',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL),
            index='memories_modelcall_owner_id_56e765e9',
        ),
        DropOwnIndex(
            model_name='observation',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='observations', to=settings.AUTH_USER_MODEL),
            index='memories_observation_owner_id_451e1e2b',
        ),
        DropOwnIndex(
            model_name='observationchunk',
            name='observation',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='memories.observation'),
            index='memories_observationchunk_observation_id_c3abde17',
        ),
        DropOwnIndex(
            model_name='pendingcheck',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL),
            index='memories_pendingcheck_owner_id_bdc6e012',
        ),
        DropOwnIndex(
            model_name='project',
            name='creator',
            field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='created_projects', to=settings.AUTH_USER_MODEL),
            index='memories_project_creator_id_102be388',
        ),
        DropOwnIndex(
            model_name='relationship',
            name='source',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='edges_out', to='memories.entity'),
            index='memories_relationship_source_id_3d5e5dd9',
        ),
        DropOwnIndex(
            model_name='usageevent',
            name='memory',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='usage', to='memories.memory'),
            index='memories_usageevent_memory_id_eb3ec472',
        ),
        DropOwnIndex(
            model_name='usageevent',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
            index='memories_usageevent_owner_id_f7a2c3b3',
        ),
    ]
