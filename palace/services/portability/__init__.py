"""A person's whole memory as one JSON-lines file, and back (`GET /api/v1/export`, `POST /api/v1/import`,
`manage.py export_memory` / `import_memory`).

- `format`: the file's shape — the header, the row types in the order they are written, and the
  references between rows by natural key (conversation external_id, wing/room/drawer number, closet
  position within its room, entity slug, agent name, context name), never database ids.
- `export`: `export_lines(owner=...)` streams the file row by row (flat memory).
- `load_palace` / `load_tiers`: one writer per row type; `load`: `import_lines(owner=..., lines=...)`
  checks and writes the whole file in one transaction, then embeds what came without vectors.
"""

from palace.services.portability.export import export_lines
from palace.services.portability.load import import_lines

__all__ = ["export_lines", "import_lines"]
