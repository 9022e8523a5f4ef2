from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny

from engram_site.health import healthz

urlpatterns = [
    path("", include("dashboard.urls")),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("memories.api.urls")),
    path("api/v1/", include("reflection.urls")),
    path("api/v1/", include("codegraph.urls")),
    path("api/v1/", include("work.urls")),
    # The schema and its docs hold no data, so they are open to read.
    path("api/schema/", SpectacularAPIView.as_view(permission_classes=[AllowAny]),
         name="schema"),
    # Swagger UI under the site's Content-Security-Policy but for the page's own <style>
    # and the data: images of swagger-ui.css; its start-up script is fetched from
    # ?script (the split view), never inline, so scripts stay 'self' only.
    path("api/docs/", csp_update({"style-src": [SELF, UNSAFE_INLINE],
                                  "img-src": [SELF, "data:"]})(
        SpectacularSwaggerSplitView.as_view(url_name="schema", permission_classes=[AllowAny])),
         name="api-docs"),
]

# Under /api/ a URL that matches nothing, or an error before DRF's handler, answers in
# the API's one JSON error shape; elsewhere Django's pages as usual.
handler400 = "memories.api.errors.bad_request"
handler404 = "memories.api.errors.page_not_found"
handler500 = "memories.api.errors.server_error"
