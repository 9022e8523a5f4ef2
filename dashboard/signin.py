"""Signing in under django-axes: whose address a failure counts against, and the sign-in
page that says why it refuses (settings: AXES_*). API keys never pass through here."""

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.shortcuts import redirect, render


def client_ip(request) -> str | None:
    """The client's address: REMOTE_ADDR, or behind ENGRAM_TRUSTED_PROXIES proxies the
    X-Forwarded-For entry that many from the right (the one our own proxy appended; the
    entries left of it are whatever the client sent)."""
    hops = settings.ENGRAM_TRUSTED_PROXIES
    if hops:
        forwarded = [part.strip() for part in
                     request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR")


def lockout_message() -> str:
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return (f"Too many failed sign-ins from your address: signing in is refused for "
            f"{minutes} minute{'s' if minutes != 1 else ''}. Try again later.")


def locked_out(request, *args):
    """AXES_LOCKOUT_CALLABLE: the sign-in page with the reason, for the dashboard's
    sign-in and the admin's alike (429, as axes' own answer)."""
    username = request.POST.get("username", "") if request.method == "POST" else ""
    form = AuthenticationForm(request, initial={"username": username})
    return render(request, "registration/login.html",
                  {"form": form, "lockout": lockout_message(),
                   "next": request.POST.get("next", "") or request.GET.get("next", "")},
                  status=429)


class SignOutView(auth_views.LogoutView):
    """Signing out is a POST, as Django's own view takes it (a link or an image must not
    sign anyone out). An old bookmark or a typed URL, a GET, got a blank 405: it now gets
    a page whose button signs out, or the sign-in page when nobody is signed in."""

    http_method_names = ("get", "post", "options")

    def get(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect(settings.LOGIN_URL)
        return render(request, "registration/logout.html")
