from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts import services


class Command(BaseCommand):
    help = "Mint an API key for an agent (creating the user and agent when missing). The key is the last line."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--user", required=True, help="username of the owner")
        parser.add_argument("--agent", required=True, help="agent name (unique per owner)")
        parser.add_argument("--name", default="", help="a label for the key")

    def handle(self, *args: Any, user: str, agent: str, name: str, **options: Any) -> None:
        owner, user_created = services.user_ensure(username=user)
        if user_created:
            self.stderr.write(f"created user {user} (no password; set one with `manage.py changepassword {user}`)")
        agent_row, agent_created = services.agent_ensure(owner=owner, name=agent)
        if agent_created:
            self.stderr.write(f"created agent {agent}")
        issued = services.api_key_issue(agent=agent_row, name=name)
        self.stderr.write(f"key prefix {issued.api_key.prefix}; it is shown once, below")
        self.stdout.write(issued.raw_key)
