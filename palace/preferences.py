"""Preference patterns: what the user keeps coming back to, and what they say they like.

Two things feed recall's `preference` signal (0..1 per drawer):
- **stated**: a user turn that states a preference ("I prefer…", "I love…", "my favourite…", "I usually…")
  is marked on its drawer when it is mined (`Drawer.stated_preference`); such a drawer scores 1.
- **recurring**: mining counts, per owner, the content words and names of user turns in distinct
  conversations (`PreferenceTopic.rooms`, counted from `PreferenceMention` rows, one per topic and room,
  so a re-mined or appended conversation counts once). A drawer
  tagged with such a name, or containing such a word that the query also asks about, scores
  min(1, (rooms - 1) / 4), plus 0.25 per stated preference about it. Terms found in more than 30% of
  the owner's conversations (once it has ten) are vocabulary, not preferences, and score 0.

The signal only reorders drawers already found relevant by meaning or words; its weight is a setting.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from django.db import connection
from django.db.models import Count, Subquery

from memory_site.lib.text import content_words
from palace.models import PreferenceMention, PreferenceTopic, Room

STATED = re.compile(
    r"\bI\s+(?:really\s+|absolutely\s+|do\s+|much\s+|generally\s+)?(?:prefer|love|like|enjoy|adore|hate|dislike|"
    r"can't stand|cannot stand|am (?:really )?into|am a (?:big |huge )?fan of|tend to|usually|always|never|"
    r"am (?:a )?(?:vegetarian|vegan|allergic))\b|\bmy\s+(?:favou?rite|go-to|preferred)\b|\bI'm\s+(?:really\s+)?"
    r"(?:into|a (?:big |huge )?fan of|vegetarian|vegan|allergic)\b",
    re.IGNORECASE,
)
TERMS_PER_CONVERSATION = 40
VOCABULARY_SHARE = 0.3
MAX_TERM = 60
MIN_ROOMS_FOR_VOCABULARY = 10  # with fewer conversations, no term is called vocabulary


def states_preference(text: str) -> bool:
    return STATED.search(text) is not None


def terms_of(text: str, tags: dict[str, list[str]]) -> set[str]:
    """The terms a user turn counts for (forgetting it takes the same ones back)."""
    names = {value.lower()[:200] for key in ("p", "l", "i", "e") for value in tags.get(key, [])}
    # A word longer than MAX_TERM is a token, a key or a URL's tail, not something the person talks about.
    return {word for word in content_words(text) if 2 < len(word) <= MAX_TERM} | names


def record(*, owner_id: int, room: Room, turns: Iterable[tuple[str, str, dict[str, list[str]]]]) -> None:
    """Count the conversation's user topics (role, text, tags per turn) for the owner, once per room."""
    mentions: Counter[str] = Counter()
    stated: Counter[str] = Counter()
    for role, text, tags in turns:
        if role != "user":
            continue
        terms = terms_of(text, tags)
        mentions.update(terms)
        if states_preference(text):
            stated.update(terms)
    top = sorted(term for term, _ in mentions.most_common(TERMS_PER_CONVERSATION))
    if not top:
        return
    topics, mentioned = PreferenceTopic._meta.db_table, PreferenceMention._meta.db_table
    with connection.cursor() as cursor:
        cursor.executemany(
            f"""
            INSERT INTO {topics} (owner_id, term, rooms, stated, updated_at) VALUES (%s, %s, 0, %s, now())
            ON CONFLICT (owner_id, term) DO UPDATE SET stated = {topics}.stated + EXCLUDED.stated, updated_at = now()
            """,
            [(owner_id, term, stated[term]) for term in top],
        )
        cursor.execute(f"SELECT id FROM {topics} WHERE owner_id = %s AND term = ANY(%s)", [owner_id, top])
        ids = [row[0] for row in cursor.fetchall()]
        cursor.executemany(
            f"INSERT INTO {mentioned} (topic_id, room_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            [(topic_id, room.pk) for topic_id in ids],
        )
        cursor.execute(
            f"UPDATE {topics} SET rooms = (SELECT count(*) FROM {mentioned} m WHERE m.topic_id = {topics}.id) "
            "WHERE id = ANY(%s)",
            [ids],
        )


def recurring_scores(
    *, owner_id: int, query: str, drawers: dict[int, tuple[str, dict[str, list[str]]]]
) -> dict[int, float]:
    """The recurring part of the signal for each drawer (id -> (content, tags)): the best weight among
    the names it is tagged with and the query's words it contains."""
    query_words = {w for w in content_words(query) if len(w) > 2}
    terms: dict[int, set[str]] = {}
    for pk, (content, tags) in drawers.items():
        lowered = content.lower()
        names = {value.lower()[:200] for key in ("p", "l", "i", "e") for value in tags.get(key, [])}
        terms[pk] = names | {w for w in query_words if w in lowered}
    vocabulary = set().union(*terms.values()) if terms else set()
    if not vocabulary:
        return {}
    # One round trip: the owner's topics among these words, each row carrying the owner's room count.
    total = Room.objects.filter(owner_id=owner_id).order_by().values("owner_id").annotate(n=Count("pk")).values("n")
    found = (
        PreferenceTopic.objects.filter(owner_id=owner_id, term__in=vocabulary, rooms__gte=2)
        .annotate(total_rooms=Subquery(total[:1]))
        .values_list("term", "rooms", "stated", "total_rooms")
    )
    weights: dict[str, float] = {}
    for term, rooms, stated, total_rooms in found:
        if total_rooms >= MIN_ROOMS_FOR_VOCABULARY and rooms / total_rooms > VOCABULARY_SHARE:
            continue
        weights[term] = min(1.0, (rooms - 1) / 4 + 0.25 * stated)
    return {pk: max((weights.get(t, 0.0) for t in drawer_terms), default=0.0) for pk, drawer_terms in terms.items()}
