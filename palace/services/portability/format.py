"""The export file's shape, shared by the writer and the reader.

Line 1 is the header; every other line is one row `{"type": <row type>, ...}`. Rows come in
`ROW_TYPES` order, so a row only names rows written before it (a room names its wing's number, a
drawer its room's number and its closet's position, a relation its entities' slugs and the drawers
it cites). Agents are named, never given by id: ids differ between installations.

Embedding vectors are left out by default: they are the bulk of a row (EMBEDDING_DIM floats against a
few hundred characters of text), they mean nothing to another embedding model, and they are recomputed
from the verbatim text on import. `with_embeddings` adds them; the importer keeps them only when the
header's model and dimension are the ones this installation embeds with.
"""

from __future__ import annotations

from typing import Final, TypedDict

FORMAT: Final = "loci-export"
VERSION: Final = 1
CONTENT_TYPE: Final = "application/x-ndjson"

ROW_TYPES: Final = (
    "settings",
    "exclusion_rule",
    "agent",
    "conversation",
    "wing",
    "room",
    "closet",
    "drawer",
    "entity",
    "relation",
    "preference_topic",
    "episode",
    "typed_memory",
    "short_term",
    "memory_pool",
    "workflow_pool",
    "context",
    "context_entry",
)

# Drawer columns copied as they are, both ways. A drawer flag added later (pinned, never recall) is
# exported and imported once it is named here.
DRAWER_FIELDS: Final = ("turn_index", "role", "content", "aaak", "tags", "stated_preference", "pinned", "never_recall")
SETTINGS_FIELDS: Final = ("enabled", "top_k", "use_rerank", "rerank_model", "embedding_model", "auto_mine", "timezone")


class Header(TypedDict):
    type: str
    format: str
    version: int
    exported_at: str
    embedding_model: str
    embedding_dim: int
    with_embeddings: bool
