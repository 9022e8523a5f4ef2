from django.apps import AppConfig


class CodegraphConfig(AppConfig):
    """The code knowledge graph: files, functions, classes and imports of a project's
    source, and the calls, imports, inherits and references between them."""

    name = "codegraph"
    default_auto_field = "django.db.models.BigAutoField"
