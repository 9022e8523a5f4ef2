"""Foreign keys whose column another index of the table leads with lose their own
index (engram_site/db/foreign_key_indexes.py)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from engram_site.db.foreign_key_indexes import drop_own_index


class Migration(migrations.Migration):

    dependencies = [
        ('memories', '0019_bm25_statement_triggers'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        drop_own_index(
            migrations.AlterField(
                model_name='contradiction',
                name='memory_a',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='memories.memory'),
            ),
            table='memories_contradiction', column='memory_a_id',
            index='memories_contradiction_memory_a_id_2565b362'),
        drop_own_index(
            migrations.AlterField(
                model_name='contradiction',
                name='owner',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='contradictions', to=settings.AUTH_USER_MODEL),
            ),
            table='memories_contradiction', column='owner_id',
            index='memories_contradiction_owner_id_f51a6f18'),
        drop_own_index(
            migrations.AlterField(
                model_name='entity',
                name='owner',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='entities', to=settings.AUTH_USER_MODEL),
            ),
            table='memories_entity', column='owner_id',
            index='memories_entity_owner_id_563a8e49'),
        drop_own_index(
            migrations.AlterField(
                model_name='job',
                name='owner',
                field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='jobs', to=settings.AUTH_USER_MODEL),
            ),
            table='memories_job', column='owner_id',
            index='memories_job_owner_id_c9d77629'),
        drop_own_index(
            migrations.AlterField(
                model_name='judgedpair',
                name='owner',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
            ),
            table='memories_judgedpair', column='owner_id',
            index='memories_judgedpair_owner_id_300c2b78'),
        drop_own_index(
            migrations.AlterField(
                model_name='membership',
                name='project',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='memories.project'),
            ),
            table='memories_membership', column='project_id',
            index='memories_membership_project_id_3a24edc6'),
        drop_own_index(
            migrations.AlterField(
                model_name='memoryentity',
                name='memory',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to='memories.memory'),
            ),
            table='memories_memoryentity', column='memory_id',
            index='memories_memoryentity_memory_id_f761127c'),
        drop_own_index(
            migrations.AlterField(
                model_name='memorylink',
                name='from_memory',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='links_out', to='memories.memory'),
            ),
            table='memories_memorylink', column='from_memory_id',
            index='memories_memorylink_from_memory_id_4a628516'),
        drop_own_index(
            migrations.AlterField(
                model_name='memoryversion',
                name='memory',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='versions', to='memories.memory'),
            ),
            table='memories_memoryversion', column='memory_id',
            index='memories_memoryversion_memory_id_b9ab0a6a'),
        drop_own_index(
            migrations.AlterField(
                model_name='modelcall',
                name='owner',
                field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL),
            ),
            table='memories_modelcall', column='owner_id',
            index='memories_modelcall_owner_id_56e765e9'),
        drop_own_index(
            migrations.AlterField(
                model_name='observation',
                name='owner',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='observations', to=settings.AUTH_USER_MODEL),
            ),
            table='memories_observation', column='owner_id',
            index='memories_observation_owner_id_451e1e2b'),
        drop_own_index(
            migrations.AlterField(
                model_name='observationchunk',
                name='observation',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='memories.observation'),
            ),
            table='memories_observationchunk', column='observation_id',
            index='memories_observationchunk_observation_id_c3abde17'),
        drop_own_index(
            migrations.AlterField(
                model_name='pendingcheck',
                name='owner',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL),
            ),
            table='memories_pendingcheck', column='owner_id',
            index='memories_pendingcheck_owner_id_bdc6e012'),
        drop_own_index(
            migrations.AlterField(
                model_name='project',
                name='creator',
                field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='created_projects', to=settings.AUTH_USER_MODEL),
            ),
            table='memories_project', column='creator_id',
            index='memories_project_creator_id_102be388'),
        drop_own_index(
            migrations.AlterField(
                model_name='relationship',
                name='source',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='edges_out', to='memories.entity'),
            ),
            table='memories_relationship', column='source_id',
            index='memories_relationship_source_id_3d5e5dd9'),
        drop_own_index(
            migrations.AlterField(
                model_name='usageevent',
                name='memory',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='usage', to='memories.memory'),
            ),
            table='memories_usageevent', column='memory_id',
            index='memories_usageevent_memory_id_eb3ec472'),
        drop_own_index(
            migrations.AlterField(
                model_name='usageevent',
                name='owner',
                field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
            ),
            table='memories_usageevent', column='owner_id',
            index='memories_usageevent_owner_id_f7a2c3b3'),
    ]
