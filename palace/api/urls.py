from django.urls import path

from memory_site.api.routing import by_method
from palace.api import activity as a
from palace.api import browse as b
from palace.api import curation as c
from palace.api import exclusions as x
from palace.api import forget as f
from palace.api import kg as k
from palace.api import portability as p
from palace.api import recall as r
from palace.api import views as v

api_urlpatterns = [
    path("conversations", v.ConversationCreateApi.as_view()),
    path("conversations/<str:conversation_id>", f.ConversationForgetApi.as_view()),
    path("conversations/<str:conversation_id>/turns", v.ConversationAppendApi.as_view()),
    path("conversations/<str:conversation_id>/complete", v.ConversationCompleteApi.as_view()),
    path("conversations/<str:conversation_id>/mine", v.ConversationMineApi.as_view()),
    path("jobs/<str:job_id>", v.JobGetApi.as_view()),  # any id: one that is no UUID is "Job not found." too
    path("conversations/<str:conversation_id>/drawers", b.ConversationDrawersApi.as_view()),
    path("palace/wings", b.WingListApi.as_view()),
    path("palace/wings/<int:wing_id>", f.WingForgetApi.as_view()),
    path("palace/wings/<int:wing_id>/rooms", b.WingRoomsApi.as_view()),
    path("palace/rooms/<int:room_id>/closets", b.RoomClosetsApi.as_view()),
    path("palace/closets/<int:closet_id>/drawers", b.ClosetDrawersApi.as_view()),
    path("palace/drawers/<int:drawer_id>", by_method(get=b.DrawerGetApi, delete=f.DrawerForgetApi)),
    path("palace/drawers/<int:drawer_id>/pin", c.DrawerPinApi.as_view()),
    path("palace/drawers/<int:drawer_id>/never-recall", c.DrawerNeverRecallApi.as_view()),
    path("palace/drawers/<int:drawer_id>/readers", c.DrawerReadersApi.as_view()),
    path("activity", a.ActivityListApi.as_view()),
    path("palace/resolve", b.PointerResolveApi.as_view()),
    path("recall", r.RecallApi.as_view()),
    path("context", r.ContextAssembleApi.as_view()),
    path("kg/relations", k.RelationAddApi.as_view()),
    path("kg/entities", k.EntityListApi.as_view()),
    # `path:` since an entity's name may hold a "/" (sent as %2F, which the server decodes before routing).
    # The timeline comes first, or `<path:name>` below would take "A/B/timeline" as a name.
    path("kg/entities/<path:name>/timeline", k.EntityTimelineApi.as_view()),
    path("settings/exclusions", by_method(get=x.ExclusionListApi, post=x.ExclusionCreateApi)),
    path("settings/exclusions/<int:rule_id>", x.ExclusionDeleteApi.as_view()),
    path("settings/exclusions/<int:rule_id>/preview", x.ExclusionPreviewApi.as_view()),
    path("settings/exclusions/<int:rule_id>/purge", x.ExclusionPurgeApi.as_view()),
    path("kg/entities/<path:name>", by_method(get=k.EntityAsOfApi, delete=f.EntityForgetApi)),
    path("forget", f.ForgetApi.as_view()),
    path("forget/receipts/<uuid:receipt_id>", f.ReceiptVerifyApi.as_view()),
    path("export", p.MemoryExportApi.as_view()),
    path("import", p.MemoryImportApi.as_view()),
]
