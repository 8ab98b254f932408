"""File existing palaces again with the current extractor, after the extractor changed.

    manage.py remine --user alice          # one owner's palace
    manage.py remine --all                 # every owner who has a palace
    manage.py remine --all --dry-run       # what would change; nothing is written

Rooms, closets, wings, tags and knowledge-graph facts are filed again; every drawer keeps its content,
number and embedding, and every AAAK pointer handed out still resolves (to the drawer's new place).
Running it twice changes nothing the second time (with the offline extractor).
"""

from __future__ import annotations

import functools
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from palace import selectors
from palace.services import remine


class Command(BaseCommand):
    help = "File existing palaces again with the current extractor (rooms, closets, wings, tags, facts)."

    def add_arguments(self, parser: Any) -> None:
        who = parser.add_mutually_exclusive_group(required=True)
        who.add_argument("--user", metavar="USERNAME", help="the owner whose palace is filed again")
        who.add_argument("--all", action="store_true", dest="every", help="every owner who has a palace")
        parser.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")

    def handle(self, *args: Any, user: str | None, every: bool, dry_run: bool, **options: Any) -> None:
        owners = list(selectors.palace_owners(username=None if every else user))
        if user and not owners:
            raise CommandError(f"no palace for user {user!r}")
        for owner in owners:
            started = time.monotonic()
            self.stdout.write(f"{owner.username}: {'dry run, nothing is written' if dry_run else 're-filing'}")
            progress = functools.partial(self._progress, started=started, dry_run=dry_run)
            result = remine.owner_remine(owner=owner, progress=progress, dry_run=dry_run)
            verb = "would change" if dry_run else "changed"
            self.stdout.write(
                f"{owner.username}: {result.changed}/{result.conversations} conversations {verb}, "
                f"{result.wings} wings, {len(result.wings_deleted)} empty wings "
                f"{'to delete' if dry_run else 'deleted'}"
                + (f" ({', '.join(result.wings_deleted)})" if result.wings_deleted else "")
                + ("" if dry_run else f", {result.entities_deleted} entities without a fact deleted")
                + f" in {time.monotonic() - started:.1f}s"
            )

    def _progress(self, step: remine.Step, *, started: float, dry_run: bool) -> None:
        self.stdout.write(
            f"  [{step.done}/{step.total}] {self._describe(step.refiled, dry_run)}"
            f" · {step.wings} wings · {time.monotonic() - started:.1f}s"
        )
        self.stdout.flush()

    @staticmethod
    def _describe(refiled: remine.Refiled | None, dry_run: bool) -> str:
        if refiled is None:
            return "nothing filed, skipped"
        head = f"{refiled.conversation} R-{refiled.room:02d}"
        if not refiled.changed:
            return f"{head}: unchanged"
        parts = []
        if refiled.wing_before != refiled.wing_after:
            parts.append(f"wing {refiled.wing_before!r} -> {refiled.wing_after!r}")
        if refiled.title_before != refiled.title_after:
            parts.append(f"title {refiled.title_before!r} -> {refiled.title_after!r}")
        if refiled.linked_before != refiled.linked_after:
            parts.append(f"linked {', '.join(refiled.linked_after) or 'none'}")
        if refiled.drawers_changed:
            parts.append(f"{refiled.drawers_changed} drawers {'to re-file' if dry_run else 're-filed'}")
        if refiled.closets_rebuilt:
            parts.append("closets rebuilt")
        return f"{head}: " + "; ".join(parts)
