"""Included under /api/v1/ next to the memories API."""

from django.urls import path

from . import api

urlpatterns = [
    path("code/files", api.CodeFileContents.as_view(), name="api-code-file"),
    path("code/definitions", api.CodeDefinitions.as_view(), name="api-code-definitions"),
    path("code/callers", api.CodeCallers.as_view(), name="api-code-callers"),
    path("code/dependencies", api.CodeDependencies.as_view(), name="api-code-dependencies"),
    path("code/dependents", api.CodeDependents.as_view(), name="api-code-dependents"),
    path("code/reindex", api.CodeReindex.as_view(), name="api-code-reindex"),
]
