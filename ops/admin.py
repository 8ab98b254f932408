from __future__ import annotations

from django.contrib import admin

from ops.models import JobRun


@admin.register(JobRun)
class JobRunAdmin(admin.ModelAdmin):
    list_display = ["name", "status", "attempts", "started_at", "finished_at", "duration", "hostname"]
    list_filter = ["status", "name", "started_at"]
    search_fields = ["name", "task_id", "error"]
    date_hierarchy = "started_at"
    readonly_fields = [f.name for f in JobRun._meta.fields]

    @admin.display(description="seconds")
    def duration(self, obj: JobRun) -> str:
        seconds = obj.duration_seconds
        return "" if seconds is None else f"{seconds:.2f}"

    def has_add_permission(self, request: object) -> bool:
        return False
