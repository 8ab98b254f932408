from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from memory_site.admin_lists import LargeTableAdmin
from palace.models import (
    ActivityEvent,
    Closet,
    Conversation,
    Drawer,
    DrawerRead,
    Entity,
    ForgetReceipt,
    MiningJob,
    Passage,
    PreferenceTopic,
    Relation,
    Room,
    Turn,
    Wing,
)
from palace.services.remine import conversation_refile
from palace.services.vectors import drawers_reembed


class TurnInline(admin.TabularInline):
    model = Turn
    extra = 0
    fields = readonly_fields = ("index", "role", "content", "timestamp")
    can_delete = False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ["external_id", "owner", "agent", "turn_count", "complete", "started_at"]
    list_filter = ["complete", "started_at"]
    search_fields = ["external_id", "title", "owner__username", "user_id"]
    raw_id_fields = ["owner", "agent"]
    readonly_fields = ["id", "turn_count", "created_at", "updated_at"]
    inlines = [TurnInline]
    actions = ["refile"]

    @admin.action(description="Re-file with the current extractor (wings, rooms, closets, tags, facts)")
    def refile(self, request: HttpRequest, queryset: QuerySet[Conversation]) -> None:
        refiled = sum(conversation_refile(conversation=c) is not None for c in queryset.iterator())
        self.message_user(request, f"Re-filed {refiled} conversation(s); drawers and pointers kept.")


@admin.register(MiningJob)
class MiningJobAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "owner",
        "conversation",
        "status",
        "ready",
        "attempts",
        "requested_at",
        "enqueued_at",
        "finished_at",
    ]
    list_filter = ["status", "ready", "requested_at"]
    search_fields = ["id", "conversation__external_id", "owner__username"]
    raw_id_fields = ["owner", "conversation"]
    readonly_fields = ["id", "counts", "error", "attempts", "requested_at", "enqueued_at", "started_at", "finished_at"]


@admin.register(Wing)
class WingAdmin(admin.ModelAdmin):
    list_display = ["number", "name", "kind", "owner", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "slug", "owner__username"]
    raw_id_fields = ["owner"]
    readonly_fields = ["number"]


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ["number", "title", "wing", "owner", "started_at", "ended_at"]
    search_fields = ["title", "owner__username"]
    raw_id_fields = ["owner", "wing", "conversation", "linked_wings"]
    readonly_fields = ["number"]


@admin.register(Closet)
class ClosetAdmin(admin.ModelAdmin):
    list_display = ["topic", "room", "position", "owner"]
    search_fields = ["topic", "owner__username"]
    raw_id_fields = ["owner", "room"]


@admin.register(Drawer)
class DrawerAdmin(LargeTableAdmin):
    list_display = ["aaak", "role", "owner", "conversation", "turn_index", "occurred_at", "pinned", "never_recall"]
    list_filter = ["role", "occurred_at", "pinned", "never_recall"]
    search_fields = ["aaak", "content", "owner__username"]
    raw_id_fields = ["owner", "room", "closet", "conversation"]
    readonly_fields = ["number", "aaak", "embedding", "embedding_model", "search_text", "created_at"]
    actions = ["reembed"]

    @admin.action(description="Embed again with the current model")
    def reembed(self, request: HttpRequest, queryset: QuerySet[Drawer]) -> None:
        done = drawers_reembed(drawer_ids=list(queryset.values_list("pk", flat=True)[:5000]))
        self.message_user(request, f"Re-embedded {done} drawer(s) (at most 5,000 per run; 0 if the embedder is down).")


@admin.register(Passage)
class PassageAdmin(LargeTableAdmin):
    """Derived from a drawer's text (palace/passages.py): inspected here, rebuilt by `manage.py passages`."""

    list_display = ["drawer", "position", "text", "owner", "embedding_model"]
    search_fields = ["text", "owner__username"]
    raw_id_fields = ["owner", "drawer"]
    readonly_fields = ["owner", "drawer", "position", "text", "embedding", "embedding_model", "created_at"]


@admin.register(Entity)
class EntityAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "owner", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "slug", "owner__username"]
    raw_id_fields = ["owner"]


@admin.register(Relation)
class RelationAdmin(LargeTableAdmin):
    list_display = ["subject", "predicate", "object", "object_value", "valid_from", "valid_to", "confidence"]
    list_filter = ["predicate"]
    search_fields = ["subject__name", "predicate", "object__name", "object_value"]
    raw_id_fields = ["owner", "subject", "object", "source_drawer"]


@admin.register(ActivityEvent)
class ActivityEventAdmin(LargeTableAdmin):
    list_display = ["kind", "owner", "agent", "created_at"]
    list_filter = ["kind", "created_at"]
    search_fields = ["owner__username", "agent__name"]
    raw_id_fields = ["owner", "agent"]
    readonly_fields = ["kind", "data", "created_at"]


@admin.register(DrawerRead)
class DrawerReadAdmin(admin.ModelAdmin):
    """Who read which drawer (recall or context), written in batches by palace.drawer_reads_flush."""

    list_display = ["drawer", "agent", "source", "query", "created_at"]
    list_filter = ["source", "created_at"]
    search_fields = ["owner__username", "agent__name", "query"]
    raw_id_fields = ["drawer", "owner", "agent"]
    readonly_fields = ["id", "source", "query", "created_at"]


@admin.register(PreferenceTopic)
class PreferenceTopicAdmin(admin.ModelAdmin):
    """What recall's preference signal reads: topics per owner, by the conversations that raised them."""

    list_display = ["term", "owner", "rooms", "stated", "updated_at"]
    search_fields = ["term", "owner__username"]
    raw_id_fields = ["owner"]
    readonly_fields = ["rooms", "stated", "updated_at"]
    ordering = ["-rooms"]


@admin.register(ForgetReceipt)
class ForgetReceiptAdmin(admin.ModelAdmin):
    """Read-only: a receipt is evidence, so the operator can look but not edit or delete it."""

    list_display = ["id", "owner", "created_at", "digest"]
    list_filter = ["created_at"]
    search_fields = ["id", "owner__username", "digest"]
    raw_id_fields = ["owner"]
    readonly_fields = ["id", "owner", "asked", "counts", "digest", "removed_ids", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ForgetReceipt | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ForgetReceipt | None = None) -> bool:
        return False
