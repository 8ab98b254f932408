"""Sample conversations for a fresh install (DESIGN §3): `make run` posts them for the demo agent on its
first run, through the same intake as the API, so /memory shows a palace from the start."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from django.contrib.auth.models import User

from accounts.models import Agent
from palace.models import ActivityEvent, Conversation
from palace.services.intake import conversation_create

CONVERSATIONS = Path(__file__).with_name("conversations.json")


def demo_conversations_add(*, owner: User, agent: Agent) -> int:
    """Post the sample conversations (complete, so they are mined) to a palace that never had any; returns
    how many. A palace with a past (a conversation, or any activity such as a deletion) is left alone, so a
    person who forgot the samples does not get them back on the next start."""
    if Conversation.objects.filter(owner=owner).exists() or ActivityEvent.objects.filter(owner=owner).exists():
        return 0
    samples = json.loads(CONVERSATIONS.read_text())
    for sample in samples:
        conversation_create(
            owner=owner,
            agent=agent,
            external_id=sample["conversation_id"],
            turns=sample["turns"],
            complete=True,
            started_at=datetime.fromisoformat(sample["started_at"]),
        )
    return len(samples)
