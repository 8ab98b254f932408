from django.urls import path

from palace.api import views as v

api_urlpatterns = [
    path("conversations", v.ConversationCreateApi.as_view()),
    path("conversations/<str:conversation_id>/turns", v.ConversationAppendApi.as_view()),
    path("conversations/<str:conversation_id>/complete", v.ConversationCompleteApi.as_view()),
    path("conversations/<str:conversation_id>/mine", v.ConversationMineApi.as_view()),
    path("jobs/<uuid:job_id>", v.JobGetApi.as_view()),
]
