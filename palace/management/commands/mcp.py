"""`manage.py mcp --key KEY`: the MCP server over stdio, for local clients that spawn it."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from accounts.services import api_key_authenticate
from memory_site.api.authentication import MESSAGE_INVALID_KEY
from memory_site.mcp_server.protocol import Caller, handle, parse_error

logger = logging.getLogger(__name__)

MESSAGE_KEY_REVOKED = "The API key was revoked; restart with a valid --key."


def _host() -> str:
    # Internal requests carry a Host Django accepts; nothing is fetched from it.
    return next((host for host in settings.ALLOWED_HOSTS if host != "*" and not host.startswith(".")), "localhost")


class Command(BaseCommand):
    help = "Serve MCP over stdio (newline-delimited JSON-RPC) as the agent of an API key."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--key", required=True, help="An agent's API key, as for Authorization: Bearer.")

    def handle(self, *args: Any, key: str, **options: Any) -> None:
        if api_key_authenticate(raw_key=key) is None:
            raise CommandError(MESSAGE_INVALID_KEY)
        host = _host()
        # stdout is the protocol channel: only JSON-RPC goes there (logging writes to stderr).
        for line in sys.stdin:
            if not line.strip():
                continue
            # Checked on each message (a cached lookup) so revoking the key ends this session's access too.
            found = api_key_authenticate(raw_key=key)
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                self._send(parse_error())
                continue
            if found is None:
                request_id = message.get("id") if isinstance(message, dict) else None
                self._send(
                    {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32001, "message": MESSAGE_KEY_REVOKED}}
                )
                continue
            try:
                answer = handle(message, Caller(owner=found.api_key.agent.owner, api_key=found.api_key, host=host))
            except Exception:  # one failed message must not end the session for the client
                logger.exception("mcp: a message failed")
                request_id = message.get("id") if isinstance(message, dict) else None
                answer = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": "Internal error."}}
            if answer is not None:
                self._send(answer)

    @staticmethod
    def _send(answer: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
