"""`manage.py demo_palace [--user demo] [--agent demo-agent]`: sample conversations for a new demo palace
(run by `make run` after bootstrap_demo; does nothing once the palace has a past)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from accounts import selectors
from accounts.services import agent_ensure
from palace.demo import demo_conversations_add


class Command(BaseCommand):
    help = "Post the sample conversations for the demo user's agent when its palace never had any."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--user", default="demo")
        parser.add_argument("--agent", default="demo-agent")

    def handle(self, *args: Any, **options: Any) -> None:
        user = selectors.user_by_name(username=options["user"])
        if user is None:
            raise CommandError(f"no user {options['user']!r}")
        agent, _ = agent_ensure(owner=user, name=options["agent"])
        added = demo_conversations_add(owner=user, agent=agent)
        if added:
            self.stdout.write(
                f"  {added} sample conversations posted for {user.username}; the worker mines them into /memory."
            )
