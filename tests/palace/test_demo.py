"""`make run`'s first start gives the demo palace sample conversations, once."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts.services import user_ensure
from palace.models import Conversation, MiningJob
from palace.services.activity import activity_record

pytestmark = pytest.mark.django_db


def test_samples_are_posted_once_and_queued_for_mining() -> None:
    user, _ = user_ensure(username="demo")
    call_command("demo_palace")
    assert Conversation.objects.filter(owner=user).count() == 3
    assert MiningJob.objects.filter(owner=user, ready=True).count() == 3
    call_command("demo_palace")
    assert Conversation.objects.filter(owner=user).count() == 3


def test_a_palace_with_a_past_gets_no_samples() -> None:
    user, _ = user_ensure(username="demo")
    activity_record(owner=user, kind="memory_forgotten")
    call_command("demo_palace")
    assert not Conversation.objects.filter(owner=user).exists()
