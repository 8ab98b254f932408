"""The `<memory_context>` block recall hands an agent: each hit's pointer, date, speaker and text, quoted
verbatim (a pasted document in part, with its pointer to the whole), and its question/answer partner."""

from __future__ import annotations

from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from palace import pending

if TYPE_CHECKING:
    from palace.recall import Hit

PARTNER_CHARS = 600  # a partner turn is quoted up to this many characters, then "…" and its pointer
QUOTE_CHARS = 4000  # a hit's own turn in the block, likewise (the hit's `content` is always whole)


def _quote(text: str) -> str:
    return text.strip()


def render_block(hits: list[Hit], tz: ZoneInfo) -> str:
    """`<memory_context>` with each drawer's pointer, date, speaker and verbatim text; "" when empty."""
    if not hits:
        return ""
    lines = ["<memory_context>"]
    for hit in hits:
        drawer = hit.drawer
        when = drawer.occurred_at.astimezone(tz).strftime("%Y-%m-%d %a")
        pointer = pending.POINTER if hit.pending else drawer.aaak
        text = _quote(drawer.content)
        if len(text) > QUOTE_CHARS:  # a pasted document: the block goes into a prompt, the hit keeps it whole
            text = text[:QUOTE_CHARS].rstrip() + (f"… (full text: {pointer})" if not hit.pending else "…")
        lines.append(f"{pointer} [{when}] {drawer.role}: {text}")
        partner = hit.partner
        if partner is not None:
            text = _quote(partner.content)
            if len(text) > PARTNER_CHARS:
                text = text[:PARTNER_CHARS].rstrip() + f"… (full text: {partner.aaak})"
            lines.append(f"  ↳ {partner.aaak} {partner.role}: {text}")
    lines.append("</memory_context>")
    return "\n".join(lines)
