"""Write one person's memory to a JSON-lines file (the format of GET /api/v1/export).

manage.py export_memory --user alice --out alice.jsonl
manage.py export_memory --user alice > alice.jsonl        # progress goes to stderr
manage.py export_memory --user alice --with-embeddings --out alice.jsonl
"""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from palace import selectors
from palace.services.portability import export_lines

PROGRESS_EVERY = 5000  # lines


class Command(BaseCommand):
    help = "Export one person's memory as JSON lines."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--user", metavar="USERNAME", required=True, help="the person whose memory is exported")
        parser.add_argument("--out", metavar="FILE", help="write here (default: standard output)")
        parser.add_argument(
            "--with-embeddings", action="store_true", help="add the vectors (recomputed on import when left out)"
        )

    def handle(self, *args: Any, user: str, out: str | None, with_embeddings: bool, **options: Any) -> None:
        owner = selectors.user_get(username=user)
        if owner is None:
            raise CommandError(f"no user {user!r}")
        started, written = time.monotonic(), 0
        target = open(out, "w", encoding="utf-8") if out else sys.stdout
        try:
            for line in export_lines(owner=owner, with_embeddings=with_embeddings):
                target.write(line)
                written += 1
                if written % PROGRESS_EVERY == 0:
                    self._progress(owner.username, written, started)
        finally:
            if out:
                target.close()
        self._progress(owner.username, written, started, done=True)

    def _progress(self, username: str, lines: int, started: float, *, done: bool = False) -> None:
        # stderr: with no --out, stdout is the file itself.
        self.stderr.write(
            f"  {username}: {'exported ' if done else ''}{lines} lines · {time.monotonic() - started:.1f}s"
        )
        self.stderr.flush()
