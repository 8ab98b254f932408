"""Exclusion rules as patterns: validation, and matching bounded in length and run time.

Words and phrases are escaped and wrapped in word-boundary lookarounds, so they run in linear time and
the same pattern string works in Python and in PostgreSQL (`~*`) for previews. Regular expressions are
the owner's own and run on a worker, so three guards keep one rule from stalling mining:

1. At creation, the parsed pattern is refused if it has the shapes that backtrack exponentially: a
   quantifier inside a quantified group (`(a+)+`), an alternation inside one (`(a|ab)*`), a
   backreference; and more than MAX_UNBOUNDED unbounded quantifiers (polynomial blow-up).
2. Text is searched in windows of WINDOW characters (overlapping by OVERLAP), so even a slow pattern
   works on short input; a rule is meant for a word or a number, not for a match longer than OVERLAP.
3. On the main thread (a Celery worker's task, a sync web worker) each search has a SIGALRM deadline:
   CPython's regex engine checks for signals while it backtracks. A search that runs out of time counts
   as a match: when we cannot tell, the turn is not remembered (fail closed).
"""

from __future__ import annotations

import contextlib
import logging
import re
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any

from django.contrib.auth.models import User

from accounts.models import ExclusionRule

logger = logging.getLogger(__name__)

MAX_PATTERN_LENGTH = 200
MAX_UNBOUNDED = 3
WINDOW = 2000
OVERLAP = 200
SEARCH_SECONDS = 0.2

MESSAGE_EMPTY = "The pattern is empty."
MESSAGE_TOO_LONG = f"At most {MAX_PATTERN_LENGTH} characters."
MESSAGE_WORD_HAS_SPACE = "A word rule is one word; use a phrase rule for several."
MESSAGE_REGEX_INVALID = "Not a valid regular expression: {error}."
MESSAGE_REGEX_NESTED = "Quantifiers or alternatives inside a repeated group can take exponential time."
MESSAGE_REGEX_BACKREF = "Backreferences are not allowed."
MESSAGE_REGEX_UNBOUNDED = f"At most {MAX_UNBOUNDED} unbounded quantifiers (*, +, {{n,}})."

_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, getattr(sre_constants, "POSSESSIVE_REPEAT", None)}


class PatternError(ValueError):
    """The pattern cannot be a rule; the message says why (shown to the person)."""


def literal_pattern(kind: str, text: str) -> str:
    """The regex of a word or phrase rule: whole words, any whitespace between them. Valid in Python
    and in PostgreSQL alike (lookarounds, `\\s`, `\\w`, escaped punctuation)."""
    words = text.split()
    return r"(?<!\w)" + r"\s+".join(re.escape(word) for word in words) + r"(?!\w)"


def validate(kind: str, pattern: str) -> str:
    """The pattern as stored (words and phrases trimmed), or PatternError."""
    if kind in ("word", "phrase"):
        pattern = " ".join(pattern.split())
    if not pattern.strip():
        raise PatternError(MESSAGE_EMPTY)
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(MESSAGE_TOO_LONG)
    if kind == "word" and " " in pattern:
        raise PatternError(MESSAGE_WORD_HAS_SPACE)
    if kind == "regex":
        _check_regex(pattern)
    return pattern


def _check_regex(pattern: str) -> None:
    try:
        re.compile(pattern)
        parsed = sre_parser.parse(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise PatternError(MESSAGE_REGEX_INVALID.format(error=exc)) from None
    if _walk(parsed, inside_repeat=False) > MAX_UNBOUNDED:
        raise PatternError(MESSAGE_REGEX_UNBOUNDED)


def _walk(items: Any, *, inside_repeat: bool) -> int:
    """Raises on the exponential shapes; returns how many unbounded quantifiers there are."""
    unbounded = 0
    for op, arg in items:
        if op in _REPEATS:
            _low, high, sub = arg
            repeats = high == sre_constants.MAXREPEAT or high > 1
            if repeats and inside_repeat:
                raise PatternError(MESSAGE_REGEX_NESTED)
            unbounded += int(high == sre_constants.MAXREPEAT)
            unbounded += _walk(sub, inside_repeat=inside_repeat or repeats)
        elif op in (sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS):
            raise PatternError(MESSAGE_REGEX_BACKREF)
        elif op is sre_constants.BRANCH:
            if inside_repeat:
                raise PatternError(MESSAGE_REGEX_NESTED)
            unbounded += sum(_walk(branch, inside_repeat=False) for branch in arg[1])
        elif op is sre_constants.SUBPATTERN:
            unbounded += _walk(arg[3], inside_repeat=inside_repeat)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            unbounded += _walk(arg[1], inside_repeat=inside_repeat)
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            unbounded += _walk(arg, inside_repeat=inside_repeat)
    return unbounded


def compile_rule(kind: str, pattern: str) -> re.Pattern[str]:
    source = pattern if kind == "regex" else literal_pattern(kind, pattern)
    # Words and phrases are case-insensitive; a regex says for itself (`(?i)`).
    return re.compile(source, 0 if kind == "regex" else re.IGNORECASE)


def exclusion_rule_same(*, owner: User | int, kind: str, pattern: str) -> ExclusionRule | None:
    """The owner's rule that a new `kind` rule of `pattern` would repeat, or None. A word or a phrase
    matches case-insensitively, so "Derek" repeats "derek" and "project   falcon" repeats "Project
    Falcon"; a regex only repeats itself (whether it ignores case is part of the pattern)."""
    owner_id = owner if isinstance(owner, int) else owner.pk
    rules = ExclusionRule.objects.filter(owner_id=owner_id, kind=kind).order_by("id")
    if kind == ExclusionRule.Kind.REGEX:
        return rules.filter(pattern=pattern).first()
    # Compared the way mining compares (re.IGNORECASE), not with PostgreSQL's UPPER(), which follows the
    # database's locale; an owner has at most 100 rules.
    same = compile_rule(kind, pattern)
    return next((rule for rule in rules if same.fullmatch(rule.pattern)), None)


class _OutOfTime(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only: the static checks and the window bound it here
        return

    def _expire(signum: int, frame: object) -> None:
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def windows(text: str) -> Iterator[str]:
    if len(text) <= WINDOW:
        yield text
        return
    for start in range(0, len(text) - OVERLAP, WINDOW - OVERLAP):
        yield text[start : start + WINDOW]


@dataclass(frozen=True)
class Compiled:
    rule_id: int
    regex: re.Pattern[str]
    bounded: bool  # a regex: searched with a deadline

    def matches(self, text: str) -> bool:
        if not self.bounded:
            return self.regex.search(text) is not None
        try:
            with _deadline(SEARCH_SECONDS):
                return any(self.regex.search(window) for window in windows(text))
        except _OutOfTime:
            logger.warning("exclusion rule %s ran out of time; the text is treated as excluded", self.rule_id)
            return True


def exclusion_matcher(*, owner: User | int) -> Callable[[str], ExclusionRule | None]:
    """The owner's rules compiled once (per mining run): a function giving the first rule a text
    matches, or None. Rules stored before a validation change that no longer compile are skipped."""
    owner_id = owner if isinstance(owner, int) else owner.pk
    rules = list(ExclusionRule.objects.filter(owner_id=owner_id).order_by("id"))
    compiled: list[tuple[ExclusionRule, Compiled]] = []
    for rule in rules:
        try:
            regex = compile_rule(rule.kind, rule.pattern)
        except re.error:
            logger.warning("exclusion rule %s does not compile; skipped", rule.pk)
            continue
        compiled.append((rule, Compiled(rule_id=rule.pk, regex=regex, bounded=rule.kind == ExclusionRule.Kind.REGEX)))

    def first_match(text: str) -> ExclusionRule | None:
        return next((rule for rule, c in compiled if c.matches(text)), None)

    return first_match
