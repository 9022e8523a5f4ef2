"""What every dashboard answer owes htmx, whichever view gave it."""

from django.utils.cache import patch_vary_headers


class HtmxPagesMiddleware:
    """Placed after django-htmx's HtmxMiddleware.

    - A screen and its htmx partial share a URL: without `Vary: HX-Request` the browser
      keeps the partial in its cache and shows it bare on Back. Every answer outside the
      API says so, the full page's too, so that neither is taken for the other.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path.startswith("/api/"):
            return response
        patch_vary_headers(response, ("HX-Request",))
        return response
