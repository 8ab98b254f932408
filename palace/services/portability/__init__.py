"""A person's whole memory as one JSON-lines file, and back (`GET /api/v1/export`, `POST /api/v1/import`,
`manage.py export_memory` / `import_memory`).

- `format`: the file's shape — the header, the row types in the order they are written, and the
  references between rows by natural key (conversation external_id, wing/room/drawer number, closet
  position within its room, entity slug, agent name, context name), never database ids.
- `export`: `export_lines(owner=...)` streams the file row by row (flat memory).
- `load_palace` / `load_tiers`: one writer per row type; `load`: `import_lines(owner=..., lines=...)`
  checks and writes the whole file in one transaction, then embeds what came without vectors.
"""

from django.contrib.auth.models import User
from django.http import StreamingHttpResponse
from django.utils import timezone

from palace.services.portability.export import export_lines
from palace.services.portability.format import CONTENT_TYPE
from palace.services.portability.load import import_lines


def export_download(*, owner: User, with_embeddings: bool = False) -> StreamingHttpResponse:
    """The owner's export as a streamed JSON-lines attachment (the API's and the settings page's)."""
    lines = (line.encode("utf-8") for line in export_lines(owner=owner, with_embeddings=with_embeddings))
    response = StreamingHttpResponse(lines, content_type=CONTENT_TYPE)
    name = f"loci-export-{owner.username}-{timezone.now():%Y%m%d-%H%M%S}.jsonl"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


__all__ = ["export_download", "export_lines", "import_lines"]
