from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The HTML audience, as healthchecks' hc/front: screens only, no models."""

    name = "dashboard"
