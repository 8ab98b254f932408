"""Routes of the ledger app. `api_urlpatterns` go under /api/v1/; `compat_urlpatterns` are the reference
service's paths (DESIGN §5.10), mounted at the root with the same views: no class exists only for them,
so the app has no `compat.py`."""

from django.urls import path

from ledger.api import helpers as h
from ledger.api.ledger import LedgerCheckApi, LedgerEvictApi, LedgerGetApi, LedgerMarkApi
from ledger.api.sharing import (
    SharedMemoryRetrieveApi,
    SharedMemoryShareApi,
    WorkingMemoryLoadApi,
    WorkingMemoryPersistApi,
)
from ledger.api.working_memory import WorkingMemoryDeleteApi, WorkingMemoryGetApi, WorkingMemoryMergeApi
from memory_site.api.routing import by_method

WM = "working-memory/<str:conversation_id>"

working_memory = by_method(get=WorkingMemoryGetApi, put=WorkingMemoryMergeApi, delete=WorkingMemoryDeleteApi)
ledger_get = LedgerGetApi.as_view()
ledger_check = LedgerCheckApi.as_view()
ledger_mark = LedgerMarkApi.as_view()
ledger_evict = LedgerEvictApi.as_view()

api_urlpatterns = [
    path(WM, working_memory, name="working-memory"),
    path(f"{WM}/keys", h.WorkingMemoryKeysApi.as_view(), name="working-memory-keys"),
    path(f"{WM}/fields/<str:name>", by_method(get=h.WorkingMemoryFieldGetApi, delete=h.WorkingMemoryFieldDeleteApi)),
    path(f"{WM}/scratchpad", by_method(get=h.ScratchpadGetApi, put=h.ScratchpadSetApi)),
    path(f"{WM}/scratchpad/append", h.ScratchpadAppendApi.as_view()),
    path(f"{WM}/entities", by_method(get=h.EntitiesGetApi, put=h.EntitiesSetApi)),
    path(f"{WM}/context", by_method(get=h.ContextGetApi, put=h.ContextSetApi)),
    path(f"{WM}/context/append", h.ContextAppendApi.as_view()),
    path(f"{WM}/task", by_method(get=h.TaskStateGetApi, put=h.TaskStateSetApi)),
    path(f"{WM}/tools/<str:tool_name>", by_method(get=h.ToolStateGetApi, put=h.ToolStateSetApi)),
    path(f"{WM}/steps/<str:step_name>", by_method(get=h.StepResultGetApi, put=h.StepResultSetApi)),
    path(f"{WM}/persist", WorkingMemoryPersistApi.as_view()),
    path(f"{WM}/load", WorkingMemoryLoadApi.as_view()),
    path("shared-memory", SharedMemoryShareApi.as_view()),
    path("shared-memory/<uuid:source_agent_id>/<str:key>", SharedMemoryRetrieveApi.as_view()),
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
