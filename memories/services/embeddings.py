"""Embeddings: vectors for memories stored while the provider was down, and moving every
memory to a new embedding model."""

import logging
from collections.abc import Callable, Sequence

from .. import queue, selectors
from ..models import Memory
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError

log = logging.getLogger(__name__)


def embed_memories(memory_ids: Sequence[str], *, new_content: bool = True) -> int:
    """Fill in embeddings that were deferred; returns how many were embedded. New
    content is then checked for contradictions (a re-embedding changes no content).

    Raises ProviderError while the provider is still down, so the task retries.
    """
    provider = get_provider()
    memories = list(
        Memory.objects.filter(pk__in=memory_ids).exclude(embedding_model=provider.model_id)
    )
    if not memories:
        return 0
    vectors = provider.embed_documents([m.content for m in memories])
    for memory, vector in zip(memories, vectors, strict=True):
        memory.embedding, memory.embedding_model = vector, provider.model_id
    Memory.objects.bulk_update(memories, ["embedding", "embedding_model"])
    if new_content:
        queue.check_contradictions([m.pk for m in memories], interactive=len(memories) == 1)
    return len(memories)


def reembed(*, batch_size: int = 256,
            on_progress: Callable[[int], None] = lambda n: None) -> int:
    """Move every memory (any status, nothing skipped) to the active embedding model."""
    provider = get_provider()
    selectors.ensure_vector_index(provider.model_id, provider.dimensions)
    pending = Memory.objects.exclude(embedding_model=provider.model_id).order_by("pk")
    done = 0
    while ids := list(pending.values_list("pk", flat=True)[:batch_size]):
        embed_memories(ids, new_content=False)
        done += len(ids)
        on_progress(len(ids))
    return done


def embed_pending(limit: int = 1000) -> int:
    """Sweep for memories stored while the embedding provider was down."""
    ids = list(Memory.objects.awaiting_embedding().values_list("pk", flat=True)[:limit])
    return embed_memories(ids) if ids else 0


def count_to_reembed(owner=None) -> int:
    """Memories not on the active embedding model (all of them, or one owner's)."""
    memories = Memory.objects.all() if owner is None else Memory.objects.for_owner(owner)
    return memories.exclude(embedding_model=get_provider().model_id).count()


def embed_one(content: str):
    """The vector and model of one text, or (None, "") while the provider is down."""
    provider = get_provider()
    try:
        return provider.embed_documents([content])[0], provider.model_id
    except ProviderError as exc:
        log.warning("embedding deferred: %s", exc)
        return None, ""
