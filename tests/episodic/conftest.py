"""An OpenAI-compatible stub server on loopback (the only test double: it stands for a paid service),
and helpers to point the providers at it or at a port where nothing answers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.test import override_settings

from episodic import providers
from memory_site.lib.embeddings import HashingEmbedder


class StubOpenAI(BaseHTTPRequestHandler):
    calls: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        StubOpenAI.calls.append({"path": self.path, "body": body})
        if self.path.endswith("/embeddings"):
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            vectors = HashingEmbedder(dim=384).embed_documents(texts).vectors
            answer = {
                "object": "list",
                "model": body["model"],
                "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
                "usage": {"prompt_tokens": 7 * len(texts), "total_tokens": 7 * len(texts)},
            }
        else:
            content = json.dumps({"summary": "The user corrected the name of their sister: Anna.",
                                  "keywords": ["sister", "anna"], "topic": "family"})  # fmt: skip
            answer = {
                "id": "chat-1", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
            }  # fmt: skip
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def stub_openai() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    StubOpenAI.calls = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def _reset() -> None:
    providers.get_embedder.cache_clear()
    providers.get_llm.cache_clear()


@pytest.fixture
def use_providers() -> Iterator[Any]:
    """`use_providers(**settings)` switches the embedder/LLM for the rest of the test."""
    stack: list[Any] = []

    def switch(**overrides: Any) -> None:
        context = override_settings(**overrides)
        context.enable()
        stack.append(context)
        _reset()

    yield switch
    for context in reversed(stack):
        context.disable()
    _reset()


@pytest.fixture
def failing_embedder(use_providers: Any) -> None:
    """A real OpenAI-compatible client aimed at a port where nothing listens: every call fails."""
    use_providers(EMBEDDING_PROVIDER="openai", EMBEDDING_MODEL="all-minilm", EMBEDDING_DIM=384,
                  OPENAI_BASE_URL="http://127.0.0.1:9/v1", EMBEDDING_TIMEOUT=2)  # fmt: skip
