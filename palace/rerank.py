"""Rerank for recall: with `use_rerank` on and an LLM configured, the best RERANK_POOL fused results go to
the reader model, which picks up to RERANK_PICKS; they move to the top in its order (signal `rerank`, 1 for its
first pick down to 0.2 for its fifth). A timeout, an error or an unreadable answer keeps the fused order and the
response says so; an owner over budget keeps it too."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import User

from accounts.models import UsageRecord
from episodic import providers

if TYPE_CHECKING:
    from palace.recall import Hit, Recall

RERANK_POOL = 20
RERANK_PICKS = 5


def rerank_wanted(use_rerank: bool | None, memory_settings: Any, owner_id: int, result: Recall) -> bool:
    """Rerank when asked and an LLM is configured, unless the owner is over budget (then the fused
    order is kept and the response says why)."""
    wanted = memory_settings.use_rerank if use_rerank is None else use_rerank
    if not wanted or providers.get_llm() is None:
        return False
    if providers.llm_over_budget(owner_id=owner_id):
        result.rerank = {"used": False, "reason": "budget_exceeded"}
        return False
    return True


RERANK_PROMPT = (
    "You rank memories for an assistant. Given a question and numbered memories, answer with JSON "
    '{"best": [numbers]}: up to 5 memory numbers, most useful first, that help answer the question.'
)


def rerank(owner: User, query: str, hits: list[Hit], model: str, result: Recall) -> list[Hit]:
    pool = hits[:RERANK_POOL]
    listing = "\n".join(f"[{i}] {hit.drawer.content[:800]}" for i, hit in enumerate(pool, start=1))
    completion = providers.chat(
        owner_id=owner.pk,
        source=UsageRecord.Source.RERANK,
        json_mode=True,
        model=model or None,
        timeout=settings.RERANK_TIMEOUT,
        messages=[
            {"role": "system", "content": RERANK_PROMPT},
            {"role": "user", "content": f"Question: {query}\n\nMemories:\n{listing}"},
        ],
    )
    if completion is None:
        result.rerank = {"used": False, "error": "the rerank model failed or timed out; fused order kept"}
        return hits
    try:
        picks = json.loads(completion.text)["best"]
        order = [int(p) for p in picks if 1 <= int(p) <= len(pool)]
    except (ValueError, KeyError, TypeError):
        result.rerank = {"used": False, "error": "the rerank model's answer was not readable; fused order kept"}
        return hits
    order = list(dict.fromkeys(order))[:RERANK_PICKS]
    for hit in pool:
        hit.signals["rerank"] = 0.0
    promoted = [pool[i - 1] for i in order]
    for position, hit in enumerate(promoted):
        hit.signals["rerank"] = round(1.0 - position / RERANK_PICKS, 6)
    rest = [hit for hit in hits if hit not in promoted]
    result.rerank = {"used": True, "model": completion.model, "picked": len(promoted)}
    return [*promoted, *rest]
