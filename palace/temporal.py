"""Dates in a query, read against a reference time in the owner's timezone.

`parse(query, reference)` returns the time the query is about — a window `[start, end)` such as
"last Saturday" (that whole day in the owner's timezone), "two weeks ago" (that week, give or take),
"in March" (the latest March not after the reference) — or a recency cue ("latest", "currently",
"these days") when the query wants the newest memories, or None for a time-neutral query, which then
gets no temporal effect at all.

Drawers are scored on when the thing happened (`Drawer.occurred_at`: the turn's own time, or its
conversation's start), never on when Loci recorded it (`created_at`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = "january february march april may june july august september october november december".split()
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_NUMBERS = (
    {"a": 1, "an": 1}
    | {word: n for n, word in enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1)}
    | {"a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 4}
)
_NUMBER = (
    r"(\d+|a couple of|a couple|couple of|a few|few|several|an?"
    r"|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)
_DAY = "|".join(_DAYS)
_MONTH = "|".join([*_MONTHS, *_MONTH_ABBR])

_AGO = re.compile(rf"\b{_NUMBER}\s+(day|week|month|year)s?\s+(?:ago|back|before now)\b", re.I)
_PAST_N = re.compile(rf"\b(?:past|last|previous)\s+{_NUMBER}\s+(day|week|month|year)s?\b", re.I)
_LAST_DAY = re.compile(rf"\b(last|this|past|on)\s+({_DAY})\b", re.I)
_LAST_UNIT = re.compile(r"\b(last|this|past|previous)\s+(week|weekend|month|year)\b", re.I)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I)
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b(?:,?\s+(\d{{4}}))?", re.I)
_IN_MONTH = re.compile(
    rf"\b(in|during|since|back in|of|early|late|mid|last|this past)\s+({_MONTH})\b(?:\s+(\d{{4}}))?", re.I
)
_ISO = re.compile(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b")
_YEAR = re.compile(r"\bin\s+((?:19|20)\d{2})\b", re.I)
_SIMPLE = re.compile(r"\b(yesterday|today|tonight|this morning|last night|the day before yesterday)\b", re.I)
_RECENCY = re.compile(
    r"\b(latest|most recent(?:ly)?|recently|currently|current|nowadays|these days|right now|now|lately|"
    r"still|anymore|any more|so far|at the moment|updated?|newest|last time)\b",
    re.I,
)

_DATES = (_AGO, _PAST_N, _LAST_DAY, _LAST_UNIT, _MONTH_DAY, _DAY_MONTH, _IN_MONTH, _ISO, _YEAR, _SIMPLE)
# What a question names when it asks only for a time: "What did we talk about in early May?".
SAYING = frozenset("talk talked talking discuss discussed discussing chat chatted chatting share shared".split())


def without_dates(query: str) -> str:
    """The query with the dates it names taken out ("What did I tell you in October?" -> "What did I tell
    you ?"): what else it asks about."""
    for pattern in _DATES:
        query = pattern.sub(" ", query)
    return query


# A question about the order of events or the time between them spans them all: "the most recent" in
# "from the first to the most recent" asks for no recency.
_SPANNING = re.compile(
    r"\b(in (?:chronological |what )?order|chronologic(?:al|ally)|from (?:the )?(?:first|earliest|oldest)|"
    r"order (?:these|those|them|of (?:the|these|those|my|events))|what (?:is|was) the order|"
    r"(?:which|what|who)(?: \w+){0,3} (?:came|happened|occurred|did (?:i|we) \w+) (?:first|earlier)|"
    r"before or after|between (?:the|my) .+ and)\b",
    re.I,
)


def spanning(text: str) -> bool:
    """Whether a question is about the order of events or the time between them."""
    return bool(_SPANNING.search(text))


# "What am I collecting these days?" gathers months of conversations, not last week's: with 30 days a
# recency query's older evidence lost up to 0.3 to the newest chat on a neighbouring subject. 60 to 365
# days gave the same dev and hard-case figures (hard multi-session 0.759 -> 0.793, knowledge-update kept
# at 1.000: the newer fact still wins); 90 is the low end of that range (bench README, longmemeval).
RECENCY_HALF_LIFE_DAYS = 90.0
# "Where do I live now?", "my current job": how things stand, which the newest statement says; a move three
# weeks later must win over the old address, where 90 days parted them by 0.05 of the fused score.
STATE_WORDS = frozenset(
    "now currently current right now at the moment still anymore any more latest most recent most recently "
    "newest updated update nowadays".split()
) | {"right now", "at the moment", "any more", "most recent", "most recently"}
STATE_HALF_LIFE_DAYS = 30.0  # dev and hard-case figures identical at 7, 14, 30 and 90 (bench README)


@dataclass(frozen=True)
class TimeWindow:
    start: datetime
    end: datetime
    label: str

    def fit(self, moment: datetime) -> float:
        """1 inside the window, falling off outside it over a distance of the window's own width
        (at least a day): a day off from "last Saturday" still counts for something, a month does not."""
        if self.start <= moment < self.end:
            return 1.0
        distance = (self.start - moment) if moment < self.start else (moment - self.end)
        scale = max(self.end - self.start, timedelta(days=1))
        return math.exp(-distance / scale)


@dataclass(frozen=True)
class Recency:
    reference: datetime
    label: str

    def fit(self, moment: datetime) -> float:
        """Newer is better: halves every RECENCY_HALF_LIFE_DAYS before the reference time, or every
        STATE_HALF_LIFE_DAYS for a question about how things stand now ("where do I live now?")."""
        age_days = max((self.reference - moment).total_seconds() / 86400, 0.0)
        half_life = STATE_HALF_LIFE_DAYS if self.label in STATE_WORDS else RECENCY_HALF_LIFE_DAYS
        return 0.5 ** (age_days / half_life)


def _day(local: date, tz: ZoneInfo, days: int = 1) -> tuple[datetime, datetime]:
    start = datetime.combine(local, time.min, tzinfo=tz)
    return start, datetime.combine(local + timedelta(days=days), time.min, tzinfo=tz)


def _month(year: int, month: int, tz: ZoneInfo) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=tz)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=tz)
    return start, end


def _month_number(word: str) -> int:
    word = word.lower().rstrip(".")
    return _MONTHS.index(word) + 1 if word in _MONTHS else _MONTH_ABBR[word[:4] if word == "sept" else word[:3]]


def _latest_month(month: int, today: date) -> int:
    """The year of the latest such month not after today ("in March", asked in May 2024 → 2024)."""
    return today.year if month <= today.month else today.year - 1


def _span(unit: str, count: int) -> timedelta:
    return {
        "day": timedelta(days=count),
        "week": timedelta(weeks=count),
        "month": timedelta(days=30 * count),
        "year": timedelta(days=365 * count),
    }[unit]


def parse(query: str, reference: datetime, timezone_name: str = "UTC") -> TimeWindow | Recency | None:
    """The first date expression the query holds, as a window in the owner's timezone; else a recency
    cue; else None."""
    tz = ZoneInfo(timezone_name)
    now = reference.astimezone(tz)
    today = now.date()
    text = query.lower()

    if match := _SIMPLE.search(text):
        word = match.group(1)
        offset = {"yesterday": 1, "last night": 1, "the day before yesterday": 2}.get(word, 0)
        return TimeWindow(*_day(today - timedelta(days=offset), tz), word)
    if match := _AGO.search(text):
        count, unit = _NUMBERS.get(match.group(1), None) or int(match.group(1)), match.group(2).lower()
        centre = now - _span(unit, count)
        # "two weeks ago" is that week, give or take; "3 days ago" that day.
        half = {
            "day": timedelta(hours=12),
            "week": timedelta(days=4),
            "month": timedelta(days=15),
            "year": timedelta(days=182),
        }[unit]
        if unit == "day":
            return TimeWindow(*_day(centre.date(), tz), match.group(0))
        return TimeWindow(centre - half, centre + half, match.group(0))
    if match := _PAST_N.search(text):
        count, unit = _NUMBERS.get(match.group(1), None) or int(match.group(1)), match.group(2).lower()
        return TimeWindow(now - _span(unit, count), now, match.group(0))
    if match := _LAST_DAY.search(text):
        which, weekday = match.group(1).lower(), _DAYS.index(match.group(2).lower())
        back = (today.weekday() - weekday) % 7
        if which in ("last", "past") and back == 0:
            back = 7  # "last Saturday" asked on a Saturday is a week ago
        return TimeWindow(*_day(today - timedelta(days=back), tz), match.group(0))
    if match := _LAST_UNIT.search(text):
        which, unit = match.group(1).lower(), match.group(2).lower()
        this = which == "this"
        if unit in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday()) - timedelta(weeks=0 if this else 1)
            if unit == "weekend":
                return TimeWindow(*_day(monday + timedelta(days=5), tz, days=2), match.group(0))
            return TimeWindow(*_day(monday, tz, days=7), match.group(0))
        if unit == "month":
            year, month = (
                (today.year, today.month)
                if this
                else ((today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12))
            )
            return TimeWindow(*_month(year, month, tz), match.group(0))
        year = today.year if this else today.year - 1
        return TimeWindow(datetime(year, 1, 1, tzinfo=tz), datetime(year + 1, 1, 1, tzinfo=tz), match.group(0))
    if match := _ISO.search(text):
        try:
            day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            day = None
        if day is not None:
            return TimeWindow(*_day(day, tz), match.group(0))
    for pattern, day_group, month_group in ((_MONTH_DAY, 2, 1), (_DAY_MONTH, 1, 2)):
        if match := pattern.search(text):
            month = _month_number(match.group(month_group))
            year = int(match.group(3)) if match.group(3) else _latest_month(month, today)
            try:
                day = date(year, month, int(match.group(day_group)))
            except ValueError:
                continue
            if not match.group(3) and day > today:
                day = day.replace(year=day.year - 1)
            return TimeWindow(*_day(day, tz), match.group(0))
    if match := _IN_MONTH.search(text):
        month = _month_number(match.group(2))
        year = int(match.group(3)) if match.group(3) else _latest_month(month, today)
        if match.group(1).lower() == "last" and not match.group(3) and (year, month) == (today.year, today.month):
            year -= 1  # "last October", said in October: the one a year ago
        return TimeWindow(*_month(year, month, tz), match.group(0))
    if match := _YEAR.search(text):
        year = int(match.group(1))
        return TimeWindow(datetime(year, 1, 1, tzinfo=tz), datetime(year + 1, 1, 1, tzinfo=tz), match.group(0))
    if (match := _RECENCY.search(text)) and not _SPANNING.search(text):
        return Recency(now, match.group(1).lower())
    return None


SAID_SCAN = 2000  # characters of a turn read for the date it speaks of
# Words without which a text names no date parse() reads: a substring test (C speed) spares the patterns.
_DATE_WORDS = (
    "yesterday", "today", "tonight", "night", " ago", "last ", "past ", "previous ", "week", "month", "year",
    *_MONTHS, *_DAYS,
)  # fmt: skip


def fit_of(
    when: TimeWindow | Recency, moment: datetime, text: str, timezone_name: str = "UTC", *, own: bool = True
) -> float:
    """How well a drawer said at `moment` fits the time a query is about: by when it was said, or, for a window
    and the person's `own` turn, by the date the turn itself speaks of, read against when it was said ("I
    ordered the paints online last month", said on August 15, is about July), the better of the two. That date
    counts only when it is about as narrow as the query's window: "this year" says nothing of "last month"."""
    fit = when.fit(moment)
    if not own or not isinstance(when, TimeWindow) or fit == 1.0:
        return fit
    lowered = text[:SAID_SCAN].lower()
    if not any(word in lowered for word in _DATE_WORDS) and not re.search(r"\d", lowered):
        return fit
    said = parse(lowered, moment, timezone_name)
    if not isinstance(said, TimeWindow):
        return fit
    if said.end - said.start > max(when.end - when.start, timedelta(days=1)) * 1.5:
        return fit
    return max(fit, when.fit(said.start + (said.end - said.start) / 2))
