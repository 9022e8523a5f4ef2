from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The HTML audience, as healthchecks' hc/front: screens only, no models."""

    name = "dashboard"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from .passwords import note_at_sign_in

        user_logged_in.connect(note_at_sign_in, dispatch_uid="engram-first-password")
