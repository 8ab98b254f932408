"""Every route of the episodic app: `api_urlpatterns` under /api/v1/, `compat_urlpatterns` at the
reference services' paths (DESIGN §5.10)."""

from django.urls import path

from episodic.api import (
    compat,
    context_entries,
    contexts,
    episodes,
    pools,
    short_term,
    tiers,
    typed_memories,
    workflow_pools,
)
from memory_site.api.routing import by_method

CONTEXT = "contexts/<uuid:context_id>"
ENTRY = f"{CONTEXT}/entries/<uuid:entry_id>"

api_urlpatterns = [
    # episodes
    path("episodes", by_method(get=episodes.EpisodeListApi, post=episodes.EpisodeStoreApi)),
    path("episodes/search", episodes.EpisodeSearchApi.as_view()),
    path("episodes/propose", episodes.EpisodeProposeApi.as_view()),
    path("episodes/conversation/<str:conversation_id>", episodes.EpisodeByConversationApi.as_view()),
    path("episodes/<uuid:episode_id>", by_method(get=episodes.EpisodeGetApi, delete=episodes.EpisodeDeleteApi)),
    # typed memories
    path("memories/typed/query", typed_memories.TypedMemoryQueryApi.as_view()),
    path("memories/typed/episodic/session/<str:session_id>", typed_memories.TypedSessionTimelineApi.as_view()),
    path("memories/typed/semantic/entity/<str:entity_id>", typed_memories.TypedEntityFactsApi.as_view()),
    path("memories/typed/<str:memory_type>", typed_memories.TypedMemoryCreateApi.as_view()),
    path("memories/query", typed_memories.TypedMemoryQueryApi.as_view()),
    path(
        "memories/<uuid:memory_id>",
        by_method(get=typed_memories.TypedMemoryGetApi, delete=typed_memories.TypedMemoryDeleteApi),
    ),
    # short-term memory
    path("short-term", short_term.ShortTermListApi.as_view()),
    path("short-term/<str:session_id>", short_term.ShortTermSessionDeleteApi.as_view()),
    path(
        "short-term/<str:session_id>/<str:key>",
        by_method(
            get=short_term.ShortTermReadApi, put=short_term.ShortTermWriteApi, delete=short_term.ShortTermDeleteApi
        ),
    ),
    path("short-term/<str:session_id>/<str:key>/refresh", short_term.ShortTermRefreshApi.as_view()),
    # memory pools and workflow pools
    path("pools", by_method(get=pools.PoolListApi, post=pools.PoolCreateApi)),
    path(
        "pools/<str:pool_id>",
        by_method(get=pools.PoolReadApi, put=pools.PoolWriteApi, patch=pools.PoolMergeApi, delete=pools.PoolDeleteApi),
    ),
    path("pools/<str:pool_id>/grant", pools.PoolGrantApi.as_view()),
    path("pools/<str:pool_id>/revoke", pools.PoolRevokeApi.as_view()),
    path("pools/<str:pool_id>/stats", pools.PoolStatsApi.as_view()),
    path("workflow-pools/<str:run_id>", workflow_pools.WorkflowRunApi.as_view()),
    path(
        "workflow-pools/<str:run_id>/<str:pool_type>",
        by_method(
            get=workflow_pools.WorkflowPoolReadApi,
            put=workflow_pools.WorkflowPoolWriteApi,
            patch=workflow_pools.WorkflowPoolMergeApi,
            delete=workflow_pools.WorkflowPoolDeleteApi,
        ),
    ),
    # persistent contexts
    path("contexts", by_method(get=contexts.ContextListApi, post=contexts.ContextCreateApi)),
    path(
        CONTEXT,
        by_method(get=contexts.ContextReadApi, patch=contexts.ContextUpdateApi, delete=contexts.ContextDeleteApi),
    ),
    path(f"{CONTEXT}/archive", contexts.ContextArchiveApi.as_view()),
    path(f"{CONTEXT}/unarchive", contexts.ContextUnarchiveApi.as_view()),
    path(f"{CONTEXT}/grant", contexts.ContextGrantApi.as_view()),
    path(f"{CONTEXT}/revoke", contexts.ContextRevokeApi.as_view()),
    path(f"{CONTEXT}/access-log", contexts.ContextAccessLogApi.as_view()),
    path(
        f"{CONTEXT}/snapshots",
        by_method(get=contexts.ContextSnapshotListApi, post=contexts.ContextSnapshotCreateApi),
    ),
    path(f"{CONTEXT}/snapshots/<uuid:snapshot_id>/restore", contexts.ContextSnapshotRestoreApi.as_view()),
    # context entries
    path(f"{CONTEXT}/search", context_entries.EntrySearchApi.as_view()),
    path(f"{CONTEXT}/entries", by_method(get=context_entries.EntryListApi, post=context_entries.EntryCreateApi)),
    path(
        ENTRY,
        by_method(
            get=context_entries.EntryReadApi,
            patch=context_entries.EntryUpdateApi,
            delete=context_entries.EntryDeleteApi,
        ),
    ),
    path(f"{ENTRY}/history", context_entries.EntryHistoryApi.as_view()),
    path(f"{ENTRY}/boost", context_entries.EntryBoostApi.as_view()),
    path(f"{ENTRY}/reduce", context_entries.EntryReduceApi.as_view()),
    # the tiers router
    path("tiers/read", tiers.TierReadApi.as_view()),
    path("tiers/write", tiers.TierWriteApi.as_view()),
    path("tiers/search", tiers.TierSearchApi.as_view()),
    path("tiers/consolidate", tiers.TierConsolidateApi.as_view()),
    path("tiers/stats", tiers.TierStatsApi.as_view()),
]

compat_urlpatterns = [
    path("episodic/store", compat.CompatEpisodicStoreApi.as_view()),
    path("episodic/search", compat.CompatEpisodicSearchApi.as_view()),
    path("episodic/<str:conversation_id>", compat.CompatEpisodicConversationApi.as_view()),
    path("memories/typed/query", compat.CompatTypedMemoryQueryApi.as_view()),
    path("memories/typed/episodic/session/<str:session_id>", compat.CompatTypedSessionTimelineApi.as_view()),
    path("memories/typed/semantic/entity/<str:entity_id>", compat.CompatTypedEntityFactsApi.as_view()),
    path("memories/typed/<str:memory_type>", typed_memories.TypedMemoryCreateApi.as_view()),
    path("memories/query", compat.CompatTypedMemoryQueryApi.as_view()),
    path("api/memory/episodes", compat.CompatAgtosEpisodesApi.as_view()),
    path("api/memory/search", compat.CompatAgtosSearchApi.as_view()),
]
