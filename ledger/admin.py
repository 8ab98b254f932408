from __future__ import annotations

from django.contrib import admin

from ledger.models import WorkingMemorySnapshot


@admin.register(WorkingMemorySnapshot)
class WorkingMemorySnapshotAdmin(admin.ModelAdmin):
    list_display = ["conversation_id", "owner", "size_bytes", "ttl_seconds", "persisted_by", "persisted_at"]
    search_fields = ["conversation_id", "owner__username"]
    raw_id_fields = ["owner", "persisted_by"]
    readonly_fields = ["fields", "size_bytes", "persisted_at"]
