from django.apps import AppConfig


class ReflectionConfig(AppConfig):
    """Reflection: insights distilled from memories, with citations."""

    name = "reflection"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Importing the module connects its receivers to the core's signals.
        from . import receivers  # noqa: F401
