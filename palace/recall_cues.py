"""What recall reads in the words themselves, beside the signals: whether a query is about the person
("what have I …"), the "my …" phrases that find the person saying them, the members of a class of the
person's own people or animals a query asks about ("which relatives have I mentioned?"), and turns that say
nothing (a bare greeting or thanks)."""

from __future__ import annotations

import re
from typing import Any

# A question about the person ("what have I …", "my sister") is answered by what they said.
FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|me|my|mine|myself)\b", re.I)
# "my sister", "my workout routine": what the person owns or relates to, in their own words.
_MY_PHRASE = re.compile(r"\bmy ((?:[a-z]+ ){0,2}[a-z]{3,})\b", re.I)
# A turn that is only a greeting, thanks or assent ("hi", "Thanks!", "ok, sounds good"): nothing to recall.
PHATIC = re.compile(
    r"\W*(?:(?:hi|hello|hey|heya|hiya|yo|thanks|thank|you|thx|ty|ok|okay|k|sure|yes|yeah|yep|no|nope|bye|goodbye|"
    r"great|cool|nice|good|morning|evening|afternoon|night|there|cheers|alright|awesome|perfect|got|it|sounds|"
    r"that|lol|wow|oh|ah|hmm|please|welcome|much|so|very|all|again)\W*){1,6}",
    re.I,
)


# A question about a class of the person's own people or animals ("which relatives have I mentioned?", "my
# family", "my pets") is answered by every "my niece", "my brother", "my dog" they said, named or not: the
# class word is in none of those turns. Kinship and pets are closed classes, listed here whole; so are the
# common kinds of exercise, which a person names without "my" ("I've been doing yoga", "went for a run").
KIN = (
    "sister|sisters|brother|brothers|sibling|siblings|mom|mum|mother|dad|father|parents|niece|nephew|cousin|"
    "cousins|aunt|uncle|grandma|grandmother|grandpa|grandfather|grandparents|grandson|granddaughter|son|"
    "daughter|kids|children|wife|husband|sister-in-law|brother-in-law|mother-in-law|father-in-law|in-laws|"
    "stepmom|stepdad|stepsister|stepbrother"
)
PETS = "dog|dogs|cat|cats|puppy|kitten|hamster|parrot|rabbit|bunny|guinea pig|turtle|tortoise|lizard|gecko|horse|fish"
EXERCISE = (
    "yoga|pilates|barre|running|run|runs|jog|jogging|cycling|biking|bike ride|bike rides|spin class|swimming|swim|"
    "hiking|hike|hikes|gym|weightlifting|weight lifting|lifting weights|strength training|crossfit|zumba|hiit|"
    "boxing|kickboxing|martial arts|karate|tennis|basketball|soccer|volleyball|climbing|bouldering|rowing|"
    "dance class|dance classes|treadmill|elliptical|marathon|half marathon|5k|10k|triathlon|stretching|workout|"
    "workouts"
)
# Classes, courses, workshops and lessons are one thing asked about in many words ("what classes am I taking?"
# is answered by "a pottery workshop", "my Spanish lessons", "a course on Coursera").
LEARNING = (
    "class|classes|(?<!of )course|courses|workshop|workshops|lesson|lessons|tutorial|tutorials|seminar|seminars|"
    "webinar|webinars|bootcamp|masterclass|certification|certificate|training"
)  # not "of course"
# (the question's class words, the members, whether the person names them as theirs: "my niece")
CLASSES = (
    (re.compile(r"\b(relatives?|family members?|famil(?:y|ies)|kin)\b", re.I), KIN, True),
    (re.compile(r"\b(pets?)\b", re.I), PETS, True),
    (re.compile(r"\b(exercis(?:e|es|ing)|physical activit(?:y|ies)|fitness|sports?)\b", re.I), EXERCISE, False),
    (re.compile(r"\b(class(?:es)?|courses?|workshops?|lessons?)\b", re.I), LEARNING, False),
)


def class_asked(query: str) -> tuple[str, str, bool] | None:
    """(the class word as the query writes it, its members as a regex alternation, whether they are named
    as the person's own) for a query about one of CLASSES, else None."""
    for pattern, members, owned in CLASSES:
        match = pattern.search(query)
        if match:
            return match.group(1), members, owned
    return None


def members_said(members: str, owned: bool = True) -> re.Pattern[str]:
    """The person naming a member of a class: as theirs ("my niece", "my older brother", "our cat"), or
    anywhere in their turn ("a yoga class")."""
    if not owned:
        return re.compile(rf"\b(?:{members})\b", re.I)
    return re.compile(rf"\b(?:my|our)\s+(?:(?:older|younger|little|big|baby|twin|step|late)\s+)?(?:{members})\b", re.I)


# A turn that sets the assistant a task ("Write me a script …", "Offer grammatical edits on …", "Contrast X with
# Y"): an instruction, not the person saying something about themselves.
TASK = re.compile(
    r"\W*(?:please\s+)?(?:write|rewrite|draft|create|generate|compose|summari[sz]e|translate|explain|describe|"
    r"list|give me|offer|contrast|compare|edit|proofread|correct|act as|pretend|imagine|continue|expand|"
    r"outline|paraphrase|convert|design|provide|suggest (?:a|an|some|\d+)|make (?:a|an|me))\b",
    re.I,
)


def own_words(query: str) -> re.Pattern[str] | None:
    """The query's "my …" phrases (up to three words, the last a noun-like word), as a pattern that
    finds the person saying them: "my sister" in "a gift for my sister's birthday"; for a question about
    the person's relatives or pets, any of them ("my niece")."""
    phrases: set[str] = set()
    asked = class_asked(query)
    if asked is not None and asked[2]:
        phrases.update(asked[1].split("|"))
    for match in _MY_PHRASE.finditer(query):
        words = match.group(1).lower().split()
        phrases.update(" ".join(words[:n]) for n in range(1, len(words) + 1) if len(words[n - 1]) >= 3)
    if not phrases:
        return None
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"\bmy (?:{alternatives})\b", re.I)


def words_matched(row: dict[str, Any], said_member: re.Pattern[str] | None, class_lexemes: list[str]) -> list[str]:
    """The query lexemes a candidate holds; the class word's ("relatives") when, and only when, it names a
    member ("my niece"): the word's stem is also another word's ("relat" in "it relates to")."""
    matched = [lexeme for lexeme in row.get("matched", ()) if lexeme not in class_lexemes]
    if said_member is not None and said_member.search(row["content"]):
        matched += class_lexemes
    return matched
