"""Identifier rules shared by every app."""

from __future__ import annotations

import re
from typing import Final

# Conversation ids (an agent's own): 1 to 256 characters of ASCII letters, digits and . _ : @ ~ -
# (no slash, no space), so they sit safely in URLs and Redis keys.
CONVERSATION_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9._:@~-]{1,256}")
MESSAGE_BAD_CONVERSATION_ID: Final = (
    "Conversation ids are 1 to 256 characters of ASCII letters, digits and . _ : @ ~ - (no slashes or spaces)."
)


def is_valid_conversation_id(value: object) -> bool:
    return isinstance(value, str) and CONVERSATION_ID_PATTERN.fullmatch(value) is not None
