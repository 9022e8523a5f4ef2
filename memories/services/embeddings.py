"""Embeddings: vectors for memories stored while the provider was down, and moving every
memory to a new embedding model."""

import logging
from collections.abc import Callable, Sequence

from .. import queue, selectors
from ..engine.value_categories import glossed
from ..models import Memory
from ..providers.embeddings import get_provider
from ..providers.errors import ProviderError

log = logging.getLogger(__name__)


def memory_vectors(provider, contents: Sequence[str]):
    """The vectors memories holding `contents` are stored with: each text followed by the
    kinds of the products it names ("... Vite. (bundler)"), which questions ask by."""
    return provider.embed_documents([glossed(content) for content in contents])


EDITED_MEANWHILE_PASSES = 3  # embeddings again of texts edited while they were embedded


def embed_memories(memory_ids: Sequence[str], *, new_content: bool = True,
                   again: bool = False) -> int:
    """Fill in embeddings that were deferred; returns how many were embedded. New
    content is then checked for contradictions, and so is a memory embedded for the
    first time (a re-embedding changes no content, but one never embedded was never
    checked either). With `again`, memories already on the active model are embedded
    anew too.

    Raises ProviderError while the provider is still down, so the task retries.
    """
    provider = get_provider()
    memories = Memory.objects.filter(pk__in=memory_ids)
    if not again:
        memories = memories.exclude(embedding_model=provider.model_id)
    memories = list(memories)
    if not memories:
        return 0
    count = len(memories)
    unchecked = [m.pk for m in memories if new_content or m.embedding is None]
    for _ in range(EDITED_MEANWHILE_PASSES):
        embedded = {m.pk: m.content_hash for m in memories}
        vectors = memory_vectors(provider, [m.content for m in memories])
        for memory, vector in zip(memories, vectors, strict=True):
            memory.embedding, memory.embedding_model = vector, provider.model_id
        Memory.objects.bulk_update(memories, ["embedding", "embedding_model"])
        # An edit that committed while these were embedded stored its own vector, and the
        # update above put the old text's over it: those are embedded again, as they are.
        memories = [m for m in Memory.objects.filter(pk__in=embedded)
                    if m.content_hash != embedded[m.pk]]
        if not memories:
            break
    if unchecked:
        queue.check_contradictions(unchecked, interactive=len(unchecked) == 1)
    return count


def reembed(*, batch_size: int = 256, every: bool = False,
            on_progress: Callable[[int], None] = lambda n: None) -> int:
    """Move every memory (any status, nothing skipped) to the active embedding model;
    with `every`, embed those already on it anew too (vectors stored before memories
    were embedded glossed, see memory_vectors)."""
    provider = get_provider()
    selectors.ensure_vector_index(provider.model_id, provider.dimensions)
    pending = _to_reembed(Memory.objects.all(), every=every).order_by("pk")
    done, after = 0, None
    while ids := list((pending if after is None else pending.filter(pk__gt=after))
                      .values_list("pk", flat=True)[:batch_size]):
        embed_memories(ids, new_content=False, again=every)
        done += len(ids)
        after = ids[-1]
        on_progress(len(ids))
    return done


def embed_pending(limit: int = 1000) -> int:
    """Sweep for memories stored while the embedding provider was down."""
    ids = list(Memory.objects.awaiting_embedding().values_list("pk", flat=True)[:limit])
    return embed_memories(ids) if ids else 0


def count_to_reembed(owner=None, *, every: bool = False) -> int:
    """Memories not on the active embedding model (all of them, or one owner's); with
    `every`, all of them."""
    memories = Memory.objects.all() if owner is None else Memory.objects.for_owner(owner)
    return _to_reembed(memories, every=every).count()


def _to_reembed(memories, *, every: bool):
    return memories if every else memories.exclude(embedding_model=get_provider().model_id)


def embed_one(content: str):
    """The vector and model of one text, or (None, "") while the provider is down."""
    provider = get_provider()
    try:
        return memory_vectors(provider, [content])[0], provider.model_id
    except ProviderError as exc:
        log.warning("embedding deferred: %s", exc)
        return None, ""
