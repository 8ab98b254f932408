"""Restore a backup made by `manage.py backup` into the configured (empty) database and Redis.

manage.py restore /backups/loci-2026-11-25             # into a fresh state folder or an empty database
manage.py restore /backups/loci-2026-11-25 --replace   # over an existing instance (its data is dropped)
manage.py restore DIR --jobs 4                         # tables and indexes loaded four at a time
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ops.backup import BackupError, restore


class Command(BaseCommand):
    help = "Restore a backup folder into the configured database and Redis."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("source", metavar="DIR", help="a folder written by manage.py backup")
        parser.add_argument("--replace", action="store_true", help="drop what the database holds first")
        parser.add_argument(
            "--jobs", type=int, default=min(4, os.cpu_count() or 1), help="tables and indexes loaded at once"
        )

    def handle(self, *args: Any, source: str, replace: bool, jobs: int, **options: Any) -> None:
        try:
            result = restore(Path(source), self._progress, replace=replace, jobs=jobs)
        except (BackupError, FileNotFoundError) as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(result["rows"].values())
        self.stdout.write(
            f"restored {rows} rows in {len(result['rows'])} tables and {result['redis_keys_restored']} Redis keys "
            f"from a backup of {result['created_at']}"
        )

    def _progress(self, line: str) -> None:
        self.stderr.write(line)
        self.stderr.flush()
