from django.apps import AppConfig
from django.core import checks
from django.db.models.signals import post_migrate


class MemoriesConfig(AppConfig):
    name = "memories"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        post_migrate.connect(prepare_database, sender=self)
        checks.register(database_is_usable, checks.Tags.database)


def database_is_usable(databases=None, **kwargs):
    """Connect once, so `check --database` and `migrate` fail fast on an unusable server.

    The backend raises DatabaseSetupError with the one sentence a person needs.
    """
    from django.db import connections

    for alias in databases or ():
        connections[alias].ensure_connection()
    return []


def prepare_database(using="default", **kwargs):
    """After `migrate`: the active embedding model's vector index and Huey's tables."""
    from huey.contrib.djhuey import HUEY
    from huey.storage import PostgresStorage

    from .providers.embeddings import get_provider
    from .selectors import ensure_vector_index

    provider = get_provider()
    ensure_vector_index(provider.model_id, provider.dimensions)
    if isinstance(HUEY.storage, PostgresStorage):
        HUEY.storage.initialize_schema()
