"""Included under /api/v1/ next to the memories API."""

from django.urls import path

from . import api

urlpatterns = [
    path("reflect", api.Reflect.as_view(), name="api-reflect"),
    path("reflection", api.ReflectionStatus.as_view(), name="api-reflection"),
    path("insights", api.InsightList.as_view(), name="api-insights"),
    path("insights/<uuid:insight_id>/review", api.InsightReview.as_view(),
         name="api-insight-review"),
]
