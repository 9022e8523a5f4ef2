from django.apps import AppConfig


class WorkConfig(AppConfig):
    """The work log: what an agent did, to which files, in which task; the patterns it
    shows; predictive context and working memory built on it."""

    name = "work"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Importing the module connects its receiver to the core's observation signal.
        from . import receivers  # noqa: F401
