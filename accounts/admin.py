from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts import services
from accounts.models import Agent, ApiKey, MemorySettings, UsageRecord
from memory_site.admin_lists import LargeTableAdmin


def _show_new_key(request: HttpRequest, issued: services.IssuedKey) -> None:
    messages.warning(
        request,
        f"New API key for {issued.api_key.agent.name} (prefix {issued.api_key.prefix}); copy it now, "
        f"it is not shown again: {issued.raw_key}",
    )


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    can_delete = False
    fields = readonly_fields = ("prefix", "name", "created_at", "last_used_at", "revoked_at")
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "recall_disabled", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["name", "owner__username", "id"]
    raw_id_fields = ["owner"]
    readonly_fields = ["id", "created_at", "updated_at"]
    inlines = [ApiKeyInline]
    actions = ["issue_key"]

    @admin.display(boolean=True)
    def recall_disabled(self, obj: Agent) -> bool:
        return obj.recall_disabled

    @admin.action(description="Issue a new API key for the selected agents")
    def issue_key(self, request: HttpRequest, queryset: QuerySet[Agent]) -> None:
        for agent in queryset:
            _show_new_key(request, services.api_key_issue(agent=agent, name="admin"))


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["prefix", "agent", "owner", "name", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["created_at", "last_used_at", "revoked_at"]
    search_fields = ["prefix", "name", "agent__name", "agent__owner__username"]
    raw_id_fields = ["agent"]
    list_select_related = ["agent", "agent__owner"]
    actions = ["revoke"]

    @admin.display(ordering="agent__owner__username")
    def owner(self, obj: ApiKey) -> str:
        return str(obj.agent.owner)

    def get_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> list[Any]:
        if obj is None:
            return ["agent", "name"]
        return ["prefix", "agent", "name", "created_at", "last_used_at", "revoked_at", "key_hash"]

    def get_readonly_fields(self, request: HttpRequest, obj: ApiKey | None = None) -> list[str]:
        if obj is None:
            return []
        return ["prefix", "agent", "created_at", "last_used_at", "revoked_at", "key_hash"]

    def save_model(self, request: HttpRequest, obj: ApiKey, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        # A new key is minted by the service (only its hash is stored) and shown once, here.
        issued = services.api_key_issue(agent=obj.agent, name=obj.name)
        obj.__dict__.update({f.attname: getattr(issued.api_key, f.attname) for f in ApiKey._meta.concrete_fields})
        obj._state.adding = False
        _show_new_key(request, issued)

    @admin.action(description="Revoke the selected keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        for api_key in queryset:
            services.api_key_revoke(api_key=api_key)
        messages.success(request, f"Revoked {queryset.count()} key(s).")


@admin.register(MemorySettings)
class MemorySettingsAdmin(admin.ModelAdmin):
    list_display = [
        "user",
        "enabled",
        "top_k",
        "use_rerank",
        "auto_mine",
        "timezone",
        "monthly_budget_usd",
        "updated_at",
    ]
    list_filter = ["enabled", "use_rerank", "auto_mine"]
    search_fields = ["user__username"]
    raw_id_fields = ["user"]


@admin.register(UsageRecord)
class UsageRecordAdmin(LargeTableAdmin):
    list_display = [
        "created_at",
        "owner",
        "source",
        "provider",
        "model",
        "items",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "succeeded",
    ]
    list_filter = ["source", "provider", "succeeded", "created_at"]
    search_fields = ["owner__username", "model"]
    raw_id_fields = ["owner"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in UsageRecord._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
