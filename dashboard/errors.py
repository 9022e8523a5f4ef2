"""Error pages of the screens (the API answers in its own JSON shape)."""

from django.shortcuts import render

STALE_FORM = ("This page is out of date (you may have signed in or out in another tab since "
              "it was loaded), so what it sent was refused. Reload the page and try again.")


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: the refusal in the site's layout, in words a person can act on.
    Django's reason names the missing cookie or token, which helps nobody reading it; it
    goes to the log through django.security.csrf as before."""
    return render(request, "403.html", {"exception": STALE_FORM}, status=403)
