"""Load a JSON-lines export (GET /api/v1/export, manage.py export_memory) into one person's memory.

    manage.py import_memory --user alice alice.jsonl

Idempotent: importing the same file again changes nothing. The whole file is checked and written in
one transaction (a bad line stores nothing); rows without a usable vector are embedded afterwards.
"""

from __future__ import annotations

import functools
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from memory_site.lib.errors import ServiceError
from palace import selectors
from palace.services.portability import import_lines


class Command(BaseCommand):
    help = "Import a JSON-lines memory export into one person's memory."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--user", metavar="USERNAME", required=True, help="the person whose memory receives it")
        parser.add_argument("file", metavar="FILE", help="the export file")

    def handle(self, *args: Any, user: str, file: str, **options: Any) -> None:
        owner = selectors.user_get(username=user)
        if owner is None:
            raise CommandError(f"no user {user!r}")
        started = time.monotonic()
        self.stdout.write(f"{owner.username}: importing {file}")
        try:
            with open(file, "rb") as lines:
                result = import_lines(
                    owner=owner, lines=lines, progress=functools.partial(self._progress, started=started)
                )
        except OSError as error:
            raise CommandError(str(error)) from None
        except ServiceError as error:
            raise CommandError(error.detail) from None
        rows = ", ".join(f"{count} {kind}" for kind, count in result["rows"].items())
        self.stdout.write(
            f"{owner.username}: {result['lines']} lines ({rows or 'no rows'}), {result['embedded']} rows embedded"
            f" in {time.monotonic() - started:.1f}s"
        )

    def _progress(self, lines: int, *, started: float) -> None:
        self.stdout.write(f"  [{lines} lines] · {time.monotonic() - started:.1f}s")
        self.stdout.flush()
