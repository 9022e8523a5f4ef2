from django.contrib import admin
from django.urls import path

from engram_site.health import healthz
from memories import views as memory_views

urlpatterns = [
    path("", memory_views.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
