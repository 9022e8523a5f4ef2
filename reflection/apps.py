from django.apps import AppConfig


class ReflectionConfig(AppConfig):
    """Reflection: insights distilled from memories, with citations (comes with its issue)."""

    name = "reflection"
    default_auto_field = "django.db.models.BigAutoField"
