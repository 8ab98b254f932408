"""The offline extractor on chat text: real names with their kinds, no sentence openers or headings,
aliases merged, relations to the user, and titles and topic labels a person would write."""

from __future__ import annotations

from palace import extraction, titles, topics
from palace.entities import conversation_entities

CHAT = [
    (
        "user",
        "Hi! I'm planning a trip to Denver with my sister Rachel next month. Certainly we want good food. "
        "Dr. Patel said I should rest first. However, Patel also said NYC was fine last year.",
    ),
    (
        "assistant",
        "Certainly! Nice choice. However, check the weather. Denver has great food, and New York City is "
        "always an option.\n\n## Packing List\n1. Warm Jacket\n2. Hiking Boots",
    ),
    ("user", "Nice, thanks. I also shop on Craigslist for gear and I'm reading The Nightingale on the plane."),
]


def _by_name() -> dict[str, object]:
    return {entity.name: entity for entity in conversation_entities(CHAT)}


def test_names_come_with_their_kinds_and_openers_are_not_names() -> None:
    found = _by_name()
    kinds = {name: entity.kind for name, entity in found.items()}  # type: ignore[attr-defined]
    assert kinds["Denver"] == "place" and kinds["Rachel"] == "person" and kinds["Craigslist"] == "organisation"
    assert kinds["The Nightingale"] == "work"
    for junk in ("Certainly", "However", "Nice", "Hi", "Packing List", "Warm Jacket", "Hiking Boots"):
        assert junk not in found


def test_aliases_merge_to_the_most_complete_form() -> None:
    found = _by_name()
    assert "Patel" not in found and found["Dr. Patel"].aliases >= {"dr. patel", "patel"}  # type: ignore[attr-defined]
    assert "NYC" not in found and found["New York City"].kind == "place"  # type: ignore[attr-defined]


def test_the_users_relations_are_read() -> None:
    assert _by_name()["Rachel"].relation == "sister"  # type: ignore[attr-defined]


def test_tags_and_graph_facts_come_from_the_same_entities() -> None:
    found = extraction.count_mentions(extraction.extract(CHAT), CHAT)
    tags = extraction.tags_for(CHAT[0][1], found)
    assert (
        "Rachel" in tags["p"]
        and "Denver" in tags["l"]
        and not {"Certainly", "However"} & {name for names in tags.values() for name in names}
    )
    facts = {
        (t.subject, t.predicate, t.object) for text in (c for _, c in CHAT) for t in extraction.triples(text, found)
    }
    assert ("Rachel", "relation_to_user", "sister") in facts
    named = {name for fact in facts for name in (fact[0], fact[2])}
    assert not {"Certainly", "However", "Nice"} & named


def test_a_room_title_is_the_opening_request_condensed() -> None:
    title = titles.room_title(CHAT)
    assert title.startswith("Planning a trip to Denver") and len(title.split()) <= titles.MAX_WORDS
    assert titles.room_title([("user", "Can you help me plan a birthday party for my son?")]) == (
        "Planning a birthday party for my son"
    )


def test_a_closet_label_is_a_key_phrase_not_a_word_list() -> None:
    turns = [
        ("user", "I want to style my leather jacket for autumn. What goes with a leather jacket?"),
        ("assistant", "A leather jacket pairs well with dark jeans and boots; leather jacket outfits work in layers."),
    ]
    label = topics.topic_label(turns)
    assert "leather jacket" in label and "/" not in label


def test_an_acronym_the_conversation_spells_out_in_lower_case_is_a_term_not_a_name() -> None:
    turns = [
        ("user", "I'm learning NLP at the FDA. Natural language processing, I mean, nlp for short."),
        ("assistant", "Great: natural language processing is big at the Food and Drug Administration."),
    ]
    names = {entity.name for entity in conversation_entities(turns)}
    assert "NLP" not in names


def test_names_the_small_model_misses_are_read_from_capitalised_runs() -> None:
    turns = [
        ("user", "I'm comparing the Yamaha P-45 and the Kawai ES110. I also play through a Boss DS-1 pedal."),
        ("user", "Last week I tried a class at Yoga Bliss, and I keep the music on NEA's Our Town Program list."),
        ("assistant", "Both pianos are good; yoga classes help too."),
    ]
    found = {entity.name: entity.kind for entity in conversation_entities(turns)}
    assert found.get("Kawai ES110") == "organisation" and found.get("Boss DS-1") == "organisation"
    assert found.get("Yoga Bliss") == "organisation" and "Bliss" not in found
    assert found.get("Our Town Program") == "project" and "NEA's Our Town Program" not in found


def test_a_brand_product_is_one_organisation_under_its_full_name() -> None:
    turns = [
        ("user", "I'm interested in the Adidas Superstar. I think the Superstar might be more stylish."),
        ("user", "Can you tell me about the break-in period for the Superstar? I also wear my Fitbit Charge 3."),
    ]
    found = {entity.name: entity.kind for entity in conversation_entities(turns)}
    assert found.get("Adidas Superstar") == "organisation" and "Superstar" not in found
    assert found.get("Fitbit Charge 3") == "organisation"


def test_dishes_and_peoples_are_not_wings() -> None:
    turns = [
        ("user", "I think I'm going to try the Pasta Primavera tonight."),
        ("user", "How did the Vikings see death? Viking beliefs fascinate me, and so does Odin."),
        ("assistant", "Viking mythology held that warriors went to Valhalla."),
    ]
    names = {entity.name for entity in conversation_entities(turns)}
    assert not {"Pasta Primavera", "Vikings"} & names


def test_a_name_the_assistant_repeats_is_kept_and_one_said_once_is_not() -> None:
    turns = [
        ("user", "Which cities about 900 miles away get snow in winter?"),
        ("assistant", "Measured from New York City, Chicago gets snow. A flight from New York City is short."),
        ("assistant", "Winters near New York City are mild; the author Mary Beth Keane wrote about them."),
    ]
    found = {entity.name: entity.kind for entity in conversation_entities(turns)}
    assert found.get("New York City") == "place"
    assert "Mary Beth Keane" not in found  # named once, by the assistant: a mention, not the conversation's subject


def test_a_country_or_city_written_in_lower_case_is_still_a_place() -> None:
    turns = [("user", "Compare the medical syllabus in nepal and india for me."), ("assistant", "Sure.")]
    found = {entity.name: entity.kind for entity in conversation_entities(turns)}
    assert found.get("Nepal") == "place" and found.get("India") == "place"
    assert "China" not in {e.name for e in conversation_entities([("user", "I bought new china plates.")])}
