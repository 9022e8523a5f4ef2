"""Included under /api/v1/ next to the memories API."""

from django.urls import path

from . import api

urlpatterns = [
    path("work/files/history", api.FileHistory.as_view(), name="api-work-file-history"),
    path("work/co-edits", api.CoEdits.as_view(), name="api-work-co-edits"),
    path("work/tools/success-rates", api.ToolSuccessRates.as_view(),
         name="api-work-tool-success-rates"),
    path("work/tasks/open", api.OpenTasks.as_view(), name="api-work-open-tasks"),
    path("work/error-fixes", api.ErrorFixes.as_view(), name="api-work-error-fixes"),
    path("work/patterns", api.Patterns.as_view(), name="api-work-patterns"),
    path("work/context-window/prune", api.PruneContextWindow.as_view(),
         name="api-work-prune"),
    path("work/plan/deviation", api.PlanDeviation.as_view(), name="api-work-plan-deviation"),
    path("work/plan/decompose", api.PlanDecompose.as_view(), name="api-work-plan-decompose"),
    path("work/plan/next-action", api.PlanNextAction.as_view(),
         name="api-work-plan-next-action"),
    path("context/predict", api.PredictContext.as_view(), name="api-context-predict"),
]
