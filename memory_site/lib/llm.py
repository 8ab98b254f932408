"""Chat completions through any OpenAI-compatible endpoint. Optional everywhere: with no LLM_MODEL set,
`get_llm()` is None and callers use their offline path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class LLMError(RuntimeError):
    pass


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    model: str


class ChatLLM:
    provider = "openai"

    def __init__(self, *, model: str, base_url: str | None, api_key: str | None, timeout: float) -> None:
        from openai import OpenAI

        self.model = model
        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=1)

    def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int = 512,
        json_mode: bool = False,
        model: str | None = None,
        timeout: float | None = None,
    ) -> Completion:
        """`model` and `timeout` override the client's for this call (rerank uses its own model)."""
        model = model or self.model
        kwargs: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": 0}
        if timeout is not None:
            kwargs["timeout"] = timeout
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = self._client.chat.completions.create(**kwargs)
        except Exception as exc:
            raise LLMError(f"{type(exc).__name__}: {exc}") from exc
        usage = getattr(response, "usage", None)
        return Completion(
            text=response.choices[0].message.content or "",
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            model=model,
        )
