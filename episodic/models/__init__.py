"""Episodes (summaries of conversations) and typed memories (the typed-memory reference); short-term memory, memory
pools, workflow pools and persistent contexts with their entries (the multi-tier reference). One module per noun;
everything is importable from `episodic.models` as before."""

from episodic.models.contexts import ContextAccessLog, ContextEntry, ContextSnapshot, PersistentContext
from episodic.models.episodes import Episode
from episodic.models.maintenance import MaintenanceMark
from episodic.models.pools import MemoryPool, VersionedData, WorkflowPool, _default_acl
from episodic.models.short_term import ShortTermMemory
from episodic.models.typed_memories import TypedMemory

__all__ = [
    "ContextAccessLog",
    "ContextEntry",
    "ContextSnapshot",
    "Episode",
    "MaintenanceMark",
    "MemoryPool",
    "PersistentContext",
    "ShortTermMemory",
    "TypedMemory",
    "VersionedData",
    "WorkflowPool",
    "_default_acl",  # migration 0006 names it as the access_control default
]
