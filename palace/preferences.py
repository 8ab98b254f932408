"""Preference patterns: what the user keeps coming back to, and what they say they like.

Two things feed recall's `preference` signal (0..1 per drawer):
- **stated**: a user turn that states a preference ("I prefer…", "I love…", "my favourite…", "I usually…")
  is marked on its drawer when it is mined (`Drawer.stated_preference`); such a drawer scores 1.
- **recurring**: mining counts, per owner, the topics and names of user turns in distinct conversations
  (`PreferenceTopic.rooms`; a re-mined or appended conversation counts once). A drawer mentioning a
  term the user raised in several conversations scores min(1, (rooms - 1) / 4), plus 0.25 per stated
  preference about it. Terms found in more than 30% of the owner's conversations are vocabulary, not
  preferences, and score 0.

The signal only reorders drawers already found relevant by meaning or words; its weight is a setting.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from django.db import connection

from memory_site.lib.text import content_words
from palace.models import PreferenceTopic, Room

STATED = re.compile(
    r"\bI\s+(?:really\s+|absolutely\s+|do\s+|much\s+|generally\s+)?(?:prefer|love|like|enjoy|adore|hate|dislike|"
    r"can't stand|cannot stand|am (?:really )?into|am a (?:big |huge )?fan of|tend to|usually|always|never|"
    r"am (?:a )?(?:vegetarian|vegan|allergic))\b|\bmy\s+(?:favou?rite|go-to|preferred)\b|\bI'm\s+(?:really\s+)?"
    r"(?:into|a (?:big |huge )?fan of|vegetarian|vegan|allergic)\b",
    re.IGNORECASE,
)
TERMS_PER_CONVERSATION = 40
VOCABULARY_SHARE = 0.3


def states_preference(text: str) -> bool:
    return STATED.search(text) is not None


def _terms(text: str, tags: dict[str, list[str]]) -> set[str]:
    names = {value.lower()[:200] for key in ("p", "l", "i", "e") for value in tags.get(key, [])}
    return {word for word in content_words(text) if len(word) > 2} | names


def record(*, owner_id: int, room: Room, turns: Iterable[tuple[str, str, dict[str, list[str]]]]) -> None:
    """Count the conversation's user topics (role, text, tags per turn) for the owner, once per room."""
    mentions: Counter[str] = Counter()
    stated: Counter[str] = Counter()
    for role, text, tags in turns:
        if role != "user":
            continue
        terms = _terms(text, tags)
        mentions.update(terms)
        if states_preference(text):
            stated.update(terms)
    top = [term for term, _ in mentions.most_common(TERMS_PER_CONVERSATION)]
    if not top:
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            f"""
            INSERT INTO {PreferenceTopic._meta.db_table} (owner_id, term, rooms, stated, last_room_id, updated_at)
            VALUES (%s, %s, 1, %s, %s, now())
            ON CONFLICT (owner_id, term) DO UPDATE SET
                rooms = {PreferenceTopic._meta.db_table}.rooms
                    + CASE WHEN {PreferenceTopic._meta.db_table}.last_room_id IS DISTINCT FROM EXCLUDED.last_room_id
                           THEN 1 ELSE 0 END,
                stated = {PreferenceTopic._meta.db_table}.stated + EXCLUDED.stated,
                last_room_id = EXCLUDED.last_room_id,
                updated_at = now()
            """,
            [(owner_id, term, stated[term], room.pk) for term in sorted(top)],
        )


def recurring_scores(*, owner_id: int, texts: dict[int, str]) -> dict[int, float]:
    """The recurring part of the signal for each text (keyed by drawer id)."""
    words = {pk: {w for w in content_words(text) if len(w) > 2} for pk, text in texts.items()}
    vocabulary = set().union(*words.values()) if words else set()
    if not vocabulary:
        return {}
    total_rooms = Room.objects.filter(owner_id=owner_id).count()
    weights: dict[str, float] = {}
    for term, rooms, stated in PreferenceTopic.objects.filter(
        owner_id=owner_id, term__in=vocabulary, rooms__gte=2
    ).values_list("term", "rooms", "stated"):
        if total_rooms and rooms / total_rooms > VOCABULARY_SHARE:
            continue
        weights[term] = min(1.0, (rooms - 1) / 4 + 0.25 * stated)
    return {pk: max((weights.get(w, 0.0) for w in drawer_words), default=0.0) for pk, drawer_words in words.items()}
