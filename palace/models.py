"""The memory palace: conversations in (verbatim), mining jobs (an outbox), and the palace itself —
wings (subjects) → rooms (time-slices, typically a conversation) → closets (topics) → drawers (one
verbatim turn each) — with the AAAK numbering and the temporal knowledge graph."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import models

from memory_site.models import Created, Embedded, SearchableText, Timestamped, embedding_hnsw_index, search_gin_index


class Conversation(Timestamped):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    external_id = models.CharField(max_length=256, help_text="The agent's own conversation id, unique per owner.")
    title = models.CharField(max_length=300, blank=True, default="")
    user_id = models.CharField(max_length=200, blank=True, default="", help_text="The end user.")
    started_at = models.DateTimeField()
    complete = models.BooleanField(default=False)
    turn_count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "external_id"], name="conversation_unique_per_owner")]

    def __str__(self) -> str:
        return self.external_id


class Turn(models.Model):
    """One posted message, byte for byte as it came."""

    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        SYSTEM = "system"
        TOOL = "tool"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    index = models.PositiveIntegerField()
    role = models.CharField(max_length=10, choices=Role.choices)
    content = models.TextField()
    timestamp = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # True from the POST until mining files the turn as a drawer (or an exclusion rule keeps it out).
    # Recall reads pending turns by full text, so a turn is findable as soon as its POST returns, not
    # only once the worker has got through the backlog in front of it (palace/pending.py).
    pending = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["conversation", "index"], name="turn_unique_index")]
        ordering = ["conversation_id", "index"]
        indexes = [
            # Only the turns waiting for the miner: a backlog's worth of rows, whatever the table's size.
            GinIndex(
                SearchVector("content", config="english"), condition=models.Q(pending=True), name="turn_pending_text"
            )
        ]

    def __str__(self) -> str:
        return f"{self.conversation_id}#{self.index} {self.role}"


class MiningJob(models.Model):
    """A request to mine a conversation, written in the same transaction as the turns it covers.

    It is also the outbox: `enqueued_at` stays null until the broker has taken the task, and the
    `requeue_pending` beat job re-sends jobs that are still queued a minute later (the broker was down)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="mining_jobs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    ready = models.BooleanField(
        default=False, help_text="Run it now: the conversation is complete (auto-mine) or mining was asked for."
    )
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    requested_at = models.DateTimeField(auto_now_add=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # The outbox scan: WHERE status = 'queued' AND ready AND requested_at < now() - interval.
        indexes = [models.Index(fields=["status", "ready", "requested_at"], name="miningjob_outbox")]

    def __str__(self) -> str:
        return f"mine {self.conversation_id} [{self.status}]"


class PalaceCounter(models.Model):
    """Per-owner numbering for AAAK pointers (W-042/R-11/D-007): numbers only grow, so a pointer is
    never reused after a delete. Taken with UPDATE … RETURNING, which locks the row for the moment."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10)  # wing, room, drawer
    value = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "kind"], name="palace_counter_unique")]

    def __str__(self) -> str:
        return f"{self.kind} {self.value}"


class Wing(models.Model):
    class Kind(models.TextChoices):
        PERSON = "person"
        PROJECT = "project"
        TOPIC = "topic"
        AGENT = "agent"
        PLACE = "place"
        ORGANISATION = "organisation"  # companies, brands, schools, teams, apps
        WORK = "work"  # books, shows, films, podcasts, songs, named events

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=12, choices=Kind.choices)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    aliases = models.JSONField(default=list, blank=True, help_text="Lower-cased names that mean this wing.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "slug"], name="wing_unique_slug"),
            models.UniqueConstraint(fields=["owner", "number"], name="wing_unique_number"),
        ]
        # find_named: aliases @> '["name"]'.
        indexes = [GinIndex(fields=["aliases"], name="wing_aliases_gin")]

    def __str__(self) -> str:
        return f"W-{self.number:03d} {self.name}"


class Room(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    wing = models.ForeignKey(Wing, on_delete=models.CASCADE, related_name="rooms")
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.CASCADE, related_name="rooms"
    )
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=300)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField()
    linked_wings = models.ManyToManyField(
        Wing, blank=True, related_name="linked_rooms", help_text="Other subjects this room mentions."
    )
    keyphrases = models.JSONField(
        default=list,
        blank=True,
        help_text="The conversation's top key phrases, normalised: where recurring topics are found.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "number"], name="room_unique_number"),
            models.UniqueConstraint(fields=["conversation"], name="room_unique_conversation"),
        ]
        # Recurring topics: the owner's rooms whose keyphrases ?| array[the new room's phrases].
        indexes = [GinIndex(fields=["keyphrases"], name="room_keyphrases_gin")]

    def __str__(self) -> str:
        return f"R-{self.number:02d} {self.title}"


class Closet(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="closets")
    position = models.PositiveIntegerField(help_text="Order of the topic within the room.")
    topic = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["room", "position"], name="closet_unique_position")]

    def __str__(self) -> str:
        return self.topic


class Drawer(SearchableText, Embedded, Created):
    """One verbatim turn. (conversation, turn_index) is unique: mining twice writes nothing new."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="drawers")
    closet = models.ForeignKey(Closet, on_delete=models.CASCADE, related_name="drawers")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="drawers")
    turn_index = models.PositiveIntegerField()
    number = models.PositiveIntegerField()
    role = models.CharField(max_length=10)
    content = models.TextField()
    occurred_at = models.DateTimeField()
    aaak = models.CharField(max_length=40, help_text="§ W-042/R-11/D-007")
    tags = models.JSONField(
        default=dict, blank=True, help_text='{"p": [...], "l": [...], "e": [...], "i": [...], "t": [...]}'
    )
    search_text = models.TextField(blank=True, default="", help_text="content and tags, for full-text search")
    stated_preference = models.BooleanField(
        default=False, help_text="A user turn that states a preference (I prefer / love / usually …)."
    )
    pinned = models.BooleanField(default=False, help_text="Always a recall candidate, and boosted when relevant.")
    never_recall = models.BooleanField(
        default=False, help_text="Kept and browsable, never returned by recall or context assembly."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["conversation", "turn_index"], name="drawer_unique_turn"),
            models.UniqueConstraint(fields=["owner", "number"], name="drawer_unique_number"),
        ]
        indexes = [
            models.Index(fields=["owner", "-occurred_at"], name="drawer_owner_recent"),
            # Recall: ORDER BY embedding <=> :query, owner-filtered (iterative scan).
            embedding_hnsw_index(name="drawer_embedding_hnsw"),
            # Recall: search_vector @@ websearch_to_tsquery('english', :query).
            search_gin_index(name="drawer_search_gin"),
            # Recall adds the owner's pinned drawers to every query's candidates: a handful of rows, so a
            # partial index keeps that lookup one small index scan whatever the owner's size.
            models.Index(fields=["owner"], condition=models.Q(pinned=True), name="drawer_owner_pinned"),
        ]

    def __str__(self) -> str:
        return self.aaak


class Passage(Embedded, Created):
    """One sentence of a user turn, embedded on its own (palace/passages.py says which). A person tells
    a fact in passing inside a turn about something else ("…by the way, I returned the boots"); the
    turn's one vector is about the something else, the sentence's is about the fact. Recall's semantic
    signal is a drawer's best similarity over its own vector and its passages'. Derived from the
    drawer's text: deleted with it, never exported, rebuilt by `manage.py passages`."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    drawer = models.ForeignKey(Drawer, on_delete=models.CASCADE, related_name="passages")
    position = models.PositiveSmallIntegerField(help_text="The sentence's place among the drawer's passages.")
    text = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["drawer", "position"], name="passage_unique_position")]
        indexes = [
            # Recall: ORDER BY embedding <=> :query, owner-filtered (iterative scan), beside the drawers'.
            embedding_hnsw_index(name="passage_embedding_hnsw"),
        ]

    def __str__(self) -> str:
        return f"{self.drawer_id}#{self.position}"


class PreferenceTopic(models.Model):
    """A topic or name the user keeps coming back to: counted in distinct rooms (conversations) whose
    user turns mention it, updated by mining. Recall's preference signal reads it."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    term = models.CharField(max_length=200)
    rooms = models.PositiveIntegerField(default=0, help_text="Conversations whose user turns mention it.")
    stated = models.PositiveIntegerField(default=0, help_text="Times the user stated a preference about it.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "term"], name="preference_topic_unique")]

    def __str__(self) -> str:
        return f"{self.term} ({self.rooms} rooms)"


class PreferenceMention(models.Model):
    """A room whose user turns mention a topic: `PreferenceTopic.rooms` counts these, so a conversation
    mined again or appended to is never counted twice."""

    topic = models.ForeignKey(PreferenceTopic, on_delete=models.CASCADE, related_name="mentions")
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["topic", "room"], name="preference_mention_unique")]

    def __str__(self) -> str:
        return f"{self.topic_id} in {self.room_id}"


class DrawerRead(models.Model):
    """An agent received a drawer in a recall or a context block. Written in batches off the request
    path (palace/services/reads.py); the id is the record's own uuid, so a batch flushed twice adds
    nothing."""

    class Source(models.TextChoices):
        RECALL = "recall", "Recall"
        CONTEXT = "context", "Context assembly"

    id = models.UUIDField(primary_key=True, editable=False)
    drawer = models.ForeignKey(Drawer, on_delete=models.CASCADE, related_name="reads")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    source = models.CharField(max_length=10, choices=Source.choices)
    query = models.CharField(max_length=300, blank=True, default="", help_text="The query, cut to 300 characters.")
    created_at = models.DateTimeField(help_text="When it was read (not when the batch was written).")

    class Meta:
        indexes = [models.Index(fields=["drawer", "-created_at"], name="drawer_read_recent")]

    def __str__(self) -> str:
        return f"{self.drawer_id} read by {self.agent_id} ({self.source})"


class ActivityEvent(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        "accounts.Agent",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The agent whose call caused it; null for the person's own actions.",
    )
    kind = models.CharField(max_length=40)  # memory_mined, drawer_pinned, drawer_never_recall, …
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="activity_owner_recent"),
            # GET /api/v1/activity?agent=…: one agent's events, newest first.
            models.Index(fields=["owner", "agent", "-created_at"], name="activity_owner_agent_recent"),
        ]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} {self.created_at:%Y-%m-%d %H:%M}"


class Entity(models.Model):
    """Something the knowledge graph knows about: a person, project, place, item or event."""

    class Kind(models.TextChoices):
        PERSON = "person"
        PROJECT = "project"
        PLACE = "place"
        ORGANISATION = "organisation"
        WORK = "work"
        ITEM = "item"
        EVENT = "event"
        THING = "thing"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.THING)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    aliases = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "entities"
        constraints = [models.UniqueConstraint(fields=["owner", "slug"], name="entity_unique_slug")]
        # find_named / ensure_many: aliases @> '["name"]', aliases ?| array[...].
        indexes = [GinIndex(fields=["aliases"], name="entity_aliases_gin")]

    def __str__(self) -> str:
        return self.name


class Relation(models.Model):
    """subject —predicate→ object, true from valid_from until valid_to (open when null). A change
    closes the old row and opens a new one: history is never overwritten."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    subject = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="relations_out")
    predicate = models.CharField(max_length=100)
    object = models.ForeignKey(Entity, null=True, blank=True, on_delete=models.CASCADE, related_name="relations_in")
    object_value = models.CharField(max_length=500, blank=True, default="", help_text="A literal object (no entity).")
    valid_from = models.DateTimeField()
    valid_to = models.DateTimeField(null=True, blank=True)
    confidence = models.FloatField(default=1.0)
    source_drawer = models.ForeignKey(Drawer, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # Timeline and as_of: WHERE subject_id = %s [AND predicate = %s] ORDER BY valid_from.
            models.Index(fields=["subject", "predicate", "valid_from"], name="relation_subject_time"),
            models.Index(fields=["object", "valid_from"], name="relation_object_time"),
        ]

    def __str__(self) -> str:
        target = self.object.name if self.object_id and self.object else self.object_value
        return f"{self.subject} {self.predicate} {target}"


class RelationCitation(models.Model):
    """A drawer a relation was read from. A fact mined again from another turn gains a citation instead
    of a second row, so forgetting one of its drawers removes only that citation (the fact goes with its
    last one). `Relation.source_drawer` stays the first drawer, for the API's `source_drawer_id`."""

    relation = models.ForeignKey(Relation, on_delete=models.CASCADE, related_name="citations")
    drawer = models.ForeignKey(Drawer, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["relation", "drawer"], name="relation_citation_unique")]

    def __str__(self) -> str:
        return f"{self.relation_id} cites {self.drawer_id}"


class ForgetReceipt(models.Model):
    """Proof of an erasure: what was asked, what went (counts per kind), and the removed ids — ids only,
    never text — so `receipt_verify` can re-check later that none of them is back. `digest` is the
    sha256 of the sorted removed ids per kind, so a copy of the receipt can be checked against this row."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    asked = models.JSONField(default=dict, help_text='{"kind": ..., "ids": [...], "actor": agent name or "person"}')
    counts = models.JSONField(default=dict, help_text="Rows (or Redis keys) removed, per kind.")
    digest = models.CharField(max_length=64)
    removed_ids = models.JSONField(default=dict, help_text="Removed ids per kind (ids only, never text).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "-created_at"], name="forget_receipt_owner_recent")]

    def __str__(self) -> str:
        return f"forget {self.asked.get('kind', '?')} {self.created_at:%Y-%m-%d %H:%M}"
