"""The offline extractor on chat text: real names with their kinds, no sentence openers or headings,
aliases merged, relations to the user, and titles and topic labels a person would write."""

from __future__ import annotations

from palace import extraction, titles, topics
from palace.entities import conversation_entities
from palace.entity_aliases import Entity, drop_derived
from palace.entity_cues import cue_kind
from palace.entity_kinds import kind_in_context, kind_of
from palace.entity_names import clean, is_plausible
from palace.entity_runs import capitalised_runs
from palace.entity_votes import brands_of_products
from palace.pasted_code import split_code

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


def _kinds_of(turns: list[tuple[str, str]]) -> dict[str, str]:
    return {entity.name: entity.kind for entity in conversation_entities(turns)}


def test_a_style_word_before_a_common_noun_is_not_a_person() -> None:
    found = _kinds_of(
        [
            ("user", "Should I start with something gentle like Hatha or Yin yoga? I drink Earl Grey tea after."),
            ("user", "I've been playing bluesy riffs lately, inspired by Dan Auerbach's style."),
        ]
    )
    assert not {"Hatha", "Yin", "Earl Grey"} & set(found)
    assert found.get("Dan Auerbach") == "person"  # a person's style is still a person


def test_a_part_of_an_app_or_a_fragment_of_a_longer_name_is_not_a_wing() -> None:
    turns = [
        ("user", "Which task apps and certifications should I look at?"),
        (
            "assistant",
            'Use the "Quick Add" feature in Todoist. Try Oracle Certified Professional, Java SE 11 Developer.',
        ),
        (
            "assistant",
            'The "Quick Add" feature is fast; the Oracle Certified Associate, Java SE 8 Programmer is easier.',
        ),
    ]
    assert not {"Quick Add", "Java SE"} & set(_kinds_of(turns))


def test_a_title_and_its_subtitle_are_one_work() -> None:
    found = _kinds_of([("user", "Thanks for the recs! I've been thinking about checking out Narcos: Mexico next.")])
    assert found.get("Narcos: Mexico") == "work" and not {"Narcos", "Mexico"} & set(found)
    found = _kinds_of([("user", "Trip notes\nParis: Louvre first, then lunch with Rachel.")])
    assert "Paris: Louvre" not in found  # a "Label: value" line, not a title


def test_a_chain_hotel_keeps_its_brand_and_a_painting_keeps_its_painter_apart() -> None:
    found = _kinds_of([("user", "We are staying at the Courtyard by Marriott Isla Verde Beach Resort in July.")])
    assert found.get("Courtyard by Marriott Isla Verde Beach Resort") == "organisation"
    assert "Marriott Isla Verde Beach Resort" not in found
    found = _kinds_of([("user", "I finally saw the Mona Lisa by Leonardo da Vinci in Paris.")])
    assert not any(" by " in name for name in found)


def test_well_known_publications_and_franchises_get_their_kind() -> None:
    found = _kinds_of(
        [
            ("user", "I've recently started reading The New Yorker and The Economist, and I'm enjoying them."),
            ("user", "I'm interested in learning more about The Atlantic. My son loves Star Wars too."),
        ]
    )
    assert found.get("The New Yorker", found.get("New Yorker")) == "organisation"
    assert found.get("The Economist") == "organisation"
    assert found.get("The Atlantic", found.get("Atlantic")) == "organisation"
    assert found.get("Star Wars") == "work"


def test_the_words_around_a_name_set_its_kind() -> None:
    found = _kinds_of(
        [
            ("user", "I met a product manager from Google at the TechX conference last month."),
            ("user", "I think I'll look into the Loop and River North areas for the hotel."),
            ("user", "I was thinking of exploring more Beatles songs on my acoustic guitar."),
            ("user", 'Just got back from the "24-Hour Bike Ride" charity event. My card said "Simple and Sincere".'),
            ("user", "Keep it simple and sincere, they say: I ride my bike for an hour a day."),  # common words
        ]
    )
    assert found.get("TechX") == "work" and found.get("24-Hour Bike Ride") == "work"
    assert found.get("Loop", found.get("The Loop")) == "place"
    assert found.get("Beatles") == "organisation"
    assert "Simple and Sincere" not in found  # a quoted phrase, not a title
    found = _kinds_of([("user", "Is the Chicago event worth it? I'd bring a Starbucks roast for the road.")])
    assert found.get("Chicago") == "place" and found.get("Starbucks") == "organisation"


def test_a_lower_case_product_name_is_found_and_a_common_word_is_not() -> None:
    found = _kinds_of([("user", "Give me a bolognese recipe using an instant pot, and some instant coffee ideas.")])
    assert found.get("Instant Pot") == "organisation" and "Instant" not in found


def test_an_abbreviation_with_one_lower_case_letter_is_not_a_camel_case_name() -> None:
    assert [run[2] for run in capitalised_runs("We met at the TechX booth and the RnD lab.", set())] == ["TechX"]


def test_an_acronym_for_a_degree_or_a_kind_of_training_is_a_topic() -> None:
    found = _kinds_of(
        [
            ("user", "Compare the syllabus for MBBS and BAMS in Nepal. What are the prospects of BAMS graduates?"),
            ("user", "I've been doing HIIT workouts three times a week."),
        ]
    )
    assert found.get("BAMS") == "topic" and found.get("HIIT") == "topic"


def test_an_abbreviation_is_not_a_name_and_the_tail_of_a_known_name_is_not_another() -> None:
    turns = [
        (
            "user",
            "Can you give me examples of organizations running such RnD? We stay at the Courtyard by Marriott "
            "Isla Verde Beach Resort.",
        ),
        ("assistant", "The shuttle from the Courtyard by Marriott Isla Verde Beach Resort is free."),
        ("assistant", "Breakfast at the Courtyard by Marriott Isla Verde Beach Resort starts at seven."),
    ]
    found = _kinds_of(turns)
    assert "RnD" not in found and "Marriott Isla Verde Beach Resort" not in found
    assert "Courtyard by Marriott Isla Verde Beach Resort" in found


def test_the_words_around_a_name_in_any_turn_say_its_kind() -> None:
    """The small model's label is one guess; an apposition, a lifespan, "named", "by" or "the … game" in
    the assistant's answer corrects it."""
    kinds = _kinds_of(
        [
            ("user", "I'm meeting a potter named Ingrid who I met at a fair in Oslo. Ingrid and I want lunch."),
            ("assistant", "Ask Ingrid what she likes. Oslo has many cafés near the fjord."),
            ("user", "Who else paints like Artemisia Gentileschi? And is Bramblewood worth reading?"),
            (
                "assistant",
                "**Artemisia Gentileschi** (1593-1656) was a Baroque painter. **Bramblewood** by Tessa Lunde is "
                "a novel about a family farm. Have you played the new Starfall Odyssey game? Queen Sibylla "
                "appears in it, and the Baroque period shaped its art.",
            ),
            ("user", "I'll try Starfall Odyssey after I finish Bramblewood."),
        ]
    )
    assert kinds["Ingrid"] == "person" and kinds["Oslo"] == "place"
    assert kinds["Artemisia Gentileschi"] == "person"
    assert kinds["Bramblewood"] == "work" and kinds["Starfall Odyssey"] == "work"


def test_a_cue_inside_a_longer_name_or_a_figure_of_speech_does_not_count() -> None:
    from palace.entity_cues import cue_kind

    assert cue_kind("For lunch, try Cafe ", ", a local restaurant in the old town") is None
    assert cue_kind("time to take your ", " game to the next level") is None
    assert cue_kind("I loved The ", "** by Tessa Lunde") == "work"


def test_a_name_runs_through_a_hyphen_and_a_number_that_belong_to_it() -> None:
    kinds = _kinds_of(
        [
            ("user", "I watch Jay-Q every day, and I'm building a '67 Corvette Stingray 2 model."),
            ("user", "I've listened to Lantern Street Two already, a fun read."),
        ]
    )
    assert "Jay-Q" in kinds and "Jay" not in kinds
    assert "Lantern Street Two" in kinds and kinds["Lantern Street Two"] == "work"


def test_a_turn_that_does_not_capitalise_proves_nothing_about_capitals() -> None:
    kinds = _kinds_of(
        [
            ("user", "Which restaurants in Hollywood are famous? I want to book at Musso & Frank Grill."),
            ("assistant", "- musso & frank grill: i think it is a classic.\n- hollywood has many. i hope this helps."),
        ]
    )
    assert kinds.get("Hollywood") == "place" and "Musso & Frank Grill" in kinds


def test_titles_said_around_possessives_apostrophes_and_quotes_are_whole() -> None:
    kinds = _kinds_of(
        [
            ("user", 'I just found a first pressing of Fleetwood Mac\'s "Tusk" at a flea market.'),
            ("user", "Can you show me how to play Sweet Child O' Mine on my new guitar?"),
            ("user", "I'm also writing a short book titled The Quiet Harbour for my nephew."),
            ("user", "Lately I've been playing games like The Witcher 3 on weekends."),
        ]
    )
    assert kinds.get("Tusk") == "work" and kinds.get("Sweet Child O' Mine") == "work"
    assert kinds.get("The Quiet Harbour") == "work" and kinds.get("The Witcher 3") == "work"
    assert "Sweet Child O" not in kinds


def test_compounds_and_camel_case_names_are_found_mid_sentence() -> None:
    kinds = _kinds_of(
        [
            ("user", "I hung a Spider-Man poster over my desk. Next I'll check out TrailForks for bike routes."),
        ]
    )
    assert "Spider-Man" in kinds and kinds.get("TrailForks") == "organisation"


def test_dates_document_labels_styles_and_administrative_prefixes_are_not_wings() -> None:
    kinds = _kinds_of(
        [
            ("user", "Please fix the letter.\nDate 16 February 2023\nChapter 1: Getting started"),
            ("user", "The contract is governed by the laws of the State of Victoria, as the installer requires."),
            ("user", "For the party I'm serving Kimchi-inspired pancakes and Soju spritzers with dessert."),
        ]
    )
    assert not any("February" in name or name.startswith("Chapter") for name in kinds)
    assert kinds.get("Victoria") == "place" and "State of Victoria" not in kinds
    assert "Kimchi" not in kinds and "Soju" not in kinds


def test_cues_give_pets_cases_teams_and_chains_their_kinds() -> None:
    kinds = _kinds_of(
        [
            ("user", "We adopted a kitten named Mittens last spring and she loves boxes."),
            ("user", "My essay is about Roe v. Wade and what it changed."),
            ("user", 'Our pub quiz team, the "Trivia Newtons", won again on Tuesday.'),
            ("user", "Can I earn fuel points at other stores, like Wegmans or Publix, through their loyalty programs?"),
        ]
    )
    assert kinds.get("Mittens") == "person" and kinds.get("Roe v. Wade") == "work"
    assert kinds.get("Trivia Newtons") == "organisation" and kinds.get("Publix") == "organisation"


def test_a_title_is_not_cut_at_an_abbreviation() -> None:
    turns = [("user", "What did the Marbury v. Madison decision establish about judicial review?")]
    assert "Madison" in titles.room_title(turns)


def test_titles_with_an_author_a_medium_or_a_subtitle_are_works() -> None:
    kinds = _kinds_of(
        [
            ("user", "I just finished 'The Salt Road' by Maria Okafor and loved it."),
            ("user", "Would Thinking in Systems by Donella Meadows suit me next?"),
            ("user", 'I keep rewatching the "Garden Hour" channel while I repot things.'),
            ("user", 'I signed up for the course "Knife Skills: Cutting Like a Pro" last night.'),
            ("user", 'Next on my list is "Night Train: Across the Siberian Steppe" by Lena Volk.'),
        ]
    )
    assert kinds.get("The Salt Road") == "work" and kinds.get("Thinking in Systems") == "work"
    assert kinds.get("Garden Hour") == "work" and kinds.get("Knife Skills: Cutting Like a Pro") == "work"
    assert kinds.get("Night Train: Across the Siberian Steppe") == "work"
    assert kinds.get("Maria Okafor") == "person" and kinds.get("Donella Meadows") == "person"


def test_shops_named_in_common_words_and_brands_before_their_products_are_found() -> None:
    kinds = _kinds_of(
        [
            ("user", "Last week I went to Nest And Needle and found a cheap rice cooker."),
            ("user", "Are there coupons for Lumera skin care products this month?"),
            ("assistant", "You could check www.lumera.com or sign up at lumera.com for their newsletter."),
        ]
    )
    assert kinds.get("Nest And Needle") == "organisation" and kinds.get("Lumera") == "organisation"


def test_an_instructions_opening_verb_is_not_part_of_a_name() -> None:
    kinds = _kinds_of(
        [
            ("user", "1. Define Distributed Ledger. Discuss its uses."),
            ("user", "2. Explain Merkle Trees with an example."),
        ]
    )
    assert not any(name.split()[0] in ("Define", "Explain") for name in kinds)


def test_two_names_joined_by_a_preposition_holidays_and_drinks_are_not_one_wing() -> None:
    kinds = _kinds_of(
        [
            ("user", "Can I move my shelves from Facebook into Goodreads and join Slow Readers on Goodreads too?"),
            ("user", "I'm planning a quiet Valentine's Day and I drink Lavender Tea before bed."),
            ("user", "We land in Lisbon on Friday. How much is a day in Lisbon, the Lisbon Museum Pass included?"),
        ]
    )
    assert not any(" into " in name or " on " in name for name in kinds)
    assert kinds.get("Goodreads") == "organisation" and kinds.get("Lisbon") == "place"
    assert "Valentine" not in kinds and "Valentine's Day" not in kinds and "Lavender Tea" not in kinds


def test_a_listed_given_name_and_an_uncommon_surname_make_a_person_not_a_brand() -> None:
    kinds = _kinds_of(
        [
            ("user", "I attended the Sofia Marquez concert at the arena last week."),
            ("user", "We ordered the Billy Bookcase because our old bookcase broke, and a Kate Spade bag."),
        ]
    )
    assert kinds.get("Sofia Marquez") == "person"
    assert kinds.get("Billy Bookcase") == "organisation" and kinds.get("Kate Spade") == "organisation"


def test_abbreviations_of_subjects_are_topics_only_as_written() -> None:
    from palace.gazetteers import known_kind

    kinds = _kinds_of([("user", "Should I leave my GPA off the resume if I mentor girls in STEM at Hartwell College?")])
    assert kinds.get("GPA") == "topic" and kinds.get("STEM") == "topic"
    assert kinds.get("Hartwell College") == "organisation"
    assert known_kind("SAT") == "topic" and known_kind("Sat") is None


def test_venues_are_organisations_and_parks_places() -> None:
    kinds = _kinds_of(
        [("user", "We saw the final at Lakeview Stadium, then walked through Alder Park to the Riverside Zoo.")]
    )
    assert kinds.get("Lakeview Stadium") == "organisation" and kinds.get("Riverside Zoo") == "organisation"
    assert kinds.get("Alder Park") == "place"


def test_a_known_place_keeps_its_kind_and_poses_and_technical_terms_are_not_wings() -> None:
    kinds = _kinds_of(
        [
            ("user", "I need a flight to Lisbon and I'm flexible with dates. I'll charge my phone over USB."),
            ("user", "I'm holding Trikonasana longer now, and we're planning a BBQ for Saturday."),
            ("assistant", "The Wildlife Trust of Kenya is a nonprofit organization, and Kenya is lovely in June."),
            ("user", "I'd love to volunteer in Kenya next year."),
        ]
    )
    assert kinds.get("Lisbon") == "place" and kinds.get("Kenya") == "place"
    assert not {"USB", "BBQ", "Trikonasana"} & set(kinds)


def test_a_title_skips_instructions_about_the_answer_and_ends_on_a_content_word() -> None:
    turns = [("user", "Please do not change the tone. Write two versions of a welcome email for our bakery.")]
    assert titles.room_title(turns) == "Write two versions of a welcome email"
    turns = [("user", "Calculating how many pages I need to read per day to finish my reading goal.")]
    assert not titles.room_title(turns).endswith(" per")


def test_quoted_titles_in_a_list_are_works_and_a_possessive_name_is_not_a_common_phrase() -> None:
    kinds = _kinds_of(
        [
            ("user", 'I\'m torn between "Mossgrave" and "The Lantern Keepers", both sound darker than what I watch.'),
            ("user", 'My boards are "Spring 2024 Coats" and "Autumn 2024 Boots" for now.'),
            ("user", 'Have you heard of "Nadia\'s Pantry"? It is a show I keep rewatching for the comfort of it.'),
            ("assistant", "Pantry staples bring comfort; a pantry is where the comfort starts."),
        ]
    )
    assert kinds.get("Mossgrave") == "work" and kinds.get("The Lantern Keepers") == "work"
    assert kinds.get("Nadia's Pantry") == "work"
    assert "Spring 2024 Coats" not in kinds  # a label the person made, with a year: no title


def test_varieties_units_shouted_words_and_placeholders_are_not_wings() -> None:
    kinds = _kinds_of(
        [
            ("user", "I opened a Riesling and roasted some Yukon Golds; my Golden Retriever begged for cheese."),
            ("user", "My plan only gets 40 Mbps at night. Anyway, THE END of that story. Samples say XYZ University."),
            ("user", "I'm thinking about a Master's degree, possibly in Business Administration, near Lyon."),
            ("user", "How does the Catholic Church use apps for young people?"),
        ]
    )
    for junk in ("Riesling", "Yukon Golds", "Golden Retriever", "Mbps", "END", "XYZ University"):
        assert junk not in kinds
    assert kinds.get("Business Administration") == "topic" and kinds.get("Catholic Church") == "organisation"


def test_accented_names_emoji_and_the_verbs_around_a_name() -> None:
    found = {
        e.name: e
        for e in conversation_entities(
            [
                ("user", "My friend Zoë Müller 🦄 is visiting, and Søren, my cousin, too. We watch Disney+ together."),
                ("user", "I'm moving to Zürich next month. I had coffee with Priyanka Venkataraman yesterday."),
            ]
        )
    }
    assert found["Zoë Müller"].relation == "friend" and found["Søren"].relation == "cousin"  # type: ignore[attr-defined]
    assert "Zo" not in found and found["Disney+"].kind == "organisation"  # type: ignore[attr-defined]
    assert found["Zürich"].kind == "place" and found["Priyanka Venkataraman"].kind == "person"  # type: ignore[attr-defined]


def test_a_name_that_starts_with_an_accented_capital_is_found() -> None:
    kinds = _kinds_of([("user", "Next I want to read a novel by Émile Zola, and then something by Ángela Ruiz.")])
    assert "Émile Zola" in kinds and "Ángela Ruiz" in kinds


def test_an_emoji_the_small_model_labels_is_no_name_and_no_crash() -> None:
    text = "I come from the west of Ireland so I am really looking forward to it 🙂. #wellbeing #phd #academictwitter"
    assert all(entity.name.strip() for entity in conversation_entities([("user", text)]))
    assert kind_in_context("", "ORG", "thanks ", False, " and") is None


def test_pasted_code_gives_no_wings_and_the_prose_around_it_still_does() -> None:
    code = (
        "what is this code doing:\n\nimport java.util.Scanner;\npublic class GradeBook {\n static void prompt(){\n"
        " // Ask for the marks\n Scanner scanner=new Scanner(System.in);\n };\n}"
    )
    kinds = _kinds_of(
        [
            ("user", code),
            ("assistant", 'The class "GradeBook" uses a Scanner to read input, much as John Doe would type it.'),
            ("user", "Thanks, my mentor Priya Raman wrote GradeBook originally."),
        ]
    )
    assert kinds == {"Priya Raman": "person"}
    prose, identifiers = split_code("I paid for it on Monday; it came on Friday.\nThen I asked Priya Raman.")
    assert "Priya Raman" in prose and "Monday" in prose and not identifiers  # one line ending in ";" is prose


def test_names_in_one_list_share_a_kind_and_the_verb_before_the_list() -> None:
    books = _kinds_of([("user", "I loved reading Circe, The Song of Achilles, Mexican Gothic and Piranesi this year.")])
    assert books and set(books.values()) == {"work"}
    films = _kinds_of(
        [("user", "This month I watched Captain Marvel, Shazam, Crazy Rich Asians and Rogue One with my brother.")]
    )
    assert films.get("Captain Marvel") == "work" and films.get("Crazy Rich Asians") == "work"  # whole names


def test_kinds_from_product_words_place_words_and_compass_points() -> None:
    kinds = _kinds_of(
        [
            ("user", "My smart home has devices like Nest, Ecobee and LIFX, and I read a novel by Claire North."),
            ("user", "We hiked the Red Rock State Park. Then I made the Mediterranean Skewers for our BBQ party."),
            ("assistant", "The red rock formations of that state park are stunning."),
        ]
    )
    assert kinds.get("Ecobee") == "organisation" and kinds.get("Claire North") == "person"
    assert kinds.get("Red Rock State Park") == "place"  # common words, but a park's name
    assert "Mediterranean Skewers" not in kinds and kinds.get("BBQ party") in (None, "topic")


def test_a_title_cut_before_of_joins_the_whole_and_a_product_is_found_by_its_brand() -> None:
    cut = Entity("The First Fifteen Lives", "work", 2, {"the first fifteen lives"})
    whole = Entity("First Fifteen Lives of Harry August", "work", 5, {"first fifteen lives of harry august"})
    kept = drop_derived([whole, cut])
    assert kept == [whole] and whole.name == "The First Fifteen Lives of Harry August" and whole.mentions == 7
    assert "the first fifteen lives" in whole.aliases
    product, brand_named = (
        Entity("Dell XPS", "organisation", 3, {"dell xps"}),
        Entity("Nike", "organisation", 1, {"nike"}),
    )
    shoe = Entity("Nike Pegasus", "organisation", 1, {"nike pegasus"})
    brands_of_products([product, brand_named, shoe])
    assert "dell" in product.aliases and "nike" not in shoe.aliases  # Nike has a wing of its own


def test_possessive_names_places_shops_homes_and_authors() -> None:
    kinds = _kinds_of(
        [
            ("user", "We had a picnic in Regent's Park on Sunday, then dinner at Sarah's."),
            ("user", "I went to St Paul's Cathedral and then to Trader Joe's for snacks, and got a coat at Macy's."),
            ("user", "I read George Orwell's 1984 on the train."),
            ("user", "My doctor, Dr. Siobhán Ní Bhriain, said my blood pressure is a bit high."),
        ]
    )
    assert kinds.get("Regent's Park") == "place" and "Regent" not in kinds
    pets = _kinds_of([("user", "I got Whiskers a new scratching post. Whiskers had a vet visit on Monday.")])
    assert pets.get("Whiskers") == "person"  # someone things are got for: a pet, filed with people
    brands = _kinds_of([("user", "We love Sweet Baby Ray's sauce, and Ben & Jerry's ice cream after.")])
    assert brands.get("Sweet Baby Ray's") == "organisation" and brands.get("Ben & Jerry's") == "organisation"
    assert kinds.get("Trader Joe's") == "organisation" and kinds.get("Macy's") == "organisation"
    assert kinds.get("Sarah") == "person" and kinds.get("George Orwell") == "person"
    assert kinds.get("Dr. Siobhán Ní Bhriain") == "person" and "Dr. Siobhán Ní" not in kinds  # one person
    assert [topics.singular(w) for w in ("tomatoes", "boxes", "shoes", "headaches")] == [
        "tomato",
        "box",
        "shoe",
        "headache",
    ]


def test_countries_regions_venues_roles_and_names_run_on() -> None:
    kinds = _kinds_of(
        [
            ("user", "I love the Maldives and County Mayo, and language work in Central and South America."),
            (
                "user",
                "After the show we ate at The Ship Rock Grille in Denver. I was promoted to Senior Marketing Manager.",
            ),
        ]
    )
    assert kinds.get("Maldives") == "place" and kinds.get("County Mayo") == "place"
    assert kinds.get("Central America") == "place" and kinds.get("South America") == "place" and "Central" not in kinds
    assert kinds.get("Ship Rock Grille") == "organisation"  # a restaurant's word, whatever the label
    assert "Senior Marketing Manager" not in kinds  # a role, not a name
    assert clean("The Killers at") == "Killers"


def test_a_long_request_is_cut_where_a_phrase_ends_and_names_stay_whole() -> None:
    def title(text: str) -> str:
        return titles.room_title([("user", text)])

    assert title("I want to learn some new songs to play at this music festival next month.") == (
        "Learning some new songs to play"
    )
    assert title("What is the significance of the Brown v. Board of Education Supreme Court decision?") == (
        "Significance of the Brown v. Board of Education Supreme Court"
    )
    assert title("I am working on a post-event report for the Tech Expo we ran last week.") == (
        "Working on a post-event report for the Tech Expo"
    )  # what a cut would drop names something: kept
    assert title('Can you recommend films similar to "The Lost Daughter" by the same director?').count('"') == 2
    assert (
        title("I need some advice on how to style my new silk blouse.") == "Advice on how to style my new silk blouse"
    )
    assert title("I need help to organize my tasks and prioritize my projects.") == (
        "Organizing my tasks and prioritizing my projects"
    )


def test_a_pasted_document_is_read_for_names_in_its_first_part() -> None:
    filler = "we walked along the river and talked about the weather and the garden. " * 1500  # ~100,000 chars
    text = f"My friend Priyanka Venkataraman sent me this. {filler} At the very end Bartholomew Quigley signs."
    names = {e.name for e in conversation_entities([("user", text)])}
    assert "Priyanka Venkataraman" in names  # the start is read
    assert "Bartholomew Quigley" not in names  # past the first 20,000 characters the small model reads nothing


def test_names_known_by_their_shape_or_their_list_get_found_with_their_kind() -> None:
    found = _kinds_of([("user", "I've been reading about Fermat's Last Theorem and how it shaped number theory.")])
    assert found == {"Fermat's Last Theorem": "topic"}  # one result named after someone, not "Fermat" + "Last Theorem"
    found = _kinds_of([("user", "My favorite artists are Kendrick Lamar and J. Cole, honestly.")])
    assert found.get("J. Cole") == "person"  # the small model misses a name with an initial
    found = _kinds_of([("user", "I took my camera on three trips to Yellowstone, Yosemite, and the Grand Canyon.")])
    assert found.get("Yosemite") == "place"  # a list's third name, of the kind of the two found
    found = _kinds_of([("user", "Give me 30 naming ideas for a baby website in Table format.")])
    assert "Table" not in found  # a layout, not a place
    found = _kinds_of([("user", "My best trips were to Paris, Rome, and Home for the holidays.")])
    assert found.get("Paris") == "place" and found.get("Rome") == "place" and "Home" not in found  # a common word


def test_what_is_said_around_a_name_and_known_makers_set_its_kind() -> None:
    found = _kinds_of([("user", "Should I buy Delsey or Rimowa?"), ("assistant", "Delsey is a French brand.")])
    assert found.get("Delsey") == "organisation"  # a nationality before the noun of an apposition
    assert _kinds_of([("user", "I'm donating some old clothes to Goodwill this weekend.")]) == {
        "Goodwill": "organisation"
    }
    assert _kinds_of([("user", "I love my new Levi's jeans, they fit great.")]) == {"Levi's": "organisation"}
    found = _kinds_of([("user", "Should I use Google Photos or Adobe Creative Cloud for storage?")])
    assert found.get("Adobe Creative Cloud") == "organisation"  # a maker's product, not a person
    assert _kinds_of([("user", "How do I implement a random forest in Python using pandas?")]) == {"Python": "topic"}
    assert _kinds_of([("user", "I'm interested in French Art Deco design for my living room.")]) == {
        "Art Deco": "topic"
    }
    assert cue_kind("", " believed that everything is determined") == "person"  # what only a person does
    assert cue_kind("contrast it with ", "'s philosophy") == "person"
    assert cue_kind("check with your local ", " store first") == "organisation"
    assert cue_kind("donating a box of old clothes to ", " on Saturday") == "organisation"


def test_an_app_or_a_language_in_one_word_and_subjects_of_history_or_method_are_found() -> None:
    assert _kinds_of([("user", "I've been using Citymapper, but the train delays are still bad.")]) == {
        "Citymapper": "organisation"
    }
    assert _kinds_of([("user", "I'm interested in using Python for a data project.")]) == {"Python": "topic"}
    assert (
        _kinds_of([("user", "I've been using Merlin Bird ID and iBird Pro lately.")]).get("iBird Pro") == "organisation"
    )
    assert _kinds_of([("user", "I am using Monday to plan the week.")]) == {}  # a weekday is no app
    found = _kinds_of([("user", "How did the Allies win World War II? I also use the Pomodoro Technique to study.")])
    assert found.get("World War II") == "topic" and found.get("Pomodoro Technique") == "topic"
    found = _kinds_of([("user", "I loved The Fifth Season and The Poppy War, both great books.")])
    assert found.get("The Poppy War") == "work"  # a novel's title, not a war
    found = _kinds_of(
        [("user", "I got a rare 1913 Liberty Head nickel."), ("assistant", "Your Liberty Head nickel is a gem.")]
    )
    assert found.get("Liberty Head") == "work"  # a coin, not a person
    assert _kinds_of([("user", "I'm hosting dinner: a Summer Sunset Spritz and Goat Cheese Crostini.")]) == {}


def test_a_name_the_assistant_repeats_passes_the_same_filters_and_loses_its_determiner() -> None:
    turns = [
        ("user", 'I think I\'ll call my cocktail "Summer Sunset Spritz" for the party.'),
        (
            "assistant",
            'I love "Summer Sunset Spritz"! Serve the Summer Sunset Spritz cold; Summer Sunset Spritz is set.',
        ),
    ]
    assert "Summer Sunset Spritz" not in _kinds_of(turns)  # a drink, even when the assistant repeats it
    found = _kinds_of([("user", "Could the Saints win another Super Bowl soon? We saw a show at the Hollywood Bowl.")])
    assert "Super Bowl" in found and "another Super Bowl" not in found and "Hollywood Bowl" in found


def test_a_date_a_postscript_a_shouted_word_and_a_gift_exchange_are_no_names() -> None:
    assert "Liam 3/12" not in _kinds_of([("user", 'Would a onesie with "Little Liam" or "Liam 3/12" be cute?')])
    assert _kinds_of([("user", "Write the P.S and the next email, about the office Secret Santa.")]) == {}
    found = _kinds_of([("user", "Dispel the most common and UNCOMMON myths. I work with UNESCO and NASA.")])
    assert "UNCOMMON" not in found and found.get("UNESCO") == "organisation" and found.get("NASA") == "organisation"


def test_hashtags_list_lines_and_a_brand_word_inside_another_name_are_no_wings() -> None:
    found = _kinds_of(
        [("user", "I tag my runs with #MorningMiles and #TrailLife. Does that help my reach on Instagram?")]
    )
    assert found == {"Instagram": "organisation"}
    found = _kinds_of(
        [("user", "Top reasons for the rent rise:\n\n1. Interest Rates\n2. Housing Supply\n3. Zoning rules.")]
    )
    assert not any(name.startswith(("Housing", "Interest")) for name in found)
    text = "I'll call them the Target Group below. The target group is retirees. Then shopping at Target."
    found = _kinds_of([("user", text)])
    assert found == {"Target": "organisation"}  # the shop, not the "Target Group" heading word
    assert _kinds_of([("user", "I'll call them the Target Group below. The target group is retirees.")]) == {}
    found = _kinds_of([("user", "I keep both on Linkedin And Instagram.")])
    assert {name.lower(): kind for name, kind in found.items()}.get("linkedin") == "organisation"


def test_initials_and_two_names_a_trip_destination_and_teams_played() -> None:
    found = _kinds_of([("user", "I just bought a signed copy of E. Annie Proulx's novel for my shelf.")])
    assert found.get("E. Annie Proulx") == "person"
    found = _kinds_of([("user", "We got back from a camping trip to Zion with the kids on Sunday.")])
    assert found.get("Zion") == "place"
    turns = [
        ("user", "Did you see the Bears game on Sunday? The Bears game had me yelling."),
        ("assistant", "That Bears game was tense!"),
    ]
    assert _kinds_of(turns).get("Bears") == "organisation"  # a team's game, not a video game
    assert (
        _kinds_of([("user", "We watched with Dad, and the win against the Bears felt great.")])["Bears"]
        == "organisation"
    )
    story = [("user", "Write the ending where Tilly celebrates her victory over Grimshaw, who had tricked her.")]
    assert _kinds_of(story).get("Grimshaw") != "organisation"  # a victory over someone in a story is no team


def test_an_insurer_is_an_organisation_and_mixed_drinks_or_thai_dishes_are_no_wings() -> None:
    turns = [
        ("user", "I'm comparing Chubb and Beazley for my guitar collection."),
        ("assistant", "Beazley is a specialist insurer, and Chubb is a large insurer."),
    ]
    assert _kinds_of(turns).get("Beazley") == "organisation"
    found = _kinds_of([("user", "For the party I'll make a Cucumber Basil Fizz and order Pad See Ew from Uber Eats.")])
    assert "Cucumber Basil Fizz" not in found and "Pad See Ew" not in found


def test_one_brand_word_before_what_it_makes_is_found() -> None:
    found = _kinds_of([("user", "I've been loving my new Weber gas grill for quick dinners.")])
    assert found == {"Weber": "organisation"}  # the small model misses it
    found = _kinds_of(
        [("user", "My old Osprey hiking backpack tore, so I ordered a Manfrotto tripod. Rachel's bag is fine.")]
    )
    assert found.get("Osprey") == "organisation" and found.get("Manfrotto") == "organisation"  # not people
    assert found.get("Rachel") == "person"


def test_a_shop_things_come_from_is_an_organisation_and_a_place_before_a_thing_stays_a_place() -> None:
    turns = [
        ("user", "I got a new pair of loafers from Ecco last week."),
        ("assistant", "Congrats on the loafers from Ecco!"),
    ]
    assert _kinds_of(turns).get("Ecco") == "organisation"
    turns = [
        ("user", "I bought my sandals on a trip to Hawaii in 2019."),
        ("assistant", "Hawaii sandals are great; a cobbler can fix your Hawaii sandals."),
    ]
    assert _kinds_of(turns).get("Hawaii") == "place"


def test_names_after_the_word_for_who_they_are_are_people() -> None:
    text = "My coworker Dana just had twin boys, Milo and Theo, and her baby girl Ava turned one."
    found = _kinds_of([("user", text)])
    assert {name: found.get(name) for name in ("Milo", "Theo", "Ava")} == dict.fromkeys(
        ("Milo", "Theo", "Ava"), "person"
    )


def test_a_named_method_or_matrix_is_a_topic_and_the_person_behind_one_stays_a_person() -> None:
    turns = [
        ("user", "I'm trying the MoSCoW method for my backlog and the Eisenhower Matrix for my day."),
        ("assistant", "The MoSCoW method sorts tasks; the Pareto principle helps too."),
        ("user", "I also like the Marie Kondo method for my closet."),
    ]
    found = _kinds_of(turns)
    assert found.get("MoSCoW method") == "topic" and found.get("Marie Kondo") == "person"


def test_a_movement_or_a_system_of_ideas_is_a_topic() -> None:
    turns = [
        ("user", "I'm reading about the Civil Rights Movement for my history class."),
        ("user", "Our library still shelves by the Dewey Decimal System, which I like."),
    ]
    found = _kinds_of(turns)
    assert [found.get(n) for n in ("Civil Rights Movement", "Dewey Decimal System")] == ["topic", "topic"]


def test_a_brand_in_the_possessive_is_the_brand_and_a_shop_named_so_keeps_its_name() -> None:
    turns = [("user", "I've heard great things about Logitech's products, and I got my jeans at Macy's.")]
    names = {entity.name for entity in conversation_entities(turns)}
    assert "Logitech" in names and "Logitech's" not in names and "Macy's" in names


def test_an_answers_numbered_option_and_a_degree_are_no_wings_and_an_itinerarys_day_keeps_its_places() -> None:
    turns = [
        ("assistant", "**Option 1: Smart Casual**\n* A blazer\n\n**Option 2: Laid-Back Cool**\n* Black jeans"),
        ("user", "I think I'll go with Option 2: Laid-Back Cool. I'm also pursuing a Ph.D. after my MBA."),
        ("user", "Day 1: Visit the Grand Palace in Bangkok."),
    ]
    names = {entity.name for entity in conversation_entities(turns)}
    assert not names & {"Laid-Back Cool", "Option 2: Laid-Back Cool", "Ph.D", "MBA"}
    assert {"Grand Palace", "Bangkok"} <= names


def test_a_way_of_working_before_what_it_is_is_a_topic_and_a_brands_board_stays_the_brand() -> None:
    turns = [("user", "I'm making a Gantt chart and a Kanban board for work, and pinning ideas to my Pinterest board.")]
    found = _kinds_of(turns)
    assert (found.get("Gantt chart"), found.get("Kanban"), found.get("Pinterest")) == ("topic", "topic", "organisation")


def test_waterfalls_shrines_and_pagodas_are_places() -> None:
    found = _kinds_of([("user", "We hiked to the Bua Tong Sticky Waterfall, then the Meiji Shrine and Fox Glacier.")])
    assert [found.get(n) for n in ("Bua Tong Sticky Waterfall", "Meiji Shrine", "Fox Glacier")] == ["place"] * 3


def test_a_pasted_letters_pleasantries_are_not_the_title_and_a_trailing_wanted_is_cut() -> None:
    letter = "Dear Eng. Mohamed,\nI hope this email finds you well. I am writing to follow up on the app's issues."
    assert titles.room_title([("user", letter)]) == "Writing to follow up on the app's issues"
    meal = "I'm trying out some new meal kit services and wanted to know what else there is."
    assert titles.room_title([("user", meal)]) == "Trying out some new meal kit services"


def test_a_closet_label_is_no_pronoun_and_verb() -> None:
    turns = [
        ("user", "Rachel lives in Porto now, so she'll fly in from there. She'll fly on the morning flight."),
        ("assistant", "A morning flight from Porto works; she'll fly into Denver at noon."),
    ]
    assert "she'll" not in topics.topic_label(turns)


def test_a_closet_label_neither_starts_nor_ends_with_a_preposition_or_a_verb_of_saying() -> None:
    """Closets of the label runs read "personal favorite among", "coffee shops near" and "ayn land thinks": a topic is
    the noun phrase, not the words around it."""
    turns = [
        ("user", "Do you have a personal favorite among them? Any coffee shops near the station?"),
        ("assistant", "My personal favorite among them is Mozart. Coffee shops near the station open early."),
        ("user", "Rand thinks selfishness is a virtue, and she thinks so often."),
    ]
    label = topics.topic_label(turns)
    assert label and label.split()[-1] not in ("among", "near", "thinks") and label.split()[0] != "near"
    assert label in ("personal favorite", "coffee shops", "station")


def test_a_brands_quoted_colour_or_model_is_the_brands_and_paint_makers_are_organisations() -> None:
    turns = [
        ("user", 'I narrowed the hallway down to Behr\'s "Hale Navy" and Valspar\'s "Bistro White".'),
        ("user", 'My neighbour swears by Benjamin Moore, and I\'m reading "The Color Master" by Anna Reyes.'),
    ]
    found = _kinds_of(turns)
    assert (found.get("Hale Navy"), found.get("Bistro White")) == ("organisation", "organisation")
    assert found.get("Benjamin Moore") == "organisation" and found.get("The Color Master") == "work"


def test_a_list_entrys_description_after_a_colon_or_dash_and_wine_estates_set_the_kind() -> None:
    turns = [
        ("user", "We're booking a tasting at Tenuta San Guido, then lunch in the Langhe region."),
        ("assistant", "1. Verdella (two blocks away): A small vegetarian eatery.\n2. Verdella - a calm spot."),
        ("user", "I think I'll try Verdella for lunch, and Marta Quill for dinner."),
        ("user", "My essay is on the Song Dynasty. I'm also curious about Quillo."),
        ("assistant", "**Quillo**: A creative game where players guess a card. Quillo is fun."),
    ]
    found = _kinds_of(turns)
    assert found.get("Quillo") == "work"  # the game's players are not what it is
    assert found.get("Tenuta San Guido") == "organisation" and found.get("Verdella") == "organisation"
    assert found.get("Langhe") == "place" and found.get("Song Dynasty") == "topic"


def test_a_count_or_a_style_after_a_name_is_not_part_of_it_and_a_version_is() -> None:
    turns = [
        ("user", "I've flown to Denver 4 times this year, and I want a Frida Kahlo-inspired mural at home."),
        ("user", "I love Super Tuscan wines. I bought the Oura Ring 3.0 and check the Oura Ring 3.0 data daily."),
        ("user", 'I\'ll try the new flavor at Wingstop, the "Dragon Breath" wings.'),
        ("user", "For the shower I like the Safari Sunrise theme, and the Safari Sunrise theme suits the cake."),
    ]
    names = {entity.name for entity in conversation_entities(turns)}
    assert {"Denver", "Oura Ring 3.0", "Wingstop"} <= names
    assert not names & {"Denver 4", "Oura Ring 3", "Oura Ring", "Super Tuscan", "Dragon Breath", "Safari Sunrise"}
    assert not any(name.endswith("-inspired") for name in names)


def test_a_term_given_its_abbreviation_is_no_wing_and_a_body_so_named_stays() -> None:
    turns = [
        (
            "user",
            "My router drops calls. Someone at the World Health Organization (WHO) said to try Quality of Service.",
        ),
        ("assistant", "Turn on Quality of Service (QoS) settings. Quality of Service puts calls first."),
        ("user", "Quality of Service sounds useful; I also emailed the Department of Education (DOE)."),
        ("user", "We're going to the American Museum of Natural History (AMNH) on Sunday."),
    ]
    names = {entity.name for entity in conversation_entities(turns)}
    assert {"World Health Organization", "Department of Education", "American Museum of Natural History"} <= names
    assert "Quality of Service" not in names


def test_a_model_number_keeps_its_thousands_a_shack_is_a_venue_and_a_show_is_a_work() -> None:
    turns = [
        ("user", "I'm torn between the Anker PowerCore 10,000 and the Anker PowerCore Fusion 10,000 has a plug."),
        ("user", "I also need a USB-C cable. We'll eat at The Crab Shack, then watch Casual."),
        ("assistant", "1. **Casual**: A comedy-drama series about two siblings."),
    ]
    found = _kinds_of(turns)
    assert {"Anker PowerCore 10,000", "Anker PowerCore Fusion 10,000"} <= set(found) and "USB-C" not in found
    assert found.get("Crab Shack") == "organisation" and found.get("Casual") == "work"


def test_the_words_on_a_banner_or_a_card_are_no_titles() -> None:
    turns = [
        ("user", 'I\'ll make a banner that says "Jordan\'s Crew" or "Team Spirit Rocks", and I\'m reading "Verity".')
    ]
    names = {entity.name for entity in conversation_entities(turns)}
    assert "Verity" in names and not names & {"Jordan's Crew", "Team Spirit Rocks"}


def test_software_by_its_parts_a_body_of_a_place_groves_rows_and_wharves() -> None:
    turns = [
        ("user", "I've been using Zotlio as my reference tool. How do I use Zotlio's Word plugin?"),
        ("assistant", "Try tools like Zotlio. Zotlio's citation feature helps."),
        ("user", "I'm also taking an online course by University of Leeds on research methods."),
        ("user", "We'll walk the Mariposa Grove, then Fisherman's Wharf and Cannery Row, and cook Kimchi Pad Thai."),
        ("user", "We'll go to Pier 39 and then the Ferry Building."),
    ]
    found = _kinds_of(turns)
    assert (found.get("Zotlio"), found.get("University of Leeds")) == ("organisation", "organisation")
    assert [found.get(n) for n in ("Mariposa Grove", "Fisherman's Wharf", "Pier 39", "Cannery Row")] == ["place"] * 4
    assert "Kimchi Pad Thai" not in found and "Fisherman" not in found
    assert _kinds_of([("user", "I read a book by Andy Grove about management.")]).get("Andy Grove") == "person"


def test_a_gendered_pronoun_in_the_mention_s_sentence_makes_a_person() -> None:
    assert cue_kind("I discovered this one artist, ", ", and I absolutely love her music.") == "person"
    assert cue_kind("", " founded his record label, Roc-A-Fella") == "person"
    assert cue_kind("grab lunch at ", " and ask her if she wants to") is None  # someone else, at a place
    assert cue_kind("I bought it at ", " for my sister, and she loves it") is None
    assert cue_kind("I really like ", " and Sam said he does too") is None  # another name between
    assert cue_kind("", " is an analytics tool that can he") is None  # "help", cut where the window ends
    assert cue_kind("", " was great. She loved it") is None  # the next sentence is another's


def test_a_title_the_conversation_presents_by_its_author_or_year_is_a_work_in_everyday_words() -> None:
    answer = (
        "Here are some fantasy novels:\n\n1. **The Night Circus** by Erin Morgenstern - a magical tale set in a"
        " mystical circus that opens at night.\n2. **The Golem and the Jinni** by Helene Wecker - a story."
    )
    found = _kinds_of([("assistant", answer), ("user", "I think I'll start with The Night Circus tonight.")])
    assert found.get("The Night Circus") == "work"
    assert "The Lantern Garden" not in _kinds_of(
        [
            ("assistant", "The garden has a lantern by the gate."),
            ("user", "I think I'll start with The Lantern Garden tonight."),
        ]
    )  # no title presented nor well known: everyday words in capitals prove nothing
    film = 'A villain adds suspense in "The Dark Knight" (2008), where the Joker is menacing and dark.'
    turns = [("user", "The Joker gave me the creeps!"), ("assistant", film), ("assistant", f"Again, {film}")]
    assert _kinds_of(turns).get("The Dark Knight") == "work"  # named again and again by the assistant only


def test_a_column_s_name_a_body_s_event_a_player_s_jersey_and_a_choice_for_someone() -> None:
    found = _kinds_of([("user", 'Can I add a column for "Next Steps" or "Follow-up Tasks" to the sheet?')])
    assert not {"Next Steps", "Follow-up Tasks"} & set(found)  # a place in a document, not a title
    found = _kinds_of([("user", "I met a lawyer at the Chamber of Commerce event last week.")])
    assert found.get("Chamber of Commerce") == "organisation"  # the body's event names the body
    found = _kinds_of([("user", "I just got a signed Steph Curry jersey from a charity auction.")])
    assert found.get("Steph Curry") == "person"  # the jersey is his, not part of his name; Curry is no dish here
    assert cue_kind("Overall, ", " is an excellent choice for photographers who want more") is None
    assert cue_kind("", " is a French film director") == "person"


def test_a_brand_word_ending_a_longer_capitalised_name_is_not_a_brand_of_its_own() -> None:
    found = _kinds_of([("user", "Have you heard about the new Really Right Stuff tripod? I love my Osprey backpack.")])
    assert "Stuff" not in found
    assert found.get("Osprey") == "organisation"


def test_a_title_presented_with_its_year_is_a_work_and_adjectives_may_be_joined() -> None:
    painting = 'Paintings like "The Broken Column" (1944) and "The Two Fridas" (1939) show her bold colours.'
    turns = [("user", "I love Frida Kahlo."), ("assistant", painting), ("assistant", f"Also, {painting}")]
    assert _kinds_of(turns).get("The Two Fridas") == "work"
    assert cue_kind("", " is a beautiful and intimate musical that explores") == "work"


def test_whom_a_message_greets_is_someone_and_a_hotel_named_first_is_a_business() -> None:
    assert cue_kind('Here is a draft:\n"Hey ', ", it was great catching up with you") == "person"
    assert cue_kind('"Hey ', ", set a timer for ten minutes", "Siri") is None  # a voice assistant is a brand
    assert cue_kind("I went to Hey ", " yesterday") is None
    found = _kinds_of([("user", "I've stayed in the area before, at the Hotel Zelos after a conference.")])
    assert found.get("Hotel Zelos") == "organisation"


def test_the_words_on_a_button_are_no_name_wherever_they_are_said() -> None:
    turns = [
        ("assistant", 'You can use the "Not Interested" button to remove tweets from your timeline.'),
        ("user", "I'll use Twitter's built-in features like Mute and Not Interested to quiet things down."),
    ]
    assert "Not Interested" not in _kinds_of(turns)


def test_a_subject_studied_a_currency_a_q_and_a_and_a_sentence_s_first_word_before_my_cousin() -> None:
    found = _kinds_of(
        [
            (
                "user",
                "I'm studying International Business and I play my Fender Jazzmaster. My income is $2,500 AUD."
                " Any Q&A tips? Since my cousin Rachel got married, I miss her.",
            )
        ]
    )
    assert found == {"International Business": "topic", "Fender Jazzmaster": "organisation", "Rachel": "person"}
    assert "Intel Core i5-1135G7" in _kinds_of([("user", "I'm considering the Intel Core i5-1135G7, with 8GB RAM.")])


def test_a_time_a_particle_a_language_a_maker_s_product_and_a_way_of_doing_read_as_a_title() -> None:
    found = _kinds_of([("user", "I took it on a trip to Yosemite National Park 4 weeks ago and loved it.")])
    assert found == {"Yosemite National Park": "place"}
    found = _kinds_of([("user", "I'm planning to stay in Cortina d'Ampezzo for a few days.")])
    assert found.get("Cortina d'Ampezzo") == "place"
    assert "Telugu" not in _kinds_of([("user", "I've been learning Telugu, since we visit Hyderabad.")])
    turns = [("user", "I found a Rolleiflex at a flea market. Is the Rolleiflex TLR worth restoring?")]
    assert _kinds_of(turns).get("Rolleiflex TLR") == "organisation"
    from palace.entity_kinds import kind_of

    assert kind_of("Eisenhower Matrix", "WORK_OF_ART") == "topic"  # a way of doing things, whatever the label
    assert kind_of("The Poppy War", "WORK_OF_ART") == "work"


def test_a_place_inside_a_longer_title_a_brand_before_its_model_and_a_camel_cased_class() -> None:
    turns = [
        ("user", "Can you recommend some books about ancient Egypt for kids?"),
        ("assistant", "1. **National Geographic Kids: Ancient Egypt** by Catherine D. Hughes - great photos."),
    ]
    assert _kinds_of(turns).get("Egypt") == "place"  # the "by" is the longer title's
    from palace.entity_cues import inside_longer_title

    assert inside_longer_title("1. **National Geographic Kids: Ancient ")
    assert not inside_longer_title("I like **Foo** and ")
    found = conversation_entities(
        [("user", "I'm bringing my Manfrotto BeFree tripod and a SanDisk Extreme Pro 64GB card.")]
    )
    aliases = {alias for entity in found for alias in entity.aliases}
    assert {"manfrotto", "sandisk"} <= aliases  # the brand is found by its own name too
    assert cue_kind('I loved "The ', '" by N.K. Jemisin, a great novel', "Fifth Season") == "work"  # only an article
    assert cue_kind("built-in tools like ", "' Battery Report or macOS's", "Windows") != "place"


def test_quoted_categories_file_formats_and_a_team_with_its_article_are_no_people_or_titles() -> None:
    found = _kinds_of([("user", 'Should I create broader categories like "Beach," "Town," and "Food" for my photos?')])
    assert not {"Beach", "Town", "Food"} & set(found)
    assert not {"MP3", "WAV"} & set(_kinds_of([("user", "Should I export the episode as MP3 or WAV for GarageBand?")]))
    assert cue_kind("that game where ", " ended up winning 4-2, with him scoring", "the Bruins") is None
    found = _kinds_of([("user", "I'm planning to watch the Bruins' upcoming game against the Toronto Maple Leafs.")])
    assert found.get("Bruins") == "organisation"  # whose game it is, not the game


def test_a_short_form_is_the_places_alias_and_only_as_written_a_mention() -> None:
    chat = [
        ("user", "I moved to the US from the UK, and friends in LA tell us it is sunny. Let us plan NYC."),
        ("assistant", "Sure! Let us compare the US with Los Angeles."),
    ]
    found = {e.name: e for e in conversation_entities(chat)}
    assert {"United States", "United Kingdom", "Los Angeles", "New York City"} <= set(found)
    assert not {"US", "UK", "LA", "NYC"} & set(found)
    assert {"us", "usa"} <= found["United States"].aliases and "nyc" in found["New York City"].aliases
    counted = {e.name: e.mentions for e in extraction.count_mentions(extraction.extract(chat), chat).entities}
    assert counted["United States"] == 2  # "the US" twice; "tell us" and "let us" are no country
    assert counted["Los Angeles"] == 2
    tags = extraction.tags_for("Tell me about the states of matter, then let us know.", extraction.extract(chat))
    assert "United States" not in {name for names in tags.values() for name in names}


def test_an_instructions_verb_and_a_persons_initial_and_a_dotted_short_form_in_a_list() -> None:
    chat = [
        (
            "user",
            "Pick the best team. Exclude Shikhar Dhawan, Bhuvaneshwar Kumar and Rishab Pant from the playing 11. "
            "T Natarajan is unavailable. I lived in France, Spain, the U.S. and Italy.",
        )
    ]
    found = {e.name: e for e in conversation_entities(chat)}
    assert {"Shikhar Dhawan", "T Natarajan", "United States"} <= set(found)
    assert not {"Exclude Shikhar Dhawan", "Natarajan", "Pick"} & set(found)
    assert found["United States"].kind == "place"


def test_a_brand_read_as_a_people_keeps_its_model_and_makers_are_organisations() -> None:
    chat = [
        (
            "user",
            "I want more sounds than my current Yamaha P-125. I've been looking at some of the newer models "
            "from Korg and Roland, but I'm not sure yet.",
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Yamaha P-125") == "organisation"
    assert kinds.get("Roland") == "organisation" and kinds.get("Korg") == "organisation"


def test_a_models_number_dunes_a_pair_of_makers_and_no_contraction_for_a_relative() -> None:
    chat = [
        (
            "user",
            "I run in my Nike Air Zoom Pegasus 38 running shoes and carry a Think Tank Urban Disguise 40L, but "
            "would a Gitzo or Really Right Stuff tripod fit? Since I hiked the John Muir Trail with my brother, "
            "I'd love to see the Eureka Dunes.",
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Nike Air Zoom Pegasus 38") == "organisation" and "Think Tank Urban Disguise 40L" in kinds
    assert kinds.get("Gitzo") == "organisation" and kinds.get("Eureka Dunes") == "place"
    assert "I'd" not in kinds


def test_listed_brands_are_organisations_and_a_word_like_one_only_capitalised() -> None:
    chat = [
        ("user", "I shop at Everlane and keep my Gitzo handy. I saw a yeti in a film, and I fill my Yeti each day.")
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Everlane") == "organisation" and kinds.get("Gitzo") == "organisation"
    assert kinds.get("Yeti") == "organisation" and "yeti" not in kinds
    assert {e.name for e in conversation_entities([("user", "a yeti and some acorns in the woods")])} == set()


def test_a_quoted_titles_article_a_quote_ending_a_name_a_lettered_item_and_a_spelled_number() -> None:
    chat = [
        (
            "user",
            'I just wrapped up a production of "A Midsummer Night\'s Dream" where I played Puck, and I qualified '
            'for the "Golden Gear" award. Who is the youngest Formula One champion? Cover growth, size and '
            "movement b. Describe the shape of it. c. Offer tips.",
        )
    ]
    names = {e.name for e in conversation_entities(chat)}
    assert {"A Midsummer Night's Dream", "Golden Gear", "Formula One"} <= names
    assert not {"Midsummer Night's Dream", "Describe", "b. Describe", "Offer", "Formula"} & names
    assert next(e.kind for e in conversation_entities(chat) if e.name == "Formula One") == "organisation"


def test_a_known_band_is_a_group_whatever_the_small_model_reads() -> None:
    chat = [("user", "I have been listening to Led Zeppelin and Pink Floyd lately, and I saw Bon Iver live.")]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Led Zeppelin") == kinds.get("Pink Floyd") == kinds.get("Bon Iver") == "organisation"


def test_a_known_place_a_numbered_road_a_course_a_version_and_capitals_keep_their_kinds() -> None:
    chat = [
        (
            "user",
            "We drove I-80 W through Wyoming last summer; Wyoming was gorgeous, and Wyoming said goodbye to us "
            "with a storm. I'm taking the Google Data Analytics Certification and my Kuat NV 2.0 rack arrived.",
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("I-80 W") == "place" and kinds.get("Wyoming") == "place"
    assert kinds.get("Google Data Analytics Certification") == "work"
    assert kinds.get("Kuat NV 2.0") == "organisation"
    assert kind_in_context("CUNY", "PERSON", "I applied to ", False, " for a job") == "organisation"
    assert kind_in_context("Brydge 10.2", "WORK_OF_ART", "I chose the ", False, " keyboard") == "organisation"


def test_a_letters_salutation_to_a_role_a_degree_and_a_generic_acronym_are_no_wings() -> None:
    chat = [
        (
            "user",
            "Dear Hiring Committee, I hold a Bachelor in Business from Ohio State and I ran our LMS and HVAC "
            "upgrade as a Senior Online Learning Designer. Dear Maria, thanks for the referral.",
        )
    ]
    names = {e.name for e in conversation_entities(chat)}
    assert not {"Dear Hiring Committee", "Hiring Committee", "Bachelor", "LMS", "HVAC"} & names
    assert not {"Senior Online Learning Designer", "Online Learning Designer"} & names
    assert "Maria" in names or "Dear Maria" in names


def test_a_well_known_singer_or_author_is_a_person_whatever_the_words_around_say() -> None:
    chat = [
        (
            "user",
            "I saw Tove Lo and Anderson .Paak at the festival, then bought a rare Jorge Luis Borges book and a "
            "Louisa May Alcott first edition.",
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Tove Lo") == kinds.get("Jorge Luis Borges") == kinds.get("Louisa May Alcott") == "person"


def test_a_turn_that_quotes_works_quotes_titles() -> None:
    chat = [
        (
            "user",
            'I loved "Dear Evan Hansen" and "Come From Away". Next I\'ll try "Hadestown", and maybe "Six" too.',
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Hadestown") == "work"


def test_a_known_title_beats_the_pieces_ner_cuts_it_into_and_breeds_are_no_wings() -> None:
    chat = [
        (
            "user",
            "Yeah, I also watched Spider-Man: Into the Spider-Verse, Crazy Rich Asians and Jurassic Park. My "
            "Rhode Island Reds are laying again and I got a Brown Swiss calf from Wisconsin.",
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Spider-Man: Into the Spider-Verse") == "work" and "Spider-Verse" not in kinds
    assert not {"Rhode Island Reds", "Rhode Island Red", "Brown Swiss"} & set(kinds)


def test_a_well_known_person_keeps_the_kind_whatever_the_answer_reads_and_without_accents() -> None:
    chat = [
        ("user", "I think I'll check out Ludovico Einaudi and Olafur Arnalds for calming music."),
        ("assistant", "Ludovico Einaudi and Olafur Arnalds are both excellent choices for calming music."),
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Ludovico Einaudi") == kinds.get("Olafur Arnalds") == "person"


def test_a_named_subject_is_a_topic_as_a_name_not_as_a_word_nor_a_word_of_a_longer_name() -> None:
    chat = [
        (
            "user",
            "I'm learning about Christianity and the Qing dynasty for a class, and at work we use Agile. I love "
            "Modernism. Great Depression stories move me. We stayed at the Renaissance Hotel and I read the "
            "Harvard Data Science Review.",
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Christianity") == kinds.get("Qing dynasty") == kinds.get("Agile") == "topic"
    assert kinds.get("Modernism") == kinds.get("Great Depression") == "topic"
    assert "Renaissance" not in kinds and "Data Science" not in kinds
    words = [("user", "Street art is everywhere here, and I read about it.")]
    assert "Street art" not in {e.name for e in conversation_entities(words)}


def test_a_well_known_one_word_name_the_small_model_misses_is_found_unless_it_is_an_everyday_word() -> None:
    chat = [
        (
            "user",
            "I've been watching the NBA playoffs, like the Lakers vs Clippers game. The Dolomites were amazing, "
            "and Yosemite is next. I have a few friends coming over.",
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Lakers") == "organisation" and kinds.get("Dolomites") == kinds.get("Yosemite") == "place"
    assert "Friends" not in kinds


def test_a_model_year_before_a_make_and_a_state_code_after_a_town() -> None:
    chat = [("user", "I'm upgrading the injectors on my 2015 Ford Mustang GT. She was born in Gruver, TX in 1939.")]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Ford Mustang GT") == "organisation" and kinds.get("TX") == "place"


def test_a_dish_named_for_a_place_a_verb_s_particle_an_apps_section_and_holidays_are_no_wings() -> None:
    chat = [
        (
            "user",
            "I'm making a classic California roll tonight. Then Map out the user flow with me. I'll check out the "
            "Back Care section, as on Easter Sunday and over Labor Day weekend. I read the New York Times section "
            "on travel.",
        )
    ]
    names = {e.name for e in conversation_entities(chat)}
    assert not {"California", "Map", "Back Care", "Easter Sunday", "Labor Day"} & names
    assert "New York Times" in names


def test_a_creek_is_a_place_a_plural_dish_is_no_wing_and_a_mac_is_apples() -> None:
    chat = [
        (
            "user",
            "He told me about a spot near the Washoe Creek inlet. I'll go with the Grilled Chicken or Turkey "
            "Sandwiches. My Mac gets really hot sometimes, and I love mac and cheese.",
        )
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Washoe Creek") == "place" and kinds.get("Mac") == "organisation"
    assert not {"Turkey Sandwiches", "Turkey"} & set(kinds)


def test_an_acronym_folds_into_the_name_the_answers_spell_and_a_sentence_start_names_no_project() -> None:
    chat = [
        ("user", "I have an early morning flight out of MIA. My project is a campaign, like the Heron project."),
        (
            "assistant",
            "Hotels near Miami International Airport (MIA) offer shuttles. Many near Miami International Airport "
            "run them every 15 minutes.",
        ),
    ]
    found = extraction.extract(chat)
    airport = found.named("Miami International Airport")
    assert airport is not None and airport.kind == "place" and "mia" in airport.aliases
    assert found.named("MIA") is airport
    assert {e.name for e in found.of_kind("project")} == {"Heron"}


def test_a_plural_subject_before_a_function_word_is_no_people_and_venue_words_make_organisations() -> None:
    chat = [
        ("user", "How did the motivations behind the Crusades differ? He saw the Crusade to be a sacred mission."),
        ("user", "We ate at Kogi BBQ, then bought bread at Sam's Groceries. Members of the Church joined."),
        (
            "user",
            "The court cited Ryder v Frohlich in its ruling. I'm watching a series about World History. "
            "I love French Vanilla creamer.",
        ),
        ("user", "The Strawberry Basil Cheesecake sounds great. We went to Disneyland and Knott's Berry Farm."),
    ]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Crusades") == "topic" and kinds.get("World History") == "topic"
    assert kinds.get("Kogi BBQ") == kinds.get("Sam's Groceries") == kinds.get("Church") == "organisation"
    assert kinds.get("Ryder v Frohlich") == "work"
    assert kinds.get("Disneyland") == kinds.get("Knott's Berry Farm") == "organisation"  # venues, as museums
    assert not {"French Vanilla", "Strawberry Basil Cheesecake"} & set(kinds)


def test_well_known_brands_are_organisations_and_a_possessive_brand_is_one_wing() -> None:
    chat = [
        ("user", "I got new Birkenstocks and some Christian Louboutin heels. I bought wine at Trader Joe's last week."),
        (
            "assistant",
            "You're a Trader Joe's fan, I see! Many a Trader Joe's fan loves the wine aisle. Christian Louboutin "
            "heels are a classic.",
        ),
    ]
    found = extraction.extract(chat)
    kinds = {e.name: e.kind for e in found.entities}
    assert kinds.get("Birkenstocks") == kinds.get("Christian Louboutin") == "organisation"
    assert kinds.get("Trader Joe's") == "organisation" and "Trader Joe" not in kinds


def test_a_highway_is_a_place_and_a_vehicle_s_acronym_or_a_clergy_title_alone_is_no_wing() -> None:
    chat = [("user", "We rented an RV and drove the Oregon Coast Highway. The Rabbi said a prayer.")]
    kinds = {e.name: e.kind for e in conversation_entities(chat)}
    assert kinds.get("Oregon Coast Highway") == "place"
    assert not {"RV", "Rabbi"} & set(kinds)


def test_a_campus_a_title_with_its_subtitle_and_a_bowl_of_food() -> None:
    """ "University of California, Berkeley" is one school, "UC Berkeley" its short form; a well-known title
    with its subtitle is one name ("Galaxy" is no phone there); a country before a noun is no game played
    ("playing the US map expansion"); a bold list entry's description gives its kind; a quinoa bowl and
    Brussels sprouts are eaten, the Hollywood Bowl is a venue."""
    chat = [
        (
            "user",
            "I'm applying to the University of California, Berkeley or MIT. I'm so excited to visit Star Wars: "
            "Galaxy's Edge! I enjoyed playing the US map expansion pack. I really like the Autumn Harvest Quinoa "
            "Bowl, and I saw a show at the Hollywood Bowl. I'll roast Brussels sprouts; I love Middle Eastern "
            "mythology.",
        ),
        (
            "assistant",
            "Both UC Berkeley and MIT are great. Berkeley's business school is Haas. Good luck at UC Berkeley!",
        ),
        ("assistant", "Try these:\n\n1. **TransAmerica**: A simple, fast-paced train game across a map."),
        (
            "user",
            "I think I'll check out TransAmerica. I made the Korean BBQ Sauce; the one from Kimchi House was bad.",
        ),
        ("user", "The pier was busy, but I saw the sea lions at Pier 39. Read chapter 2 first."),
        ("user", "My cousin is applying to the University of Wisconsin, Madison next year, and I'm so proud."),
        ("user", "My friend studied at California State University, Long Beach and loved it."),
    ]
    found = {e.name: e for e in conversation_entities(chat)}
    assert found["University of California, Berkeley"].kind == "organisation"
    assert "uc berkeley" in found["University of California, Berkeley"].aliases
    assert found["University of Wisconsin, Madison"].kind == "organisation"  # read by NER as a school and a city
    assert found["California State University, Long Beach"].kind == "organisation"  # no beach, and one school
    assert not {"Berkeley", "University of California", "UC Berkeley", "Galaxy"} & set(found)
    assert found["Star Wars: Galaxy's Edge"].kind == "work"
    assert found["United States"].kind == "place" and found["TransAmerica"].kind == "work"  # a game, in bold
    assert "Autumn Harvest Quinoa Bowl" not in found and found["Hollywood Bowl"].kind == "organisation"
    assert not {"Brussels", "Middle Eastern", "Korean BBQ Sauce"} & set(found)  # a vegetable, a style, a sauce
    assert found["Kimchi House"].kind == "organisation"  # a dish, then where it is served
    assert found["Pier 39"].kind == "place"  # named by its number, though "pier" is an everyday word here


def test_a_person_the_answers_name_in_full_once_and_then_by_surname_is_a_wing() -> None:
    chat = [
        ("user", "Can you recommend books like The Seven Husbands of Evelyn Hugo?"),
        (
            "assistant",
            "1. **The Last Romantics** by Tara Conklin: a family saga.\n\n**Tara Conklin**\n\nConklin's writing is "
            "lyrical. Like many authors, Conklin writes about siblings, and Conklin is patient with them.",
        ),
        ("user", "I'll try it."),
        ("assistant", "Great! Rose Garden is a lovely read too; a rose garden is hard to keep."),
    ]
    found = {e.name: e for e in conversation_entities(chat)}
    assert found["Tara Conklin"].kind == "person" and "conklin" in found["Tara Conklin"].aliases
    assert "Rose Garden" not in found  # named once, and an everyday word as a surname is not one


def test_cited_authors_a_document_s_defined_terms_and_a_centre_s_name() -> None:
    """ "Graf et al." names a person, a paper's first author; a pasted document's title-case phrases of the words
    it writes in lower case are its defined terms ("Shortlisted Tenderers", "the Tenderer's Profile"), and a
    reference number or a sum is no name; a three-word centre is a name even in words the conversation uses
    ("Command Center" is not)."""
    clauses = " ".join(
        f"Clause {n}. Tenderers shall tender their offer in the Tender Box before the closing date, and shortlisted "
        "Tenderers will present the Tenderer's Profile to the panel. Each tenderer must state the price of the project."
        for n in range(1, 12)
    )
    document = (
        "Please read this brief for the Singapore Chinese Cultural Centre. Reference SCCC/PROG/SE23/01. "
        f"The budget is S$190,000 in total. {clauses} Shortlisted Tenderers may be asked to RSVP."
    )
    chat = [
        ("user", "SCL was proposed by Khosla et al. (2020), and its optimal geometry was shown (Graf et al. 2021)."),
        ("assistant", "Papyan et al., 2020 described neural collapse."),
        ("user", document),
        ("user", "I'll check out the City History Museum and the Cultural Heritage Center. The center was great."),
        ("user", "I sold candles at SummerFest, and my old Barbie doll is worth a lot. The culture and heritage!"),
        ("user", "Open the Command Center from the settings; the command center holds every setting."),
    ]
    assert len(document) > 2_000
    found = {e.name: e.kind for e in conversation_entities(chat)}
    assert found["Khosla"] == "person" and found["Graf"] == "person"
    assert found["Singapore Chinese Cultural Centre"] == "organisation"
    assert not {
        "Tenderers",
        "Shortlisted Tenderers",
        "Tenderer's Profile",
        "SCCC/PROG/SE23/01",
        "S$190,000",
        "RSVP",
    } & set(found)
    assert found["Cultural Heritage Center"] == "organisation" and "Command Center" not in found
    assert found["SummerFest"] == "work" and found["Barbie"] == "organisation"


def test_a_list_s_heading_a_parish_a_model_and_a_beach_said_short() -> None:
    """A list under "Some popular shoegaze bands include:" lists bands, whatever NER read in the user's turn;
    "Our Lady of Lourdes Church" is one parish; "Mustang" once "Ford Mustang GT" is named is that car, "Hamoa"
    once "Hamoa Beach" is named that beach (Venice stays a city of its own); a judge's title and a game's genre
    are no names."""
    chat = [
        ("user", "What are some popular shoegaze bands?"),
        ("assistant", "Some popular shoegaze bands include:\n\n1. My Bloody Valentine\n2. Slowdive\n3. Ride"),
        ("user", "I've heard of My Bloody Valentine and Slowdive, but I'll give the others a listen."),
        ("user", "My niece sang at Our Lady of Lourdes Church. I washed my 2018 Ford Mustang GT; the Mustang shines."),
        ("user", "We swam at Hamoa Beach, and Hamoa was quiet. Then Venice Beach, but Venice in Italy is lovelier."),
        ("user", "The case went before a Circuit Judge. I'm after an RPG like The Witcher 3."),
    ]
    found = {e.name: e for e in conversation_entities(chat)}
    assert found["My Bloody Valentine"].kind == "organisation" and found["Slowdive"].kind == "organisation"
    assert found["Our Lady of Lourdes Church"].kind == "organisation" and "Our Lady" not in found
    assert "mustang" in found["Ford Mustang GT"].aliases and "Mustang" not in found
    assert "hamoa" in found["Hamoa Beach"].aliases and found["Venice"].kind == "place"
    assert not {"Circuit Judge", "RPG"} & set(found)


def test_an_office_before_a_full_name_a_dish_on_a_menu_a_region_s_adjective_and_a_library() -> None:
    """ "Judge Robert Hinkle" is the person Robert Hinkle; "Bruschetta" alone is a dish, "Waffles" the dog is
    not; "Latin American" is an adjective and R&B a genre; Keras is a library, an organisation."""
    chat = [
        ("user", "The ruling by Judge Robert Hinkle blocked it, and Governor Ron DeSantis appealed."),
        ("user", "Bruschetta is my favourite starter, and my dog Waffles loves it too."),
        ("user", "I read Latin American novels and listen to R&B. Keras made my first model easy."),
    ]
    found = {e.name: e.kind for e in conversation_entities(chat)}
    assert found["Robert Hinkle"] == "person" and found["Ron DeSantis"] == "person"
    assert not {"Judge Robert Hinkle", "Governor Ron DeSantis", "Bruschetta", "Latin American", "R&B"} & set(found)
    assert found["Waffles"] == "person" and found["Keras"] == "organisation"


def test_a_heading_votes_only_for_what_it_lists() -> None:
    """The kind word must end the heading, in the plural: "online stores for cat supplies:" lists stores (no
    pets), "their 1950s postage stamps:" lists the countries, and a country in a list of books is still a country
    (a title cut at its colon), and "games … for 5-6 players include:" lists games."""
    chat = [
        ("user", "Where can I buy cat supplies online? I've used Chewy and Petco before. Also, old Vietnam stamps?"),
        ("user", "We loved playing Dixit last week."),
        (
            "assistant",
            "Here are some online stores for cat supplies:\n\n1. Chewy: fast shipping\n2. Petco: wide range\n\n"
            "Here are a few countries that no longer exist and their 1950s postage stamps:\n\n1. **South Vietnam**: "
            "issued many.\n\nBooks:\n\n1. **Vietnam: A Postal History**\n2. **The Stamps of Indochina**\n\n"
            "Games that might not be as suitable for 5-6 players include:\n\n* **Dixit**: a guessing game",
        ),
        ("user", "Thanks! I love Vietnam, and I'll look for stamps from South Vietnam."),
    ]
    found = {e.name: e.kind for e in conversation_entities(chat)}
    assert found["Chewy"] == "organisation" and found["Petco"] == "organisation"
    assert found["South Vietnam"] == "place" and found.get("Dixit") != "person"


def test_an_option_s_vegetables_a_prime_minister_s_office_and_a_name_before_another_script() -> None:
    """An answer's option "Sweet Potato, Carrot, and Brussels Sprouts" names vegetables the conversation says in
    lower case in the plural; "Prime Minister Lee Hsien Loong" is the person; a name ends where Korean text starts."""
    chat = [
        ("user", "I'll go with the first option: Sweet Potato, Carrot, and Brussels Sprouts. I love sweet potatoes."),
        ("assistant", "Cut the sweet potatoes and carrots evenly, and halve the Brussels sprouts."),
        (
            "user",
            "Prime Minister Lee Hsien Loong opened it. Vystar와 같은 다른 패턴의 네임도 좋아요. I bank with Vystar.",
        ),
    ]
    found = {e.name: e.kind for e in conversation_entities(chat)}
    assert not {"Sweet Potato", "Carrot", "Brussels Sprouts", "Prime Minister Lee Hsien Loong"} & set(found)
    assert found["Lee Hsien Loong"] == "person" and "Vystar" in found


def test_a_species_an_owner_in_the_plural_possessive_an_honour_a_race_track_and_a_cuisine() -> None:
    """Birds and aquarium fish named by their family's word are what, not who; "Kayla Itsines' HIIT workouts"
    names her, not a product "Kayla Itsines' HIIT"; the Dean's List is an honour; a motorsports park a venue; and
    "Korean BBQ" is a country's cooking."""
    chat = [
        ("user", "A Pileated Woodpecker and two Carolina Chickadees came to the feeder. My Neon Tetras are fine."),
        ("user", "I think I'll start with Kayla Itsines' HIIT workouts since she posts them regularly."),
        ("user", "I'm thinking about adding my Dean's List awards from 2013 and 2014 to my resume."),
        ("user", "I had my tires rotated before a track event at the New Jersey Motorsports Park last week."),
        ("user", "Jack Sparrow is my favourite pirate, and the Baltimore Orioles won last night."),
        ("user", "I've been obsessed with Korean BBQ lately, and Hawaiian-style BBQ too. Gus's Barbecue is great."),
    ]
    found = {e.name: e.kind for e in conversation_entities(chat)}
    assert not {"Pileated Woodpecker", "Carolina Chickadees", "Neon Tetras", "Kayla Itsines' HIIT"} & set(found)
    assert "Dean's List" not in found and found["Kayla Itsines"] == "person"
    assert found["New Jersey Motorsports Park"] == "organisation"
    assert found["Jack Sparrow"] == "person" and found["Baltimore Orioles"] == "organisation"
    assert not {"Korean BBQ", "Hawaiian-style BBQ", "Korean", "Hawaiian"} & set(found)  # a country's cooking


def test_a_title_the_answer_presents_by_its_author_is_a_work_when_the_person_names_it_again() -> None:
    chat = [
        ("user", "I'm looking for a good thriller to read next."),
        ("assistant", "1. **The Silent Patient** by Alex Michaelides\n2. **The Power** by Naomi Alderman (320 pages)"),
        ("user", "I've already read The Silent Patient. I'm interested in The Power, as I've heard good things."),
        ("user", "The Power of a good book is real. Tell me about the power of habit."),
    ]
    found = {e.name: (e.kind, e.mentions) for e in conversation_entities(chat)}
    assert found["The Power"] == ("work", 1)  # not from "The Power of a good book", a sentence's opening
    assert found["The Silent Patient"] == ("work", 1)  # counted once, though two rules find it


def test_a_continent_a_series_title_a_condition_a_band_s_singer_a_parish_and_a_founder_s_restaurant() -> None:
    """From blind45's misses: "a trip to Europe and I need" is a place (a continent is no one, whatever "and I"
    says); "The Wheel of Time series" is the title; Hepatitis A a condition; "Michael Angelakos, the band's lead
    vocalist" a person; "St. Mary's Church" a parish, as the labels file churches; "Anthony's Fish Grotto" one
    restaurant, named for its founder; a memorial and a skydeck are places."""
    chat = [
        ("user", "I'm planning a trip to Europe and I need advice. I got vaccinated against Hepatitis A before."),
        ("user", "I've been meaning to try out The Wheel of Time series, but it's so daunting with all the books."),
        ("assistant", "Passion Pit was led by Michael Angelakos, the band's mastermind and lead vocalist."),
        ("user", "I love Passion Pit and Michael Angelakos. We went to St. Mary's Church on Sunday."),
        ("user", "I'll check out The Fish Market or Anthony's Fish Grotto for lunch."),
        ("user", "We saw the USS Arizona Memorial, and the view from the Willis Tower Skydeck."),
    ]
    found = {e.name: e.kind for e in conversation_entities(chat)}
    assert found["Europe"] == "place" and found["Hepatitis A"] == "topic"
    assert found["The Wheel of Time"] == "work" and "The Wheel of Time series" not in found
    assert found["Michael Angelakos"] == "person" and found["St. Mary's Church"] == "organisation"
    assert found["Anthony's Fish Grotto"] == "organisation" and "Fish Grotto" not in found
    assert found["USS Arizona Memorial"] == "place" and found["Willis Tower Skydeck"] == "place"


def test_a_painter_known_by_one_name_and_the_work_after_their_possessive() -> None:
    found = _kinds_of([("user", "In Amsterdam I saw Rembrandt's Night Watch, and I love Monet's Water Lilies.")])
    assert found["Rembrandt"] == "person" and found["Monet"] == "person"
    assert found["Night Watch"] == "work" and found["Water Lilies"] == "work"
    prompt = "Full body pose, photography, F/ 2. 8, photo - realistic, maximum detail, centered, Rembrandt lighting"
    assert "Rembrandt" not in _kinds_of([("user", prompt)])  # a way of lighting, named after him


def test_a_prompt_s_fields_and_settings_a_table_s_cells_and_a_songbird_are_no_wings() -> None:
    """From blind46: "Photo Style = "2020s editorial", Time of Day = "Nighttime"" sets fields to values (a known
    place among them stays a place); rows of "Camera Angle: High Angle, …" and a table's cells in the answers are
    settings too; a Northern Cardinal is a bird (the Toronto Blue Jays a team)."""
    chat = [
        (
            "user",
            'Give me 5 rows where: Photo Style = "2020s editorial", Location = "Shinjuku", Time of Day = "Nighttime"',
        ),
        (
            "assistant",
            "1. Photo Style: editorial, Composition: Framing, Camera Angle: Eye Level, Color Palette: Gold\n"
            "2. Photo Style: retro, Composition: Symmetry, Camera Angle: Low Angle, Color Palette: Neon Colors\n"
            "| Photo Style | Room Type |\n| 2020s editorial | Karaoke Room |\n| 2020s editorial | Karaoke Room |",
        ),
        ("user", "A Northern Cardinal came to my feeder while I watched the Toronto Blue Jays."),
    ]
    found = {e.name: e.kind for e in conversation_entities(chat)}
    assert found["Shinjuku"] == "place" and found["Toronto Blue Jays"] == "organisation"
    assert not {"Photo Style", "Nighttime", "Time of Day", "Camera Angle", "Color Palette", "Karaoke Room"} & set(found)
    assert "Northern Cardinal" not in found


def test_a_title_and_its_author_read_as_one_name_are_two_wings() -> None:
    said = [("user", "I just finished reading The Power by Naomi Alderman and loved it."), ("assistant", "Great!")]
    kinds = {entity.name: entity.kind for entity in conversation_entities(said)}
    assert kinds.get("The Power") == "work" and kinds.get("Naomi Alderman") == "person"
    assert "The Power by Naomi Alderman" not in kinds
    hotel = [("user", "We stayed at the Courtyard by Marriott in Denver."), ("assistant", "Nice.")]
    assert "Courtyard by Marriott" in {entity.name for entity in conversation_entities(hotel)}


def test_a_band_after_a_lower_case_the_an_address_s_streets_and_towns_and_a_piece_in_its_key() -> None:
    """From blind47's misses: "the Beatles" mid-sentence is the band, "The Eagles" a group; an address gives its
    street without the house number and its town before the state; "Nocturne in E-flat major" keeps its key."""
    said = [
        ("user", "My parents will love the Beatles and Motown classics."),
        (
            "assistant",
            "* 1970s: Disco (Bee Gees, Chic), Classic Rock (Led Zeppelin, The Eagles), Funk (Parliament)\n"
            '* Classic Rock: "Stairway to Heaven" by Led Zeppelin, "Hotel California" by The Eagles',
        ),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(said)}
    assert kinds.get("The Beatles") == "organisation" and kinds.get("Motown") == "organisation"
    assert kinds.get("The Eagles") == "organisation"
    assert kind_in_context("Anderson .Paak & The Free Nationals", "PERSON", "thinking of ", False) == "organisation"
    address = "Address:\n20 Park Street  \nFonda, NY 12068\n\nPlanning and Development 1033 Fifth Street\n"
    said = [
        ("user", address + "Clovis, California"),
        ("user", "I just started learning Chopin's Nocturne in E-flat major, which is a big deal."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(said)}
    for town_or_street in ("Park Street", "Fifth Street", "Fonda", "Clovis"):
        assert kinds.get(town_or_street) == "place", town_or_street
    assert "20 Park" not in kinds and "NY 12068" not in kinds and "Development 1033 Fifth Street" not in kinds
    assert kinds.get("Nocturne in E-flat major") == "work" and kinds.get("Chopin") == "person"
    chat = [("user", "Thanks, California is lovely. Hello, Texas.")]
    assert {"Thanks", "Hello"}.isdisjoint(entity.name for entity in conversation_entities(chat))


def test_an_idea_the_answer_lists_under_a_label_of_everyday_words_is_no_wing_when_picked_by_it() -> None:
    chat = [
        ("user", "Ideas to celebrate my grandmother's birthday?"),
        (
            "assistant",
            "1. **Memory Lane Dinner**: Plan a family dinner where everyone shares memories.\n"
            "2. **Family Slideshow**: Create a slideshow of old photos.\n3. **Zorbly**: Use it to plan.",
        ),
        ("user", "I like the idea of the Memory Lane Dinner and the Family Slideshow, and Central Park."),
    ]
    names = {entity.name for entity in conversation_entities(chat)}
    assert "Memory Lane Dinner" not in names and "Family Slideshow" not in names
    assert "Central Park" in names  # a place's word: a name, whatever the answer says to do there


def test_a_name_an_answer_introduces_in_bold_with_what_it_is_is_found_when_the_person_names_it() -> None:
    chat = [
        ("user", "How can I keep track of my shows?"),
        ("assistant", "Options:\n\t* **TV Time** (iOS, Android): A popular app that lets you track your shows."),
        ("user", "I think I'll try out TV Time, it sounds convenient."),
    ]
    assert {e.name: e.kind for e in conversation_entities(chat)}.get("TV Time") == "organisation"
    chat[2] = ("user", "I have no time for TV time, really.")
    assert "TV Time" not in {e.name for e in conversation_entities(chat)}  # not in title case: words, no name


def test_italian_venues_a_prize_before_winning_laws_rides_and_a_trade_term_s_acronym() -> None:
    """From blind48's misses: "dell'Accademia" holds no brand; a café and a gallery by their first word are
    businesses; "Pulitzer Prize-winning" names the prize; a roller coaster is a work, a data law a work (as the
    small model's LAW label files it), a shorebird no wing; "IAM" spelled out as a trade's term is a subject;
    "Refer to …" and a quoted category are no names."""
    said = [
        (
            "user",
            "We had coffee at Caffè Pedrocchi in Padua and then saw the Gallerie dell'Accademia in Venice. I love my "
            "Pulitzer Prize-winning author. At Six Flags, I rode the Full Throttle roller coaster five "
            "times. Our app must comply with GDPR and HIPAA. I ordered albums from Shutterfly. On the beach I saw "
            'Ruddy Turnstones. I\'ll start with the "Learning and Self-Improvement" category. I need good IAM.',
        ),
        ("assistant", "1. **Identity and Access Management (IAM)**: Solutions like Okta."),
        ("user", "Part 2.\nRefer to any coolant manufacturer website for the list of coolants."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(said)}
    assert kinds.get("Gallerie dell'Accademia") == "organisation" and "Dell" not in kinds
    assert kinds.get("Caffè Pedrocchi") == "organisation" and kinds.get("Pulitzer Prize") == "work"
    assert kinds.get("Full Throttle") == "work" and kinds.get("GDPR") == "work" and kinds.get("HIPAA") == "work"
    assert kinds.get("Shutterfly") == "organisation" and kinds.get("IAM") == "topic"
    assert not {"Ruddy Turnstones", "Refer", "Learning and Self-Improvement"} & set(kinds)


def test_a_product_an_answer_presents_as_a_guide_s_title_stays_the_product() -> None:
    chat = [
        ("user", "I'm looking to improve my Google Analytics skills."),
        ("assistant", '1. **"Google Analytics" by Jeffalytics**: A comprehensive guide to Google Analytics.'),
    ]
    assert {e.name: e.kind for e in conversation_entities(chat)}.get("Google Analytics") == "organisation"
    chat = [  # a title that opens with a word a brand shares is still a title
        ("user", "Thrillers like Gone Girl? I'm now listening to Gillian Flynn's Sharp Objects."),
        ("assistant", "1. **Sharp Objects** by Gillian Flynn: dark."),
        ("user", "I loved Sharp Objects, it is so dark."),
    ]
    assert {e.name: e.kind for e in conversation_entities(chat)}.get("Sharp Objects") == "work"


def test_a_place_an_itinerary_lists_with_what_to_do_there_is_still_a_place() -> None:
    chat = [
        ("user", "Plan my drive along the Oregon coast."),
        ("assistant", "* **Three Capes Scenic Drive**: Take a detour on this scenic drive."),
        ("user", "I'd love to do the Three Capes Scenic Drive."),
    ]
    assert "Three Capes Scenic Drive" in {e.name for e in conversation_entities(chat)}


def test_a_prompt_s_role_a_game_an_answer_offers_a_camera_maker_and_a_county_s_transit() -> None:
    """From blind49's misses: "act as an English Pronunciation Helper" is a role; "**Baby Toy Hunt**: Hide baby
    toys …" a game the person picks by its label; a Rolleiflex a camera maker's; "Broward County Transit" a body."""
    chat = [
        ("user", "Act as an English Pronunciation Helper. Games for the kids? I have a 1960s Rolleiflex too."),
        ("assistant", "1. **Baby Toy Hunt**: Hide baby toys around the party area."),
        ("user", "I'll go with the Baby Toy Hunt. I will check with Broward County Transit about buses."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert not {"English Pronunciation Helper", "Baby Toy Hunt"} & set(kinds)
    assert kinds.get("Rolleiflex") == "organisation" and kinds.get("Broward County Transit") == "organisation"


def test_a_game_joined_by_an_ampersand_a_heading_s_people_after_a_preposition_and_an_app_s_run_together_name() -> None:
    """From blind50's misses: "Wits & Wagers" is one game, and a list "for a game night with your family and
    friends:" lists games, not people; "MapMyRun" is an app; a mourning dove a bird."""
    chat = [
        ("user", "Board games like Scattergories? We need games for 6-8 players."),
        (
            "assistant",
            "Here are options perfect for a game night with your family and friends:\n\n1. **Wits & Wagers**: A "
            "party game.\n2. **Taboo**: A word game.\n3. **Pictionary**: A drawing game.\n\nStart with Wits & "
            "Wagers or Taboo.",
        ),
        ("user", "My family would enjoy Wits & Wagers and Taboo. I log runs with MapMyRun and saw Mourning Doves."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert kinds.get("Wits & Wagers") == "work" and not {"Wits", "Wagers", "Mourning Doves"} & set(kinds)
    assert kinds.get("MapMyRun") == "organisation"


def test_streets_a_town_with_its_state_s_code_a_city_hall_and_a_tool_named_with_an_acronym() -> None:
    """From blind51-52's misses: "Oakbrook Drive" is a street (not "Google Drive", nor "Lois Lane"), "Houston
    TX" a town, "LA City Hall" a place, "Git LFS" a tool, and "(7th Gen)" no one."""
    chat = [
        (
            "user",
            "Turn left onto Oakbrook Drive, then past Lois Lane's statue. I saved it in Google Drive. The blast "
            "reaches almost to Houston TX. I'd shoot from the LA City Hall observation deck. That is why Git LFS "
            "was created. Is the Apple iPad (7th Gen) good?",
        ),
        ("assistant", "Sure."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert kinds.get("Oakbrook Drive") == "place" and kinds.get("Google Drive") == "organisation"
    assert kinds.get("Lois Lane") == "person" and kinds.get("Houston TX") == "place"
    assert kinds.get("LA City Hall") == "place" and kinds.get("Git LFS") == "organisation"
    assert "Gen" not in kinds


def test_appositions_with_a_compound_nationality_or_a_possessive_a_listed_shrine_and_a_device() -> None:
    """ "A Korean-American artist" is a person, "one of the series' villains" a person (not a series), a shrine
    listed after "temples and shrines, including" a place, "the S Pen, an advanced stylus" a maker's device."""
    chat = [
        (
            "user",
            "I love Anicka Yi. Tell me about Dio Brando. I'll visit temples and shrines, including Fushimi Inari.",
        ),
        (
            "assistant",
            "3. **Anicka Yi**: A Korean-American artist who creates installations.\n\nAs the son of Dio Brando, one "
            "of the series' most notorious villains, Giorno struggles. Fushimi Inari is famous for its gates.",
        ),
        ("user", "Does the tablet support the S Pen?"),
        ("assistant", "Yes, it supports the S Pen, an advanced stylus."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert kinds.get("Anicka Yi") == "person" and kinds.get("Dio Brando") == "person"
    assert kinds.get("Fushimi Inari") == "place" and kinds.get("S Pen") == "organisation"


def test_schemes_lines_methods_formulas_and_names_an_answer_introduces_in_one_word() -> None:
    """A shop's scheme ("your Beauty Insider account") and a line ("the Keisei Skyliner train") are businesses;
    "my Pomodoro sessions" are the Pomodoro Technique's; "Na2S2O3" is a topic (a formula); "**Sortly**: An
    inventory app" is found when the person names it again; a quoted film before "starring" is a work."""
    chat = [
        ("user", "I like using the Pomodoro Technique. Any apps to track my stuff?"),
        (
            "assistant",
            "1. **Sortly**: A comprehensive inventory app.\n2. **Journal**: A notebook app.\n\nSign in to your "
            "Beauty Insider account. As a Beauty Insider, you earn points. Take the Keisei Skyliner train towards "
            "Ueno; the Keisei Skyliner is fast.",
        ),
        (
            "user",
            "I'll try out Sortly. I'll keep a journal too. My Pomodoro sessions go well. I loved \"The Father\" "
            "starring Anthony Hopkins.",
        ),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert kinds.get("Pomodoro Technique") == "topic" and "Pomodoro" not in kinds
    assert kinds.get("Sortly") == "organisation" and "Journal" not in kinds
    assert kinds.get("Beauty Insider") == "organisation" and kinds.get("Keisei Skyliner") == "organisation"
    assert kinds.get("The Father") == "work"
    assert kind_of("Na2S2O3", "ORG") == "topic" and kind_of("HCl", "PRODUCT") == "topic"
    assert kind_of("NBC", "ORG") == "organisation"  # three one-letter symbols spell an acronym, not a formula


def test_a_kind_of_project_a_faith_s_adherents_scriptures_and_a_person_an_answer_credits_with_a_channel() -> None:
    """From blind53's misses: "a fun DIY project" and "AI-powered project management tools" name no project (where
    "the Heron project" does); "notable Sikh figures" names no one; the Guru Granth Sahib is a work; "Brad
    Traversy's channel" is his, and he stays a person."""
    chat = [
        (
            "user",
            "It'll be a fun DIY project. Her company is working on AI-powered project management tools. I'm on the "
            "Heron project. Are there any notable Sikh figures? I read the Guru Granth Sahib. Coding videos?",
        ),
        (
            "assistant",
            "* **Traversy Media** (youtube.com/traversymedia): Brad Traversy's channel, covering web development.",
        ),
        ("user", "And responsive design?"),
        ("assistant", "1. **Traversy Media's Tutorials**: Brad Traversy's channel, covering responsive design."),
    ]
    found = extraction.extract(chat)
    kinds = {entity.name: entity.kind for entity in found.entities}
    assert not {"DIY", "AI-powered", "Sikh"} & set(kinds) and kinds.get("Heron") == "project"
    assert kinds.get("Guru Granth Sahib") == "work" and kinds.get("Brad Traversy") == "person"


def test_an_idea_told_as_an_example_a_styled_title_and_a_document_used_by_name() -> None:
    """From blind54's misses: "1. **Task Mastery**: "Today, I intend to …"" is an idea's label, "the Spa-Inspired
    Retreat" a style, and "the PGCPS Language Arts Curriculum Framework" and "the PAHRCA Toolkit" are works."""
    chat = [
        ("user", "Ideas for my bathroom?"),
        ("assistant", "**1. Spa-Inspired Retreat**\nSoft colours."),
        (
            "user",
            "I like the sound of the Spa-Inspired Retreat. Teachers use the PGCPS Language Arts Curriculum Framework. "
            "Intentions for today?",
        ),
        ("assistant", '1. **Task Mastery**: "Today, I intend to master the new software tool."'),
        ("user", 'I think I\'ll go with "Task Mastery". We used the PAHRCA Toolkit.'),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert not {"Spa-Inspired Retreat", "Task Mastery"} & set(kinds)
    assert kinds.get("PGCPS Language Arts Curriculum Framework") == "work" and kinds.get("PAHRCA Toolkit") == "work"


def test_an_outline_s_numerals_and_first_words_and_generic_acronyms_are_no_names() -> None:
    """From blind55: a prompt's outline ("I. Introduction", "VI. …", "a. Ideal weight gain") and a text message's
    acronym (SMS) are no wings; a king's numeral stays ("Henry VIII")."""
    chat = [
        (
            "user",
            "Write these sections:\nI. Introduction\na. Ideal weight gain\nVI. Prohibited "
            "Activities\n\nWe offer automation for Instagram and SMS. Henry VIII was a king.",
        ),
        ("assistant", "Sure."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert not {"I. Introduction", "Ideal", "VI", "SMS"} & set(kinds)
    assert kinds.get("Henry VIII") == "person" and kinds.get("Instagram") == "organisation"


def test_a_quoted_label_of_everyday_words_before_what_it_labels_is_no_name() -> None:
    """From blind56: creating a "Stop Doing" list names a list, not a work; a quoted title before its medium stays
    one, and so does a quoted name that is no everyday phrase ("a "Harry Potter" box")."""
    chat = [
        ("user", "How can I stay focused?"),
        ("assistant", '**2. Create a "Stop Doing" list**: write down what wastes your time.'),
        (
            "user",
            'I like creating a "Stop Doing" list. I just watched the "Crash Course" channel and keep a "Harry Potter" '
            "box of cards.",
        ),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert "Stop Doing" not in kinds
    assert kinds.get("Crash Course") == "work" and "Harry Potter" in kinds


def test_a_list_the_small_model_cuts_a_long_apposition_a_character_and_a_district_in_spanish() -> None:
    """From blind57: "such as Bitcoin, Ethereum and Tether" lists three names, not "Bitcoin, Ethereum" and a person;
    "Chai, the Korean electronic mobile payment app" is an app; "the character Syndeny" is someone; "Zona Norte" is
    a district."""
    chat = [
        (
            "user",
            "The crash hit major cryptocurrencies such as Bitcoin, Ethereum and Tether. They claimed that Chai, the "
            "Korean electronic mobile payment app, used the blockchain. You should behave like the character Syndeny. "
            "Alex Bravo lives in Zona Norte.",
        ),
        ("assistant", "Understood."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert "Bitcoin, Ethereum" not in kinds
    assert kinds.get("Bitcoin") == kinds.get("Ethereum") == kinds.get("Tether") == "organisation"
    assert kinds.get("Chai") == "organisation" and kinds.get("Syndeny") == "person"
    assert kind_of("Zona Norte", "PERSON") == "place" and kind_of("Rue Cler", "ORG") == "place"


def test_a_surname_takes_the_full_name_a_pronoun_after_a_named_person_and_parts_of_places() -> None:
    """From the kind errors of the earlier label sets: "Vettel", named in full by the answers, is "Sebastian Vettel"
    and someone; "his" after "Sebastian Vettel is the youngest Formula One champion" is his, not Formula One's;
    "Upper Manhattan" and "Northern Italy" are parts of known places; "the Sierra Nevada mountains" are a place; so
    are circles, loops and baths ("Arctic Circle", "June Lake Loop"; "Meadows" is as often a surname)."""
    chat = [
        ("user", "Who is the youngest Formula One champion in history?"),
        (
            "assistant",
            "Sebastian Vettel is the youngest Formula One champion in history, having won his first championship at 23."
            " Vettel won four in a row.",
        ),
        ("user", "Do you know if Vettel has won any more championships? I hiked in the Sierra Nevada mountains."),
        ("assistant", "Vettel has not. The Sierra Nevada mountains are lovely in June."),
    ]
    entities = {entity.name: entity for entity in conversation_entities(chat)}
    assert "Vettel" not in entities and entities["Sebastian Vettel"].kind == "person"
    assert "vettel" in entities["Sebastian Vettel"].aliases
    assert entities["Formula One"].kind == "organisation" and entities["Sierra Nevada"].kind == "place"
    assert kind_of("Upper Manhattan", "ORG") == "place" and kind_of("Northern Italy", "ORG") == "place"
    assert kind_of("West Elm", "ORG") == "organisation"  # a brand, though it starts with a compass point
    assert (
        kind_of("Arctic Circle", "PERSON")
        == kind_of("June Lake Loop", "ORG")
        == kind_of("Sutro Baths", "ORG")
        == "place"
    )


def test_blind58_a_pasted_author_list_a_boolean_a_town_of_a_people_a_tree_and_a_name_typed_in_lower_case() -> None:
    """From blind58: "Zhesi Shen;Jinshan Wu" is two people; "default is False" names nothing; "the town of Jalpan de
    Serra" is a place; "the Otomi people" and "Sakura trees" are topics; "the Catholic Knights of the Southern Cross"
    is one body; "the university of plymouth", typed in lower case, is still the University of Plymouth that the
    answers name again and again."""
    chat = [
        ("user", "[Author]: Zhesi Shen;Jinshan Wu\nThe HttpOnly flag is optional and default is False."),
        ("assistant", "Noted."),
        (
            "user",
            "I will buy Otomi textiles in Jalpan de Serra and see Sakura in Kyoto. I want to join the Catholic Knights "
            "of the Southern Cross. It's for students in the university of plymouth.",
        ),
        (
            "assistant",
            "This festival takes place in the town of Jalpan de Serra. The textiles are made by the Otomi people. "
            "The government planted Sakura trees all over Japan. Students at the University of Plymouth can meet; "
            "life at the University of Plymouth is busy; the University of Plymouth helps.",
        ),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert kinds.get("Zhesi Shen") == kinds.get("Jinshan Wu") == "person" and "False" not in kinds
    assert not any(";" in name for name in kinds)
    assert kinds.get("Jalpan de Serra") == "place"
    assert kinds.get("Otomi") == kinds.get("Sakura") == "topic"
    assert kinds.get("Catholic Knights of the Southern Cross") == "organisation" and "Catholic Knights" not in kinds
    assert kinds.get("University of Plymouth") == "organisation"


def test_blind59_a_court_case_shouted_words_a_kind_of_island_a_curly_apostrophe_and_christ() -> None:
    """From blind59: "Obergefell v. Hodges" is one case, a work; "FREE" beside "free" and "the POV" are no names; "the
    northernmost Hawaiian Island" is a kind of island; "I\u2019m Angela", with a typographic apostrophe, names Angela;
    "friendship in Christ" is someone, not a place."""
    chat = [
        (
            "user",
            "How did Obergefell v. Hodges change things? The first one is FREE, and shipping is free too. Do not "
            "change the POV. What is on the northernmost Hawaiian Island? I\u2019m Angela with KnowledgeWave. We "
            "talked of their friendship in Christ.",
        ),
        ("assistant", "The northernmost Hawaiian Island is Kauai. The island is green."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert kinds.get("Obergefell v. Hodges") == "work" and "Obergefell" not in kinds
    assert not {"FREE", "POV", "Hawaiian Island"} & set(kinds)
    assert kinds.get("Angela") == "person" and kinds.get("Christ") == "person"


def test_blind60_a_pasted_date_a_trade_and_a_makers_drive() -> None:
    """From blind60: "Sep 22" in a pasted table is a date; "Roofing and Gutters" names trades where the conversation
    writes "roof"; "Shadow Drive" beside Shadow, the cloud PC's maker, is its product, not a street."""
    chat = [
        ("user", "Sep 22\nFamily Households\nRisks by category, e.g. Roofing and Gutters, Plumbing. The roof leaks."),
        (
            "user",
            "In 2022, Shadow, the cloud gaming company, added Shadow Drive, a cloud storage. Shadow Drive is cheap.",
        ),
        ("assistant", "Noted."),
    ]
    kinds = {entity.name: entity.kind for entity in conversation_entities(chat)}
    assert not {"Sep 22", "Roofing"} & set(kinds)
    assert not is_plausible("Sep 22", "DATE", set()) and not is_plausible("Roofing", "ORG", {"roof", "leaks"})
    assert is_plausible("Sterling", "ORG", {"roof"})  # a name in -ing whose stem the conversation does not write
    assert kinds.get("Shadow Drive") == "organisation"


def test_only_the_person_s_lower_case_is_overruled_and_a_label_s_prose_is_no_title() -> None:
    """The person's hasty "university of plymouth" is a name the answers capitalise again and again; a word the
    answers themselves write in lower case ("acacia honey") stays an everyday one however often they capitalise it;
    "The Cola Island: This secluded paradise" is a list entry's label and its prose, not a title."""
    plymouth = [
        ("user", "Help me start a club for students in the university of plymouth."),
        (
            "assistant",
            "At the University of Plymouth, clubs at the University of Plymouth meet as the University of "
            "Plymouth asks.",
        ),
    ]
    honey = [
        ("user", "I'll try the Earl Grey with the Acacia Honey, the sweetness of Acacia Honey is lovely."),
        (
            "assistant",
            "The bergamot and the acacia honey match; with Acacia Honey, as Acacia Honey is sweet, go light.",
        ),
    ]
    cola = [
        ("user", 'Rewrite this: "The Cola Island: This secluded paradise is in the Yasawas."'),
        ("assistant", "Sure."),
    ]
    assert "University of Plymouth" in {entity.name for entity in conversation_entities(plymouth)}
    assert "Acacia Honey" not in {entity.name for entity in conversation_entities(honey)}
    assert not any(": This" in entity.name for entity in conversation_entities(cola))
