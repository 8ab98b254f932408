from django.contrib import admin
from django.templatetags.static import static
from django.urls import URLPattern, URLResolver, include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.api.urls import api_urlpatterns as accounts_api
from episodic.api.urls import api_urlpatterns as episodic_api
from episodic.api.urls import compat_urlpatterns as episodic_compat
from ledger.api.urls import api_urlpatterns as ledger_api
from ledger.api.urls import compat_urlpatterns as ledger_compat
from memory_site.health import HealthApi
from memory_site.mcp_server.views import McpApi
from memory_site.views import home
from palace.api.urls import api_urlpatterns as palace_api
from palace.web.urls import urlpatterns as memory_pages
from webhooks.api.urls import api_urlpatterns as webhooks_api
from webhooks.urls import urlpatterns as webhook_pages

# Working memory and the ledger first: they are called on every LLM turn, and Django tries the patterns
# in order (the hot path's resolution went from ~50 patterns tried to a handful).
api_v1: list[URLPattern | URLResolver] = [
    *ledger_api,
    path("health", HealthApi.as_view(), name="api-health"),
    *accounts_api,
    *episodic_api,
    *palace_api,
    *webhooks_api,
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("", home, name="home"),
    # Browsers ask for /favicon.ico whatever the page says: the same icon, cached for a day.
    path("favicon.ico", RedirectView.as_view(url=static("loci/favicon.svg"), permanent=True)),
    *memory_pages,
    *webhook_pages,
    path("accounts/", include("django.contrib.auth.urls")),
    # The reference service's paths (DESIGN §5.10), same views as under /api/v1/.
    path("health", HealthApi.as_view(), name="health"),
    *ledger_compat,
    *episodic_compat,
    path("mcp", McpApi.as_view(), name="mcp"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("admin/", admin.site.urls),
]

handler400 = "memory_site.views.bad_request"
handler403 = "memory_site.views.permission_denied"
handler404 = "memory_site.views.not_found"
handler500 = "memory_site.views.server_error"
