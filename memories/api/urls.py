from django.urls import path

from . import maintenance, observe, transfer, views

urlpatterns = [
    path("memories", views.MemoryListCreate.as_view(), name="api-memories"),
    path("memories/search", views.MemorySearch.as_view(), name="api-memories-search"),
    path("memories/context", views.MemoryContext.as_view(), name="api-memories-context"),
    path("memories/consolidate", maintenance.Consolidate.as_view(),
         name="api-memories-consolidate"),
    path("memories/<uuid:memory_id>", views.MemoryDetail.as_view(), name="api-memory"),
    path("memories/<uuid:memory_id>/history", views.MemoryHistory.as_view(),
         name="api-memory-history"),
    path("memories/<uuid:memory_id>/related", views.MemoryRelated.as_view(),
         name="api-memory-related"),
    path("memories/<uuid:memory_id>/erase", views.MemoryErase.as_view(),
         name="api-memory-erase"),
    path("memories/<uuid:memory_id>/feedback", views.MemoryFeedback.as_view(),
         name="api-memory-feedback"),
    path("observe", observe.Observe.as_view(), name="api-observe"),
    path("observations/<uuid:job_id>", observe.ObservationDetail.as_view(),
         name="api-observation"),
    path("contradictions", maintenance.ContradictionList.as_view(),
         name="api-contradictions"),
    path("contradictions/<uuid:contradiction_id>/resolve",
         maintenance.ContradictionResolve.as_view(), name="api-contradiction-resolve"),
    path("import", transfer.Import.as_view(), name="api-import"),
    path("export", transfer.Export.as_view(), name="api-export"),
    path("jobs/<uuid:job_id>", maintenance.JobDetail.as_view(), name="api-job"),
]
