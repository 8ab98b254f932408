"""Offline room titles: the user's opening request, condensed ("Planning a trip to Chicago").
Pure regex, no model: a few microseconds per conversation."""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_WORDS = 9
GREETING = re.compile(
    r"^(?:(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening))(?: there)?\b[,!.]?\s*|"
    r"(?:so|ok(?:ay)?|well|um+|thanks?(?: you)?)[,!.]\s+)+",
    re.I,
)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# A full stop that ends an abbreviation, not a sentence: "Brown v. Board", "Dr. Patel", "St. Louis".
ABBREVIATED = re.compile(r"(?:^|\s)(?:v|vs|dr|mr|mrs|ms|st|mt|jr|sr|prof|no|vol|e\.g|i\.e|approx|[A-Z])\.$", re.I)


def sentences_of(text: str) -> list[str]:
    """The sentences and lines of `text`, a full stop after an abbreviation or an initial kept inside."""
    out: list[str] = []
    for piece in (p for p in SENTENCE.split(text.strip()) if p.strip()):
        if out and ABBREVIATED.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


# (pattern, how the rest reads). "{g}" = the rest's first verb as a gerund, "{x}" = the rest as is.
REQUESTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.I), how)
    for p, how in (
        (
            r"^i(?:'m| am) (?:looking|searching|hoping) (?:for|to find) (?:help |advice |tips )?(?:with |on )?"
            r"(?P<x>.+)",
            "{x}",
        ),
        (
            r"^i(?:'m| am|'ve been| have been) (?:looking|hoping|trying|planning|going|wanting|meaning|about) to "
            r"(?P<x>.+)",
            "{g}",
        ),
        (
            r"^i(?:'m| am|'ve been| have been) (?P<x>(?:planning|thinking about|thinking of|considering|working on|"
            r"writing|learning|organizing|organising|preparing|getting ready for|training for) .+)",
            "{x}",
        ),
        (r"^i(?:'d| would) like (?:to )?(?:get |some |you to )?(?P<x>.+)", "{g}"),
        (r"^i (?:want|need|wanted|have|hope) (?:to |some |a |an )?(?:help (?:with |to )?)?(?P<x>.+)", "{g}"),
        (
            r"^(?:can|could|would|will) you (?:please )?(?:describe|explain|summari[sz]e|list|tell me about|"
            r"give me|suggest|recommend|provide|share|tell me) (?P<x>.+)",
            "{x}",
        ),
        (r"^(?:can|could|would|will) you (?:please )?(?:help me (?:to |with )?)?(?P<x>.+)", "{g}"),
        (r"^(?:please )?help me (?:to |with )?(?P<x>.+)", "{g}"),
        (r"^do you (?:have|know) (?:any |some )?(?P<x>.+)", "{x}"),
        (r"^what (?:are|is|were|was) (?:some |the )?(?P<x>.+)", "{x}"),
        (r"^how (?:do|can|should|would) (?:i|you|we) (?P<x>.+)", "how to {x}"),
        (r"^(?:how|why|when|where|who|which) (?P<x>.+)", "{q}"),
    )
)
CUT = re.compile(
    r",|;|:| - | \u2013 | \u2014 |\s(?:and i|but|because|since|so that|so i|which|while|as i|if you|"
    r"that i|and was|and i'm|and want(?:ed|s)?|and need(?:ed|s)?|by the way)\s",
    re.I,
)
WEAK_END = frozenset(
    "a an the to for with of on in at and or my some any about from that this your our into by is are be per as "
    "than like if so but who which what when where i we you".split()
)
# A sentence about how to answer, not what about: "Please do not change the context", "Continue."; and a letter's
# pleasantries, when the person pastes one ("Dear Khaled,", "I hope this email finds you well.").
META_INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:do\s+not|don't|never|continue|keep\s+going|respond|reply|answer|rewrite|rephrase)\b|"
    r"^(?:dear|to whom)\b|^i hope (?:this|that|my) (?:e-?mail|message|letter|note) finds you\b|"
    r"^i hope you(?:'re| are) (?:doing )?well\b|^(?:thank you|thanks) for your (?:e-?mail|message|letter)\b",
    re.I,
)
NO_DOUBLE = set("wxy")


def gerund(verb: str) -> str:
    """plan -> planning, make -> making, visit -> visiting, see -> seeing, tie -> tying."""
    v = verb.lower()
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")) and len(v) > 2:
        return v[:-1] + "ing"
    vowels = re.findall(r"[aeiou]+", v)
    if len(vowels) == 1 and re.search(r"[^aeiou][aeiou][^aeiou]$", v) and v[-1] not in NO_DOUBLE:
        return v + v[-1] + "ing"
    return v + "ing"


TIME_TAIL = re.compile(
    r"\s+(?:soon|lately|recently|today|tonight|tomorrow|right now|this (?:week|weekend|month|year)|"
    r"next (?:week|weekend|month|year)|in (?:a few|the coming|the next) \w+|for the next \w+|"
    r"in order to .*)$",
    re.I,
)
FILLER = re.compile(r"\b(?:currently|really|just|actually|also|now|finally) ", re.I)


def _condense(text: str) -> str:
    text = CUT.split(text, maxsplit=1)[0]
    text = re.sub(r"^(?:thinking (?:of|about)|considering) (?=\w+ing\b)", "", text, flags=re.I)
    text = re.sub(r"^(?=(?:a|an) )", "looking for ", text, flags=re.I)
    text = re.sub(r"^(?:help|advice|tips?) (?:with|on) (?=\w+ing\b)", "", text, flags=re.I)
    for _ in range(2):
        text = TIME_TAIL.sub("", text)
    text = _balanced_quotes(re.sub(r"[?.!]+$", "", text).strip())
    words = _cut(text.split())
    while words and words[-1].lower() in WEAK_END:
        words.pop()
    return _balanced_quotes(" ".join(words))


# A word that opens a trailing phrase: a title cut before it reads whole ("Learning some new songs to play"
# rather than "… to play at this music").
BREAK_BEFORE = frozenset(
    "to for with at in on after before from that which and or about during like because since while when "
    "where if without".split()
)
# "… I need to read": "to" after these opens no phrase of its own.
TO_AFTER = frozenset("need needs want wants have has had going how what where when trying try able like love".split())
LOSE_AT_MOST = 3  # words a phrase cut may drop from the MAX_WORDS first


def _cut(words: list[str]) -> list[str]:
    """At most MAX_WORDS words, cut where a phrase ends: before a break word among the last LOSE_AT_MOST,
    when what it drops names nothing (no capital, no number: "after a tough few", not "for the Tech
    Expo"); never inside a name ("Brown v. Board of Education Supreme Court" is kept whole when it ends
    within a few words)."""
    if len(words) <= MAX_WORDS:
        return words

    def capital(word: str) -> bool:
        return word[:1].isupper() or word[:1].isdigit() or word[:1] in "\"'"

    end = MAX_WORDS
    if capital(words[end - 1]) and capital(words[end]):  # inside a name: run to its end, if it ends soon
        stop = end
        while stop < len(words) and (capital(words[stop]) or words[stop] in ("of", "the", "and", "v.", "de")):
            stop += 1
        if stop <= MAX_WORDS + 4:
            return words[:stop]
    for k in range(end, end - LOSE_AT_MOST - 1, -1):
        word = words[k].lower()
        if word not in BREAK_BEFORE or (word == "to" and words[k - 1].lower() in TO_AFTER):
            continue
        if any(capital(w) for w in words[k:end]):
            break  # the phrase names something: keep the first MAX_WORDS words as they are
        return words[:k]
    return words[:end]


def _balanced_quotes(text: str) -> str:
    """A title with one quote mark lost its other half to the cut: drop it, or close the quoted title."""
    text = text.strip(" '")
    if text.count('"') % 2 == 0:
        return text
    if text.startswith('"'):
        return text[1:].strip()
    if text.endswith('"'):
        return text[:-1].strip()
    return f'{text}"'


# Nouns that follow "I need / I'd like" and are no verb to make a gerund of: "I need some advice on …".
NOT_VERBS = frozenset(
    "advice help tips ideas suggestions recommendations information info guidance feedback inspiration "
    "assistance support input".split()
)


def _as_title(how: str, rest: str) -> str:
    rest = re.sub(r"^(?:some|any|a few|more) ", "", rest, flags=re.I)
    if how == "{g}":
        first, _, tail = rest.partition(" ")
        if (
            first.isalpha()
            and first.islower()
            and not first.endswith(("ing", "ed", "s"))
            and first not in {"a", "an", "the", "some", "my", "your", "new", "good", "more"}
            and first not in NOT_VERBS
        ):
            # "organize my tasks and prioritize my projects": both verbs read as what is being done
            tail = re.sub(
                r"\band ([a-z]+)(?= (?:my|the|a|an|some|our|your|his|her|their)\b)",
                lambda m: f"and {gerund(m.group(1))}" if not m.group(1).endswith(("s", "ed", "ing")) else m.group(0),
                tail,
            )
            rest = f"{gerund(first)} {tail}".strip()
    elif how == "how to {x}":
        rest = "how to " + rest
    elif how == "{q}":
        return ""  # an open question: fall back to the whole sentence below
    return rest


def title_from_request(sentence: str) -> str:
    sentence = FILLER.sub("", GREETING.sub("", sentence.strip()))
    for pattern, how in REQUESTS:
        match = pattern.match(sentence)
        if match:
            titled = _condense(_as_title(how, match.group("x")))
            if len(titled.split()) >= 2:
                return titled[:1].upper() + titled[1:]
    # A statement of what the user is doing ("I am flying to Lisbon on May 12"): the doing is the title.
    sentence = re.sub(r"^(?:i am|i'm|we are|we're|i was|we were)\s+(?=\w+ing\b)", "", sentence, flags=re.I)
    condensed = _condense(sentence)
    return condensed[:1].upper() + condensed[1:] if len(condensed.split()) >= 2 else ""


def room_title(turns: Sequence[tuple[str, str]], *, fallback: str = "") -> str:
    """A title for a conversation from its (role, text) turns: the first request-like sentence of the
    first user turn (then the second), condensed to at most MAX_WORDS words; `fallback` (e.g. the
    conversation's top key phrase, or "Conversation on 23 Nov") when nothing reads as a title.
    Never the conversation id."""
    users = [text for role, text in turns if role == "user"][:2]
    for text in users:
        sentences = sentences_of(text)[:4]
        # A request beats a statement: first try sentences that match a request pattern.
        for sentence in sentences:
            plain = GREETING.sub("", sentence.strip())
            if META_INSTRUCTION.match(plain):
                continue
            if any(p.match(plain) for p, how in REQUESTS if how != "{q}"):
                titled = title_from_request(sentence)
                if titled:
                    return titled
        for sentence in sentences:
            if META_INSTRUCTION.match(GREETING.sub("", sentence.strip())):
                continue
            titled = title_from_request(sentence)
            if titled and not re.search(r"[{}<>=`]|https?://", titled):
                return titled
    return fallback
