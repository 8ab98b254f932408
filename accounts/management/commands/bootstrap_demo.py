from __future__ import annotations

import secrets
from typing import Any

from django.core.management.base import BaseCommand

from accounts import services

DEMO_USER = "demo"
DEMO_AGENT = "demo-agent"
MINT_COMMAND = f".venv/bin/python manage.py issue_api_key --user {DEMO_USER} --agent {DEMO_AGENT}"


class Command(BaseCommand):
    help = "Make sure the demo user and agent exist; on first run print the login, password and an API key."

    def handle(self, *args: Any, **options: Any) -> None:
        password = secrets.token_urlsafe(12)
        # The demo user is an operator too, so the admin works out of the box on a local install.
        user, created = services.user_ensure(username=DEMO_USER, password=password, is_superuser=True)
        agent, _ = services.agent_ensure(owner=user, name=DEMO_AGENT)
        if created:
            issued = services.api_key_issue(agent=agent, name="demo")
            self.stdout.write(
                "\n".join(
                    [
                        "",
                        "  Demo account created (shown once — keep it):",
                        f"    login:    {DEMO_USER}",
                        f"    password: {password}",
                        f"    agent:    {DEMO_AGENT}",
                        f"    API key:  {issued.raw_key}",
                        "",
                    ]
                )
            )
        else:
            self.stdout.write(
                f"  Demo user '{DEMO_USER}' exists (its password was printed on first run; reset it with "
                f"`.venv/bin/python manage.py changepassword {DEMO_USER}`).\n"
                f"  Mint a new API key for '{DEMO_AGENT}' with: {MINT_COMMAND}"
            )
