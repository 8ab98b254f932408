from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from episodic.models import (
    ContextAccessLog,
    ContextEntry,
    ContextSnapshot,
    Episode,
    MemoryPool,
    PersistentContext,
    ShortTermMemory,
    TypedMemory,
    WorkflowPool,
)
from episodic.services.snapshots import snapshot_create, snapshot_restore
from memory_site.admin_lists import LargeTableAdmin


@admin.register(Episode)
class EpisodeAdmin(LargeTableAdmin):
    list_display = ["conversation_id", "owner", "agent", "episode_type", "importance", "occurred_at", "expires_at"]
    list_filter = ["episode_type", "occurred_at"]
    search_fields = ["conversation_id", "summary", "user_id", "owner__username"]
    raw_id_fields = ["owner", "agent"]
    readonly_fields = ["id", "embedding", "embedding_model", "search_text", "created_at"]
    date_hierarchy = "occurred_at"


@admin.register(TypedMemory)
class TypedMemoryAdmin(LargeTableAdmin):
    list_display = [
        "memory_type",
        "owner",
        "agent",
        "scope",
        "session_id",
        "entity_id",
        "access_count",
        "created_at",
        "deprecated_at",
    ]
    list_filter = ["memory_type", "scope", ("deprecated_at", admin.EmptyFieldListFilter)]
    search_fields = ["content", "session_id", "entity_id", "owner__username"]
    raw_id_fields = ["owner", "agent", "merged_into"]
    readonly_fields = [
        "id",
        "embedding",
        "embedding_model",
        "access_count",
        "last_accessed_at",
        "created_at",
        "updated_at",
    ]


# --- short-term memory, pools, contexts ---------------------------------------------------------------


@admin.register(ShortTermMemory)
class ShortTermMemoryAdmin(admin.ModelAdmin):
    list_display = ["session_id", "key", "owner", "agent", "memory_type", "access_count", "expires_at", "promoted_to"]
    list_filter = ["memory_type"]
    search_fields = ["session_id", "key", "owner__username"]
    raw_id_fields = ["owner", "agent", "promoted_to"]
    readonly_fields = ["id", "access_count", "last_accessed_at", "created_at", "updated_at"]


@admin.register(MemoryPool)
class MemoryPoolAdmin(admin.ModelAdmin):
    list_display = ["pool_id", "owner", "pool_type", "scope", "version", "read_count", "write_count", "expires_at"]
    list_filter = ["pool_type", "scope"]
    search_fields = ["pool_id", "task_id", "owner__username"]
    raw_id_fields = ["owner", "created_by"]
    # The version is the optimistic-concurrency counter: edit data through the API, not here.
    readonly_fields = ["id", "version", "read_count", "write_count", "last_accessed_at", "created_at", "updated_at"]


@admin.register(WorkflowPool)
class WorkflowPoolAdmin(admin.ModelAdmin):
    list_display = ["workflow_run_id", "pool_type", "owner", "version", "read_count", "write_count", "expires_at"]
    list_filter = ["pool_type"]
    search_fields = ["workflow_run_id", "owner__username"]
    raw_id_fields = ["owner"]
    readonly_fields = ["id", "version", "read_count", "write_count", "last_accessed_at", "created_at", "updated_at"]


class ContextEntryInline(admin.TabularInline):
    model = ContextEntry
    fk_name = "context"
    fields = ["entry_type", "content", "importance", "version", "is_current", "archived_at", "deprecated_at"]
    readonly_fields = ["entry_type", "content", "importance", "version", "is_current", "archived_at", "deprecated_at"]
    extra = 0
    show_change_link = True
    can_delete = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[ContextEntry]:
        return super().get_queryset(request).filter(is_current=True).order_by("-created_at")


@admin.register(PersistentContext)
class PersistentContextAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "agent", "context_type", "scope", "archived_at", "created_at"]
    list_filter = ["context_type", "scope", ("archived_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "description", "owner__username"]
    raw_id_fields = ["owner", "agent"]
    readonly_fields = ["id", "created_at", "updated_at"]
    inlines = [ContextEntryInline]
    actions = ["snapshot"]

    @admin.action(description="Snapshot the selected contexts")
    def snapshot(self, request: HttpRequest, queryset: QuerySet[PersistentContext]) -> None:
        for context in queryset:
            snapshot_create(agent=None, context=context, label=f"admin: {request.user}")
        self.message_user(request, f"Snapshotted {queryset.count()} context(s).")


@admin.register(ContextEntry)
class ContextEntryAdmin(admin.ModelAdmin):
    list_display = [
        "short_content",
        "context",
        "owner",
        "entry_type",
        "importance",
        "version",
        "is_current",
        "archived_at",
        "deprecated_at",
        "access_count",
    ]
    list_filter = [
        "entry_type",
        "source_type",
        "memory_type",
        "is_current",
        ("archived_at", admin.EmptyFieldListFilter),
        ("deprecated_at", admin.EmptyFieldListFilter),
    ]
    search_fields = ["content", "key", "owner__username"]
    raw_id_fields = ["owner", "context", "agent", "previous_version", "merged_into"]
    readonly_fields = [
        "id",
        "embedding",
        "embedding_model",
        "version",
        "source_ref",
        "access_count",
        "last_accessed_at",
        "created_at",
        "updated_at",
    ]
    list_select_related = ["context", "owner"]

    @admin.display(description="content")
    def short_content(self, obj: ContextEntry) -> str:
        return obj.content[:80]


@admin.register(ContextSnapshot)
class ContextSnapshotAdmin(admin.ModelAdmin):
    list_display = ["context", "label", "entry_count", "agent", "created_at"]
    search_fields = ["label", "context__name", "owner__username"]
    raw_id_fields = ["owner", "context", "agent"]
    readonly_fields = ["id", "entries", "context_state", "entry_count", "created_at"]
    actions = ["restore"]

    @admin.action(description="Restore the context to this snapshot (the current state is snapshotted first)")
    def restore(self, request: HttpRequest, queryset: QuerySet[ContextSnapshot]) -> None:
        for snapshot in queryset:
            snapshot_restore(agent=None, snapshot=snapshot)
        self.message_user(request, f"Restored {queryset.count()} snapshot(s).")


@admin.register(ContextAccessLog)
class ContextAccessLogAdmin(admin.ModelAdmin):
    list_display = ["created_at", "action", "context", "agent", "owner"]
    list_filter = ["action"]
    search_fields = ["context__name", "owner__username"]
    raw_id_fields = ["owner", "context", "agent"]
    readonly_fields = ["id", "owner", "context", "agent", "action", "detail", "created_at"]
    date_hierarchy = "created_at"
