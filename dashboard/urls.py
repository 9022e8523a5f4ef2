"""Every dashboard screen and action, by screen."""

from django.contrib.auth import views as auth_views
from django.urls import path
from django.views.generic import RedirectView

from . import passwords, signin
from .views import (
    api_keys,
    context,
    contradictions,
    jobs,
    memories,
    projects,
    reflection,
    settings,
    stats,
    transfer,
    worklog,
)

urlpatterns = [
    path("", memories.memory_list, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True),
         name="login"),
    path("accounts/logout/", signin.SignOutView.as_view(), name="logout"),
    path("accounts/password/", passwords.PasswordChangeView.as_view(), name="password_change"),
    # Memories
    path("memories/<uuid:memory_id>/", memories.memory_detail, name="memory"),
    path("memories/<uuid:memory_id>/edit", memories.memory_edit, name="memory_edit"),
    path("memories/<uuid:memory_id>/pin", memories.memory_pin, name="memory_pin"),
    path("memories/<uuid:memory_id>/archive", memories.memory_archive, name="memory_archive"),
    path("memories/<uuid:memory_id>/delete", memories.memory_delete, name="memory_delete"),
    path("memories/<uuid:memory_id>/erase", memories.memory_erase, name="memory_erase"),
    path("memories/<uuid:memory_id>/restore", memories.memory_restore, name="memory_restore"),
    path("memories/<uuid:memory_id>/feedback", memories.memory_feedback,
         name="memory_feedback"),
    path("memories/bulk", memories.memory_bulk, name="memory_bulk"),
    path("memories/bulk/undo", memories.memory_bulk_undo, name="memory_bulk_undo"),
    # Context
    path("context/", context.context_preview, name="context_preview"),
    # Contradictions
    path("contradictions/", contradictions.contradiction_list, name="contradictions"),
    path("contradictions/<uuid:contradiction_id>/", contradictions.contradiction_detail,
         name="contradiction_detail"),
    # Reflection
    path("reflection/", reflection.insights, name="reflection"),
    path("reflection/reflect", reflection.reflect_now, name="reflect_now"),
    path("reflection/<uuid:insight_id>/review", reflection.insight_review,
         name="insight_review"),
    # Projects, by id: their names hold slashes
    path("projects/", projects.project_list, name="projects"),
    path("projects/<uuid:project_id>/members", projects.project_member, name="project_member"),
    path("projects/<uuid:project_id>/members/remove", projects.project_member_remove,
         name="project_member_remove"),
    # The work log
    path("work/", worklog.work_log, name="work_log"),
    # The store as a whole
    path("jobs/", jobs.job_list, name="jobs"),
    path("jobs/observations/<uuid:observation_id>/retry", jobs.observation_retry,
         name="observation_retry"),
    path("keys/", api_keys.api_key_list, name="api_keys"),
    path("keys/<int:key_id>/revoke/", api_keys.api_key_revoke, name="revoke_api_key"),
    path("transfer/", transfer.transfer_page, name="transfer"),
    path("transfer/export.jsonl", transfer.export_memories, name="export_memories"),
    path("settings/", settings.settings_page, name="settings_page"),
    path("stats/", stats.stats, name="stats"),
    # The stats screen was called "insights" before "insights" came to mean reflection's:
    # the old address still leads there.
    path("insights/", RedirectView.as_view(pattern_name="stats", permanent=True,
                                           query_string=True), name="insights"),
]
