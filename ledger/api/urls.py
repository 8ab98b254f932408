"""Routes of the ledger app. `api_urlpatterns` go under /api/v1/; `compat_urlpatterns` are the reference
service's paths (DESIGN §5.10), mounted at the root with the same views."""

from django.urls import path

from ledger.api import views as v
from memory_site.api.routing import by_method

WM = "working-memory/<str:conversation_id>"

working_memory = by_method(get=v.WorkingMemoryGetApi, put=v.WorkingMemoryMergeApi, delete=v.WorkingMemoryDeleteApi)
ledger_get = v.LedgerGetApi.as_view()
ledger_check = v.LedgerCheckApi.as_view()
ledger_mark = v.LedgerMarkApi.as_view()
ledger_evict = v.LedgerEvictApi.as_view()

api_urlpatterns = [
    path(WM, working_memory, name="working-memory"),
    path(f"{WM}/keys", v.WorkingMemoryKeysApi.as_view(), name="working-memory-keys"),
    path(f"{WM}/fields/<str:name>", by_method(get=v.WorkingMemoryFieldGetApi, delete=v.WorkingMemoryFieldDeleteApi)),
    path(f"{WM}/scratchpad", by_method(get=v.ScratchpadGetApi, put=v.ScratchpadSetApi)),
    path(f"{WM}/scratchpad/append", v.ScratchpadAppendApi.as_view()),
    path(f"{WM}/entities", by_method(get=v.EntitiesGetApi, put=v.EntitiesSetApi)),
    path(f"{WM}/context", by_method(get=v.ContextGetApi, put=v.ContextSetApi)),
    path(f"{WM}/context/append", v.ContextAppendApi.as_view()),
    path(f"{WM}/task", by_method(get=v.TaskStateGetApi, put=v.TaskStateSetApi)),
    path(f"{WM}/tools/<str:tool_name>", by_method(get=v.ToolStateGetApi, put=v.ToolStateSetApi)),
    path(f"{WM}/steps/<str:step_name>", by_method(get=v.StepResultGetApi, put=v.StepResultSetApi)),
    path(f"{WM}/persist", v.WorkingMemoryPersistApi.as_view()),
    path(f"{WM}/load", v.WorkingMemoryLoadApi.as_view()),
    path("shared-memory", v.SharedMemoryShareApi.as_view()),
    path("shared-memory/<uuid:source_agent_id>/<str:key>", v.SharedMemoryRetrieveApi.as_view()),
    path("ledger/<str:conversation_id>", ledger_get, name="ledger"),
    path("ledger/<str:conversation_id>/check", ledger_check),
    path("ledger/<str:conversation_id>/mark", ledger_mark),
    path("ledger/<str:conversation_id>/evict", ledger_evict),
]

compat_urlpatterns = [
    path(WM, working_memory),
    path("ledger/<str:conversation_id>", ledger_get),
    path("ledger/<str:conversation_id>/check", ledger_check),
    path("ledger/<str:conversation_id>/mark", ledger_mark),
    path("ledger/<str:conversation_id>/evict", ledger_evict),
]
