from __future__ import annotations

from django.contrib import admin

from episodic.models import Episode, TypedMemory


@admin.register(Episode)
class EpisodeAdmin(admin.ModelAdmin):
    list_display = ["conversation_id", "owner", "agent", "episode_type", "importance", "occurred_at", "expires_at"]
    list_filter = ["episode_type", "occurred_at"]
    search_fields = ["conversation_id", "summary", "user_id", "owner__username"]
    raw_id_fields = ["owner", "agent"]
    readonly_fields = ["id", "embedding", "embedding_model", "search_text", "created_at"]
    date_hierarchy = "occurred_at"


@admin.register(TypedMemory)
class TypedMemoryAdmin(admin.ModelAdmin):
    list_display = ["memory_type", "owner", "agent", "scope", "session_id", "entity_id", "access_count", "created_at"]
    list_filter = ["memory_type", "scope"]
    search_fields = ["content", "session_id", "entity_id", "owner__username"]
    raw_id_fields = ["owner", "agent"]
    readonly_fields = [
        "id",
        "embedding",
        "embedding_model",
        "access_count",
        "last_accessed_at",
        "created_at",
        "updated_at",
    ]
