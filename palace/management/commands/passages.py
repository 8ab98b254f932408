"""Split and embed the passages (the sentences of user turns, palace.models.Passage) of drawers that
have none: palaces mined before passages existed. Run it once after upgrading; mining writes new
drawers' passages itself. Safe to run again or beside the workers.

    manage.py passages --user alice
    manage.py passages --all
"""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from palace.services.passages import Built, passages_build


class Command(BaseCommand):
    help = "Split and embed the passages of drawers filed without them (palaces mined before passages)."

    def add_arguments(self, parser: Any) -> None:
        who = parser.add_mutually_exclusive_group(required=True)
        who.add_argument("--user", metavar="USERNAME", help="the owner whose drawers get passages")
        who.add_argument("--all", action="store_true", dest="every", help="every owner")

    def handle(self, *args: Any, user: str | None, every: bool, **options: Any) -> None:
        owner_id = None
        if not every:
            owner = User.objects.filter(username=user).first()
            if owner is None:
                raise CommandError(f"no user {user!r}")
            owner_id = owner.pk
        started = time.monotonic()

        def progress(built: Built) -> None:
            width = 30
            filled = width if not built.total else int(width * built.drawers / built.total)
            rate = built.drawers / max(time.monotonic() - started, 1e-9)
            self.stdout.write(
                f"\rdrawers [{'#' * filled}{'.' * (width - filled)}] {built.drawers}/{built.total} "
                f"({rate:.0f}/s), {built.passages} passages",
                ending="",
            )
            self.stdout.flush()

        built = passages_build(owner_id=owner_id, progress=progress)
        self.stdout.write(
            f"\n{built.drawers} drawers read, {built.passages} passages written, {built.embedded} embedded"
            f" in {time.monotonic() - started:.1f}s"
        )
        if built.passages > built.embedded:
            self.stderr.write(f"{built.passages - built.embedded} passages wait for the embedding backfill job")
