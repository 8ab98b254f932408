"""Identity: a user owns a palace; agents act for their owner and authenticate with API keys."""

from __future__ import annotations

import uuid
import zoneinfo
from typing import TypedDict

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class AgentConfig(TypedDict, total=False):
    recall_disabled: bool
    mining_paused: bool


class Agent(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agents")
    name = models.CharField(max_length=100)
    description = models.CharField(max_length=500, blank=True, default="")
    config = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="agent_unique_name_per_owner")]
        ordering = ["owner_id", "name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.owner})"

    @property
    def recall_disabled(self) -> bool:
        return bool(self.config.get("recall_disabled", False))

    @property
    def mining_paused(self) -> bool:
        """Its conversations are stored but not mined until this is turned off again."""
        return bool(self.config.get("mining_paused", False))


class ApiKey(models.Model):
    """An agent's API key. Only a SHA-256 of the key is stored (keys are 256-bit random, so a fast hash
    is enough: there is nothing to brute-force); `prefix` identifies it for display and revocation."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100, blank=True, default="")
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.agent.name})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


def validate_timezone(value: str) -> None:
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationError(f"{value!r} is not a known time zone (use an IANA name such as Europe/Paris).") from None


class MemorySettings(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_settings")
    enabled = models.BooleanField(default=True, help_text="Off: nothing is mined, recalled or persisted.")
    top_k = models.PositiveSmallIntegerField(default=5, validators=[MinValueValidator(1), MaxValueValidator(50)])
    use_rerank = models.BooleanField(default=False)
    rerank_model = models.CharField(max_length=200, blank=True, default="")
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    auto_mine = models.BooleanField(default=True, help_text="Mine a conversation when it is marked complete.")
    timezone = models.CharField(max_length=64, default="UTC", validators=[validate_timezone])
    monthly_budget_usd = models.DecimalField(
        "monthly budget (USD)",
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
        help_text="Paid LLM and embedding calls per calendar month (UTC). Empty: the default "
        "(MEMORY_MONTHLY_BUDGET_USD). Over it, LLM work takes the offline path.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "memory settings"
        verbose_name_plural = "memory settings"

    def __str__(self) -> str:
        return f"memory settings of {self.user}"


class UsageRecord(models.Model):
    """One embedding or LLM call, metered per owner and source."""

    class Source(models.TextChoices):
        EMBED = "memory_embed"
        EXTRACT = "memory_extract"
        SUMMARIZE = "memory_summarize"
        RERANK = "memory_rerank"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="usage_records")
    source = models.CharField(max_length=40, choices=Source.choices)
    provider = models.CharField(max_length=40)
    model = models.CharField(max_length=200)
    items = models.PositiveIntegerField(default=1)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    succeeded = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "source", "created_at"], name="usage_owner_source_time")]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.source} {self.model} x{self.items}"


class ExclusionRule(models.Model):
    """Text that must never become memory: mining skips a turn any of its owner's rules match, before
    extraction and embedding. The matching itself lives in palace/exclusions.py."""

    class Kind(models.TextChoices):
        WORD = "word"  # whole word, case-insensitive
        PHRASE = "phrase"  # case-insensitive, on word boundaries, any run of whitespace between words
        REGEX = "regex"  # Python syntax, validated and run with bounds (palace/exclusions.py)

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="exclusion_rules")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    pattern = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "kind", "pattern"], name="exclusion_unique_per_owner"),
        ]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind}: {self.pattern}"
