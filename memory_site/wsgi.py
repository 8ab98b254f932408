import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

django_application = get_wsgi_application()

# The working-memory and ledger hot path answers in front of Django (ledger/fastlane.py).
from ledger.fastlane import fast_lane  # noqa: E402

application = fast_lane(django_application)

# Load the embedding model once per web process at start, not on a request's time; a model whose
# dimension does not fit the vector columns stops the process here, with the reason.
from episodic.providers import get_embedder  # noqa: E402

get_embedder()
