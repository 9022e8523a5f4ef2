"""Dashboard screens about the store as a whole (contradictions, jobs, keys, import and
export, settings, insights)."""

from django.urls import path

from . import store_views

urlpatterns = [
    path("contradictions/", store_views.contradictions, name="contradictions"),
    path("contradictions/<uuid:contradiction_id>/", store_views.contradiction_detail,
         name="contradiction_detail"),
    path("jobs/", store_views.jobs, name="jobs"),
    path("keys/", store_views.api_keys, name="api_keys"),
    path("keys/<int:key_id>/revoke/", store_views.revoke_api_key, name="revoke_api_key"),
    path("transfer/", store_views.transfer, name="transfer"),
    path("transfer/export.jsonl", store_views.export_memories, name="export_memories"),
    path("settings/", store_views.settings_page, name="settings_page"),
    path("insights/", store_views.insights, name="insights"),
]
