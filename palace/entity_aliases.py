"""One conversation's entities from their surface forms: forms that name the same thing merge ("Dr. Patel",
"Patel"; "NYC", "New York City"; "Superstar" once "Adidas Superstar" is named), and the name kept is the most
complete form."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from palace.entity_kinds import ORG_SUFFIX, WAY_OF_DOING
from palace.entity_names import TITLES, initials, key
from palace.gazetteers import BRANDS, known_kind, place_name
from palace.short_forms import ALIASES, SHORT_FORMS_OF


@dataclass
class Entity:
    name: str  # most complete form
    kind: str  # person / place / organisation / work
    mentions: int
    aliases: set[str] = field(default_factory=set)  # lower-cased surface forms, name included
    labels: Counter[str] = field(default_factory=Counter)
    relation: str | None = None  # "sister" for "my sister Rachel"
    first: tuple[int, int] | None = None  # (turn, character) of its first mention, once counted


NATURE_WORD = re.compile(r" (?:beach|lake|falls|island|bay|canyon|creek|cove|glacier|volcano|peak|gorge|dunes)$")


def merge_aliases(counted: Counter[tuple[str, str]]) -> list[Entity]:
    """Group surface forms into entities. Same key (case, title, dots) -> one; a single-word PERSON that
    is a word of a longer PERSON name -> that name ("Patel" -> "Dr. Patel", "Sarah" -> "Sarah Lee");
    a known short form or the initials of a longer name -> that name ("NYC" -> "New York City").
    The name is the most complete form: most words, then a title kept, then the most mentioned."""
    groups: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for (name, label), n in counted.items():
        groups[key(name)].append((name, label, n))
    keys = sorted(groups, key=lambda k: (-len(k.split()), -len(k)))
    parent: dict[str, str] = {}
    for k in keys:
        target = None
        expanded = ALIASES.get(k)
        if expanded and key(expanded) in groups:
            target = key(expanded)
        elif len(k.split()) == 1:
            longer = [o for o in keys if o != k and len(o.split()) > 1 and o not in parent]
            # A one-word form of exactly one longer person name is that person ("Frida"); two "Sarah …"
            # are ambiguous and stay apart.
            people = [o for o in longer if k in o.split() and any(lb == "person" for _, lb, _ in groups[o])]
            target = people[0] if len(people) == 1 else None
            if target is None:
                # "Superstar" once "Adidas Superstar" is named: the last word of exactly one brand's product.
                products = [o for o in longer if o.split()[-1] == k and any(lb != "person" for _, lb, _ in groups[o])]
                target = products[0] if len(products) == 1 else None
            if target is None and k not in BRANDS and not place_name(k) and not known_kind(k):
                # "Mustang" once "Ford Mustang GT" is named: the model inside exactly one brand's product.
                models = [o for o in longer if k in o.split()[1:] and o.split()[0] in BRANDS]
                target = models[0] if len(models) == 1 else None
            if target is None and len(k) >= 2 and k.isalpha():
                raw = groups[k][0][0]
                if raw.isupper():  # an acronym
                    by_initials = [o for o in longer if initials(groups[o][0][0]) == k]
                    target = by_initials[0] if len(by_initials) == 1 else None
        elif k not in ALIASES:
            # "Mustang I V2" once "Fender Mustang I V2" is named: the tail of exactly one longer name.
            tails = [o for o in keys if len(o.split()) > len(k.split()) and o.endswith(f" {k}") and o not in parent]
            target = tails[0] if len(tails) == 1 else None
        if target is None:
            # "Blue Note" once "Blue Note Records" is named: the name without its organisation word.
            # "Hamoa" once "Hamoa Beach" is: the place without its nature word (not "Venice": a place of its own).
            heads = [
                o
                for o in keys
                if o.startswith(f"{k} ")
                and (ORG_SUFFIX.search(groups[o][0][0]) or (NATURE_WORD.search(o) and not place_name(k)))
                and o not in parent
            ]
            target = heads[0] if len(heads) == 1 and len(heads[0].split()) == len(k.split()) + 1 else None
        if target is None and len(k.split()) > 1 and any(lb == "person" for _, lb, _ in groups[k]):
            # "Siobhán Ní" once "Siobhán Ní Bhriain" is named: the first words of exactly one longer person.
            fuller = [
                o
                for o in keys
                if o.startswith(f"{k} ") and o not in parent and any(lb == "person" for _, lb, _ in groups[o])
            ]
            target = fuller[0] if len(fuller) == 1 else None
        if target is not None:
            parent[k] = parent.get(target, target)
    merged: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for k, forms in groups.items():
        merged[parent.get(k, k)].extend(forms)
    entities = []
    for root, forms in merged.items():
        labels: Counter[str] = Counter()
        for _, label, n in forms:
            labels[label] += n
        root_forms = [f for f in forms if key(f[0]) == root]
        kinds: Counter[str] = Counter()
        for _, kind_, n in root_forms or forms:  # the complete form decides ("Frida" -> Frida Kahlo, person)
            kinds[kind_] += n
        kind = kinds.most_common(1)[0][0]
        best = max(root_forms, key=lambda f: (len(f[0].split()), bool(TITLES.match(f[0])), f[2], f[0][0].isupper()))
        name = ALIASES.get(root) or best[0]  # "NYC" alone is New York City
        entities.append(
            Entity(
                name=name,
                kind=kind,
                mentions=sum(n for _, _, n in forms),
                # Every known short form is an alias ("nyc"), said or not: a search for it finds the place.
                aliases={f[0].lower() for f in forms} | {name.lower()} | SHORT_FORMS_OF.get(name.lower(), set()),
                labels=labels,
            )
        )
    return sorted(entities, key=lambda e: (-e.mentions, e.name))


THE = re.compile(r"^The\s+")


def fold_acronyms(entities: list[Entity]) -> list[Entity]:
    """Fold an acronym into the one name it is the initials of, where the two came from different readings
    ("MIA" from the person's turn, "Miami International Airport" from the answers; "UC Berkeley" and "University
    of California, Berkeley"): the name keeps its kind."""
    kept = list(entities)
    for entity in entities:
        letters = entity.name.lower()
        head, _, tail = entity.name.partition(" ")
        if tail and head.isupper() and head.isalpha() and len(head) >= 2:  # "UC Berkeley"
            spelled = [
                o for o in kept if o.name.endswith(f", {tail}") and initials(o.name[: -len(tail) - 2]) == head.lower()
            ]  # "University of California, Berkeley"
        elif entity.name.isupper() and entity.name.isalpha() and len(letters) >= 3:
            spelled = [
                o
                for o in kept
                if o is not entity and " " in o.name and letters in (initials(o.name), initials(THE.sub("", o.name)))
            ]
        else:
            continue
        if len(spelled) == 1:
            whole = spelled[0]
            whole.aliases |= entity.aliases
            whole.mentions += entity.mentions
            whole.labels.update(entity.labels)
            kept.remove(entity)
    return kept


def fold_into_methods(entities: list[Entity]) -> list[Entity]:
    """Fold a one-word name into the method named after it ("my Pomodoro sessions" once "the Pomodoro Technique"
    is named; "Keto" and "the Keto Diet"), unless the word is a person's name ("Feynman")."""
    kept = list(entities)
    for entity in entities:
        if " " in entity.name or entity.kind == "person":
            continue
        methods = [o for o in kept if o.name.startswith(f"{entity.name} ") and WAY_OF_DOING.search(o.name)]
        if len(methods) == 1 and len(methods[0].name.split()) == 2:
            methods[0].aliases |= entity.aliases
            methods[0].mentions += entity.mentions
            kept.remove(entity)
    return kept


def drop_derived(entities: list[Entity]) -> list[Entity]:
    """Drop a one-word name made from another entity's name ("YouTubers" from "YouTube"), and fold a title
    cut short before "of" into the whole one ("The First Fifteen Lives" into "The First Fifteen Lives of
    Harry August"), which keeps the article."""
    names = [e.name for e in entities]
    kept = [
        e
        for e in entities
        if not (" " not in e.name and any(o != e.name and e.name.startswith(o) and len(o) >= 4 for o in names))
    ]
    bare = {id(e): re.sub(r"^the\s+", "", e.name.lower()) for e in kept}
    for entity in list(kept):
        whole = next(
            (o for o in kept if " " in bare[id(entity)] and bare[id(o)].startswith(f"{bare[id(entity)]} of ")), None
        )
        if whole is None:
            continue
        whole.aliases |= entity.aliases
        whole.mentions += entity.mentions
        if entity.name.startswith("The ") and not whole.name.startswith("The "):
            whole.name = f"The {whole.name}"
            whole.aliases.add(whole.name.lower())
        kept.remove(entity)
    return kept
