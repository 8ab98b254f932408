from django.urls import path

from episodic.api import context_entries, contexts, pools, short_term, tiers
from episodic.api import views as v
from memory_site.api.routing import by_method

api_urlpatterns = [
    path("episodes", by_method(get=v.EpisodeListApi, post=v.EpisodeStoreApi)),
    path("episodes/search", v.EpisodeSearchApi.as_view()),
    path("episodes/propose", v.EpisodeProposeApi.as_view()),
    path("episodes/conversation/<str:conversation_id>", v.EpisodeByConversationApi.as_view()),
    path("episodes/<uuid:episode_id>", by_method(get=v.EpisodeGetApi, delete=v.EpisodeDeleteApi)),
    path("memories/typed/query", v.TypedMemoryQueryApi.as_view()),
    path("memories/typed/episodic/session/<str:session_id>", v.TypedSessionTimelineApi.as_view()),
    path("memories/typed/semantic/entity/<str:entity_id>", v.TypedEntityFactsApi.as_view()),
    path("memories/typed/<str:memory_type>", v.TypedMemoryCreateApi.as_view()),
    path("memories/query", v.TypedMemoryQueryApi.as_view()),
    path("memories/<uuid:memory_id>", by_method(get=v.TypedMemoryGetApi, delete=v.TypedMemoryDeleteApi)),
    *short_term.urlpatterns,
    *pools.urlpatterns,
    *contexts.urlpatterns,
    *context_entries.urlpatterns,
    *tiers.urlpatterns,
]

compat_urlpatterns = [
    path("episodic/store", v.CompatEpisodicStoreApi.as_view()),
    path("episodic/search", v.CompatEpisodicSearchApi.as_view()),
    path("episodic/<str:conversation_id>", v.CompatEpisodicConversationApi.as_view()),
    path("memories/typed/query", v.TypedMemoryQueryApi.as_view()),
    path("memories/typed/episodic/session/<str:session_id>", v.TypedSessionTimelineApi.as_view()),
    path("memories/typed/semantic/entity/<str:entity_id>", v.TypedEntityFactsApi.as_view()),
    path("memories/typed/<str:memory_type>", v.TypedMemoryCreateApi.as_view()),
    path("memories/query", v.TypedMemoryQueryApi.as_view()),
    path("api/memory/episodes", v.CompatAgtosEpisodesApi.as_view()),
    path("api/memory/search", v.CompatAgtosSearchApi.as_view()),
]
