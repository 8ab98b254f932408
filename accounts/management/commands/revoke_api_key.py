from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from accounts import selectors, services


class Command(BaseCommand):
    help = "Revoke an API key by its prefix (as shown in the admin and in GET /api/v1/keys)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("prefix")

    def handle(self, *args: Any, prefix: str, **options: Any) -> None:
        # An operator's command: it may revoke any owner's key.
        api_key = selectors.api_key_get_for_operator(prefix=prefix)
        if api_key is None:
            raise CommandError(f"no API key with prefix {prefix!r}")
        services.api_key_revoke(api_key=api_key)
        self.stdout.write(
            f"revoked {prefix} (agent {api_key.agent.name}) at {api_key.revoked_at:%Y-%m-%d %H:%M:%S} UTC"
        )
