from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny

from engram_site.health import healthz
from memories import views as memory_views

dashboard = [
    path("", memory_views.memory_list, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True),
         name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("memories/<uuid:memory_id>/", memory_views.memory_detail, name="memory"),
    path("memories/<uuid:memory_id>/edit", memory_views.memory_edit, name="memory_edit"),
    path("memories/<uuid:memory_id>/pin", memory_views.memory_pin, name="memory_pin"),
    path("memories/<uuid:memory_id>/archive", memory_views.memory_archive,
         name="memory_archive"),
    path("memories/<uuid:memory_id>/delete", memory_views.memory_delete, name="memory_delete"),
    path("memories/<uuid:memory_id>/restore", memory_views.memory_restore,
         name="memory_restore"),
    path("memories/<uuid:memory_id>/feedback", memory_views.memory_feedback,
         name="memory_feedback"),
    path("memories/bulk", memory_views.memory_bulk, name="memory_bulk"),
    path("memories/bulk/undo", memory_views.memory_bulk_undo, name="memory_bulk_undo"),
    path("context/", memory_views.context_preview, name="context_preview"),
]

urlpatterns = [
    *dashboard,
    path("healthz", healthz, name="healthz"),
    path("", include("memories.store_urls")),
    path("", include("reflection.dashboard_urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include("memories.api.urls")),
    path("api/v1/", include("reflection.urls")),
    # The schema and its docs hold no data, so they are open to read.
    path("api/schema/", SpectacularAPIView.as_view(permission_classes=[AllowAny]),
         name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema",
                                                     permission_classes=[AllowAny]),
         name="api-docs"),
]
