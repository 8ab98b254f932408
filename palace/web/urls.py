"""Routes of the person's pages: /memory/… and /settings/memory."""

from django.urls import path

from palace.web import account, browse, forget, memories, portability, usage

urlpatterns = [
    path("memory", browse.memory_index, name="memory"),
    path("memory/search", browse.search, name="memory-search"),
    path("memory/wings/<int:wing_id>", browse.wing_detail, name="memory-wing"),
    path("memory/wings/<int:wing_id>/rooms", browse.wing_rooms, name="memory-wing-rooms"),
    path("memory/rooms/<int:room_id>", browse.room_detail, name="memory-room"),
    path("memory/closets/<int:closet_id>", browse.closet_detail, name="memory-closet"),
    path("memory/drawers/<int:drawer_id>", browse.drawer_detail, name="memory-drawer"),
    path("memory/drawers/<int:drawer_id>/<str:flag>", browse.drawer_flag, name="memory-drawer-flag"),
    path("memory/memories", memories.memories, name="memory-memories"),
    path("memory/memories/<str:tier>/<uuid:memory_id>/edit", memories.memory_edit, name="memory-edit"),
    path("memory/entities", memories.entities, name="memory-entities"),
    path("memory/entities/<int:entity_id>", memories.entity_detail, name="memory-entity"),
    path("memory/activity", account.activity, name="memory-activity"),
    path("memory/overview", account.overview, name="memory-overview"),
    path("memory/forget", forget.forget, name="memory-forget"),
    path("memory/forget/receipts/<uuid:receipt_id>", forget.receipt, name="memory-receipt"),
    path("settings/memory", account.settings_memory, name="settings-memory"),
    path("settings/memory/usage", usage.settings_usage, name="settings-usage"),
    path("settings/memory/export", portability.export, name="settings-export"),
    path("settings/memory/import", portability.import_file, name="settings-import"),
    path("settings/memory/exclusions", account.exclusion_add, name="settings-exclusion-add"),
    path("settings/memory/exclusions/<int:rule_id>/delete", account.exclusion_delete, name="settings-exclusion-delete"),
    path("settings/memory/exclusions/<int:rule_id>", account.exclusion_preview_page, name="settings-exclusion"),
]
