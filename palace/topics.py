"""Readable topic labels for closets, and recurring topics across rooms, with no model: RAKE-like
candidate phrases (runs of content words between stop words and punctuation), scored by frequency,
user-turn weight and length, singularised for matching across conversations."""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

# Function words plus chat verbs/fillers that never head a topic ("help", "recommend", "great").
STOP = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
    now of off on once only or other our ours out over own same she should so some such than that the their them
    then there these they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours yourself i'm i've i'd i'll you're you'll it's that's don't can't
    let's there's what's etc via per he's she's he'll she'll we'll they'll we're they're we've they've he'd she'd
    we'd they'd isn't aren't wasn't weren't doesn't didn't won't wouldn't couldn't shouldn't haven't hasn't
    hadn't you've you'd
    hi hello hey thanks thank please yes no okay ok sure great good nice awesome amazing really actually
    definitely certainly absolutely probably maybe lot lots much many thing things stuff way ways something
    anything everything someone one ones time times day days week weeks month months year years today
    help tips tip ideas idea advice suggestions suggestion recommendations recommendation options option
    information info question questions answer example examples sense kind sort type types bit part
    like want need know think get got make made use used using try trying find look looking go going see
    recommend suggest consider considering remember mentioned said say tell give keep start started
    wondering planning also well still even sure new different best better important specific certain various
    first second third last next additionally however overall finally especially particularly including
    include includes may might must shall always often usually sometimes never ever already yet enough
    here's let feel free happy glad hope course
    take takes took provide provides needed include related apart uses allow allows ensure create add
    help helps helped share sharing seems seem check set work works learn learned enjoy enjoyed love loved
    able available possible easy hard
    around among within without across toward towards upon beside besides beyond behind near since though although
    unless whether onto throughout along amid despite except inside outside versus whose whereas whilst
    thinks thought finds found gets gives gave given makes knows knew known wants wanted needs looked goes
    went gone says tells told keeps kept starts tries tried sees seen remembers remembered suggests suggested
    recommends recommended considers considered mentions feels hopes hoped""".split()
)
TOKEN = re.compile(r"[^\W\d_][\w'\u2019+-]*|[.,;:!?()\[\]\"\u201c\u201d*#\n]|\d+")


E_PLURALS = frozenset("shoes canoes toes hoes oboes foes tiptoes horseshoes snowshoes".split())


def singular(word: str) -> str:
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    # "tomatoes", "boxes", "dishes", "churches" lose "es" ("shoes", "canoes", "headaches" only "s")
    if len(w) > 4 and (
        w.endswith(("sses", "shes", "xes", "zzes"))
        or (w.endswith("ches") and not w.endswith("aches"))
        or (w.endswith("oes") and w not in E_PLURALS)
    ):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def candidates(text: str, max_words: int = 3) -> list[str]:
    """Runs of 1..max_words content words (lower-cased, as written) between stop words and punctuation."""
    out: list[str] = []
    run: list[str] = []
    for token in [*TOKEN.findall(text), "."]:
        low = token.lower()
        if not token[0].isalpha() or low in STOP or len(low) < 3:
            while len(run) > 2 and run[0].endswith(("ing", "ed")):  # "incorporating strength training"
                run = run[1:]
            if run:
                out.extend(" ".join(run[i : i + max_words]) for i in range(0, len(run), max_words))
            run = []
        else:
            run.append(low)
    return out


def phrase_scores(turns: Sequence[tuple[str, str]], user_weight: float = 3.0) -> dict[str, float]:
    """Score each candidate phrase of a segment: mentions (user turns weigh `user_weight`) times a length
    bonus; a single word also counts inside longer phrases, so "jacket" supports "leather jacket"."""
    counts: dict[str, float] = defaultdict(float)
    for role, text in turns:
        weight = user_weight if role == "user" else 1.0
        for phrase in candidates(text):
            counts[phrase] += weight
    word_counts: dict[str, float] = defaultdict(float)
    for phrase, n in counts.items():
        for word in phrase.split():
            word_counts[singular(word)] += n
    scores: dict[str, float] = {}
    for phrase, n in counts.items():
        words = phrase.split()
        support = sum(word_counts[singular(w)] for w in words) / len(words)
        scores[phrase] = (n + 0.2 * support) * (1.0 + 0.6 * (len(words) - 1))
    return scores


def top_phrases(scores: Mapping[str, float], limit: int | None = None) -> list[str]:
    """Phrases by score, best first (ties: alphabetical, so a label does not change from run to run)."""
    ranked = sorted(scores, key=lambda phrase: (-scores[phrase], phrase))
    return ranked if limit is None else ranked[:limit]


def topic_label(turns: Sequence[tuple[str, str]], *, avoid: Iterable[str] = ()) -> str:
    """The closet label: the best-scoring 2-3 word phrase named at least twice, else the best phrase.
    `avoid`: entity names (a closet called "Chicago" says less than "deep dish pizza")."""
    avoided = {a.lower() for a in avoid}
    scores = phrase_scores(turns)
    ranked = [p for p in top_phrases(scores) if p not in avoided]
    counts = Counter(p for _, text in turns for p in candidates(text))
    for phrase in ranked:
        if len(phrase.split()) >= 2 and counts[phrase] >= 2:
            return phrase
    return ranked[0] if ranked else ""


def normal(phrase: str) -> str:
    """A phrase's form for matching across rooms: singular words ("kitchen cabinets" = "kitchen cabinet")."""
    return " ".join(singular(w) for w in phrase.split())


def recurring_topics(
    room_phrases: Mapping[str, Mapping[str, float]],
    *,
    min_rooms: int = 3,
    max_share: float = 0.4,
    entities: Iterable[str] = (),
    generic: frozenset[str] = frozenset(),
) -> list[tuple[str, list[str]]]:
    """Topic wings for one owner: a phrase (normalised) among the top phrases of at least `min_rooms`
    rooms, but in at most `max_share` of all rooms (a phrase everywhere is chat, not a topic), and not an
    entity. A single word counts only as the head of the room phrases that contain it ("photography"
    from "portrait photography" and "photography gear"). Returns (display name, room ids), most rooms
    first; the display name is the form most used. `generic`: singular words too common across all
    conversations to be a topic alone (a background document-frequency list shipped with the code)."""
    excluded = {normal(e.lower()) for e in entities} | set(generic)
    rooms_of: dict[str, set[str]] = defaultdict(set)
    surface: dict[str, Counter[str]] = defaultdict(Counter)
    for room, phrases in room_phrases.items():
        top = top_phrases(phrases, 15)
        seen: set[str] = set()
        for phrase in top:
            norm = normal(phrase)
            keys = {norm} | ({norm.split()[-1]} if len(norm.split()) > 1 else set())
            for k in keys - seen:
                rooms_of[k].add(room)
                surface[k][phrase if k == norm else phrase.split()[-1]] += 1
            seen |= keys
    total = max(len(room_phrases), 1)
    topics = [
        (surface[k].most_common(1)[0][0], sorted(rooms))
        for k, rooms in rooms_of.items()
        if len(rooms) >= min_rooms
        and len(rooms) / total <= max_share
        and k not in excluded
        and len(k) > 3
        and not all(w in generic for w in k.split())
    ]
    # A word topic that a phrase topic already covers with the same rooms adds nothing.
    topics.sort(key=lambda t: (-len(t[1]), -len(t[0].split()), t[0]))
    kept: list[tuple[str, list[str]]] = []
    for name, rooms in topics:
        if not any(name in other.split() and set(rooms) <= set(r) for other, r in kept):
            kept.append((name, rooms))
    return kept


@functools.cache
def generic_words() -> frozenset[str]:
    """Singular words too common in chat to be a topic alone ("experience", "service"): a background
    list of words found in more than 2% of a few thousand public assistant conversations (LongMemEval's
    haystack sessions), shipped beside this module."""
    path = Path(__file__).with_name("generic_words.txt")
    return frozenset(word.strip() for word in path.read_text().split() if word.strip())


def room_keyphrases(turns: Sequence[tuple[str, str]], *, avoid: Iterable[str] = (), limit: int = 15) -> list[str]:
    """The normalised key phrases a room is remembered by, for finding recurring topics: its top
    `limit` phrases, each also counted by its last word ("portrait photography" -> "photography"),
    minus entity names and generic words."""
    avoided = {normal(a.lower()) for a in avoid}
    keys: list[str] = []
    for phrase in top_phrases(phrase_scores(turns), limit):
        norm = normal(phrase)
        for key in (norm, norm.split()[-1]):
            if key in avoided or len(key) <= 3 or all(word in generic_words() for word in key.split()):
                continue
            keys.append(key)
    return list(dict.fromkeys(keys))
