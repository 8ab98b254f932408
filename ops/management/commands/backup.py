"""Back up the whole instance (PostgreSQL and Redis) to a folder (ops/backup.py says what it holds).

manage.py backup --out /backups/loci-2026-11-25
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ops.backup import BackupError, backup


class Command(BaseCommand):
    help = "Back up PostgreSQL and Redis to a folder."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--out", metavar="DIR", required=True, help="a new folder for the backup")

    def handle(self, *args: Any, out: str, **options: Any) -> None:
        try:
            manifest = backup(Path(out), self._progress)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(manifest["rows"].values())
        self.stdout.write(
            f"backed up {rows} rows in {len(manifest['rows'])} tables and {manifest['redis_keys']} Redis keys to {out}"
        )

    def _progress(self, line: str) -> None:
        self.stderr.write(line)
        self.stderr.flush()
