"""Embedding providers behind one small interface, chosen by settings.

Every provider returns unit-length float32 rows, so cosine similarity is a dot product,
and names its model as "provider:model": that string is stored on each memory and keeps
vectors of different models from ever being compared.
"""

import functools
import threading
from collections.abc import Sequence
from pathlib import Path

import httpx
import numpy as np

from .errors import ProviderError

QUERY_CACHE_SIZE = 2048


def _unit_rows(vectors, dimensions: int, provider: str) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim != 2 or array.shape[1] != dimensions:
        raise ProviderError(
            f"{provider} returned vectors of shape {array.shape}, expected (n, {dimensions})",
            retryable=False,
            provider=provider,
        )
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return array / norms


class EmbeddingProvider:
    name: str
    model: str
    dimensions: int

    def __init__(self):
        # Agents repeat prompts (session start, retries); a repeated query costs nothing.
        self._cached_query = functools.lru_cache(QUERY_CACHE_SIZE)(self._embed_query)

    @property
    def model_id(self) -> str:
        return f"{self.name}:{self.model}"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return _unit_rows(self._embed(list(texts), query=False), self.dimensions, self.name)

    def embed_query(self, text: str) -> np.ndarray:
        return self._cached_query(text)

    def forget_queries(self) -> None:
        """Empty the query cache: a benchmark that asks several stores the same questions
        must pay each first embedding, not find the last store's answers cached."""
        self._cached_query.cache_clear()

    def _embed_query(self, text: str) -> np.ndarray:
        row = _unit_rows(self._embed([text], query=True), self.dimensions, self.name)[0]
        row.flags.writeable = False  # shared by every caller of the cache
        return row

    def _embed(self, texts: list[str], *, query: bool):
        raise NotImplementedError

    def describe(self) -> dict:
        return {"provider": self.name, "model": self.model_id, "dimensions": self.dimensions}


class LocalProvider(EmbeddingProvider):
    """all-MiniLM-L6-v2 run offline through ONNX Runtime; no PyTorch, no network.

    int8 (the default) is a static, SmoothQuant-calibrated quantisation: 2.4x the speed
    of fp32 and cosine 0.998 to the PyTorch model, and, its scales being fixed, a text
    gets the same vector in any batch. fp32 is bit-for-bit the PyTorch model.
    """

    name = "local"
    dimensions = 384

    def __init__(self, cache_dir: Path, *, precision: str = "int8", threads: int = 2):
        super().__init__()
        self.cache_dir = cache_dir
        self.quantized = precision == "int8"
        self.model = "all-MiniLM-L6-v2" + ("-int8-sq" if self.quantized else "")
        self.threads = max(1, threads)
        self._encoder = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._encoder is not None

    def encoder(self):
        # Loaded once per process, on first use, so commands that never embed stay quick.
        if self._encoder is None:
            with self._lock:
                if self._encoder is None:
                    from .minilm_onnx import ensure_model

                    self._encoder = ensure_model(self.cache_dir, quantize=self.quantized,
                                                 threads=self.threads)
        return self._encoder

    def _embed(self, texts, *, query):
        return self.encoder().encode(texts)

    def describe(self):
        return {**super().describe(), "loaded": self.loaded}


class OpenAIProvider(EmbeddingProvider):
    name = "openai"
    known_dimensions = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072,
                        "text-embedding-ada-002": 1536}

    def __init__(self, *, api_key: str, model: str, base_url: str = "", timeout: float = 10.0):
        super().__init__()
        import openai

        if not api_key:
            raise ProviderError(
                "OPENAI_API_KEY is not set", retryable=False, provider=self.name
            )
        self.model = model
        self.dimensions = self.known_dimensions.get(model, 1536)
        # Retries belong to Engram's queue, not to the SDK's blocking back-off.
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url or None, timeout=timeout, max_retries=0
        )
        self._openai = openai

    def _embed(self, texts, *, query):
        openai = self._openai
        try:
            response = self._client.embeddings.create(model=self.model, input=texts)
        except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError,
                openai.InternalServerError) as exc:
            raise ProviderError(f"OpenAI embeddings: {exc}", retryable=True,
                                provider=self.name) from exc
        # A 200 whose body is not JSON, or holds no embeddings, escapes the SDK as a ValueError.
        except (openai.APIError, ValueError) as exc:
            raise ProviderError(f"OpenAI embeddings: {exc}", retryable=False,
                                provider=self.name) from exc
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(texts):
            raise ProviderError(
                f"OpenAI returned {len(rows)} embeddings for {len(texts)} texts",
                retryable=False, provider=self.name,
            )
        return [row.embedding for row in rows]


class OllamaProvider(EmbeddingProvider):
    """nomic-embed-text (or another model) over Ollama's HTTP API.

    nomic-embed-text is trained with task prefixes: documents are embedded as
    "search_document: ..." and queries as "search_query: ...".
    """

    name = "ollama"
    known_dimensions = {"nomic-embed-text": 768, "mxbai-embed-large": 1024,
                        "all-minilm": 384}
    prefixed_models = {"nomic-embed-text"}

    def __init__(self, *, base_url: str, model: str, timeout: float = 10.0):
        super().__init__()
        self.model = model
        self.dimensions = self.known_dimensions.get(model.split(":")[0], 768)
        self._client = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)

    def _embed(self, texts, *, query):
        if self.model.split(":")[0] in self.prefixed_models:
            prefix = "search_query: " if query else "search_document: "
            texts = [prefix + text for text in texts]
        try:
            response = self._client.post("/api/embed", json={"model": self.model, "input": texts})
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            raise ProviderError(f"Ollama embeddings: {exc!r}", retryable=True,
                                provider=self.name) from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise ProviderError(f"Ollama embeddings: HTTP {response.status_code}",
                                retryable=True, provider=self.name)
        if response.status_code != 200:
            raise ProviderError(
                f"Ollama embeddings: HTTP {response.status_code} {response.text[:200]}",
                retryable=False, provider=self.name,
            )
        try:
            embeddings = response.json()["embeddings"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ProviderError("Ollama embeddings: the answer has no 'embeddings' list",
                                retryable=False, provider=self.name) from exc
        if not isinstance(embeddings, list) or len(embeddings) != len(texts):
            raise ProviderError("Ollama embeddings: wrong number of embeddings",
                                retryable=False, provider=self.name)
        return embeddings


@functools.cache
def _build_provider(kind: str, cache_dir: str, precision: str, threads: int,
                    openai_key: str, openai_model: str, openai_url: str, ollama_url: str,
                    ollama_model: str, timeout: float) -> EmbeddingProvider:
    if kind == "openai":
        return OpenAIProvider(api_key=openai_key, model=openai_model, base_url=openai_url,
                              timeout=timeout)
    if kind == "ollama":
        return OllamaProvider(base_url=ollama_url, model=ollama_model, timeout=timeout)
    return LocalProvider(Path(cache_dir), precision=precision, threads=threads)


def get_provider() -> EmbeddingProvider:
    """The provider the settings choose; one instance (and one loaded model) per process."""
    from django.conf import settings

    return _build_provider(
        settings.ENGRAM_EMBEDDING_PROVIDER,
        str(settings.ENGRAM_MODEL_CACHE),
        settings.ENGRAM_LOCAL_EMBEDDING_PRECISION,
        settings.ENGRAM_EMBEDDING_THREADS,
        settings.OPENAI_API_KEY,
        settings.ENGRAM_OPENAI_EMBEDDING_MODEL,
        settings.OPENAI_BASE_URL,
        settings.ENGRAM_OLLAMA_URL,
        settings.ENGRAM_OLLAMA_EMBEDDING_MODEL,
        settings.ENGRAM_PROVIDER_TIMEOUT,
    )
