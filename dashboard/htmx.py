"""What every dashboard answer owes htmx, whichever view gave it."""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import resolve_url
from django.utils.cache import patch_vary_headers
from django_htmx.http import HttpResponseClientRedirect


class HtmxPagesMiddleware:
    """Placed after django-htmx's HtmxMiddleware.

    - A screen and its htmx partial share a URL: without `Vary: HX-Request` the browser
      keeps the partial in its cache and shows it bare on Back. Every answer outside the
      API says so, the full page's too, so that neither is taken for the other.
    - An htmx request whose session has ended is sent to the sign-in page as a whole page
      (not swapped into a panel), to come back to the page the person was on rather than
      to the action's URL, which may answer POST only.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path.startswith("/api/"):
            return response
        if request.htmx and self._to_sign_in(response):
            response = HttpResponseClientRedirect(
                redirect_to_login(request.htmx.current_url_abs_path or "/").url)
        patch_vary_headers(response, ("HX-Request",))
        return response

    @staticmethod
    def _to_sign_in(response) -> bool:
        return response.status_code == 302 and \
            urlsplit(response["Location"]).path == resolve_url(settings.LOGIN_URL)
