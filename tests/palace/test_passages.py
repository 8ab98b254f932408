"""Passages: the sentences of user turns, embedded on their own, lend a drawer their similarity in recall."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from palace.models import Conversation, Drawer, Passage
from palace.passages import MAX_PASSAGES, passages_of
from palace.recall import recall
from palace.services import forget, mining
from palace.services.passages import passages_build, passages_embed
from palace.services.portability.export import export_lines
from palace.services.portability.load import import_lines
from tests.conftest import Personas
from tests.factories import make_user
from tests.palace.recall_data import mine, unit

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)

ASIDE = (
    "Can you suggest a sturdy display case for my sports memorabilia collection? "
    "It should hold three framed jerseys and a signed baseball. "
    "By the way, I bought a signed jersey at the children's hospital charity auction last month."
)


def test_a_user_turn_of_several_sentences_is_split_and_one_sentence_is_not() -> None:
    assert passages_of("user", ASIDE) == [
        "Can you suggest a sturdy display case for my sports memorabilia collection?",
        "It should hold three framed jerseys and a signed baseball.",
        "By the way, I bought a signed jersey at the children's hospital charity auction last month.",
    ]
    assert passages_of("user", "I bought a signed jersey at a charity auction.") == []  # the turn is the sentence
    assert passages_of("user", "Thanks! Sounds good. I bought a jersey at the auction.") == []  # one real sentence
    assert passages_of("assistant", ASIDE) == []  # commentary is not split
    long_paste = " ".join(f"Line {n} of the pasted document here." for n in range(40))
    assert len(passages_of("user", long_paste)) == MAX_PASSAGES


def test_mining_writes_each_user_turns_passages_with_vectors(personas: Personas) -> None:
    owner = personas.owner.user
    drawers = mine(
        owner,
        "cases",
        [{"role": "user", "content": ASIDE}, {"role": "assistant", "content": "Here are three cases. " * 3}],
        MARCH,
    )
    passages = list(Passage.objects.filter(drawer=drawers[0]).order_by("position"))
    assert [p.text for p in passages] == passages_of("user", ASIDE)
    assert all(p.owner_id == owner.pk and p.embedding is not None for p in passages)
    assert not Passage.objects.filter(drawer=drawers[1]).exists()
    # Mining again adds nothing.
    mining.conversation_mine(conversation=Conversation.objects.get(owner=owner, external_id="cases"))
    assert Passage.objects.filter(owner=owner).count() == len(passages)


def test_a_fact_told_in_passing_is_recalled_by_its_passage(personas: Personas) -> None:
    owner = personas.owner.user
    aside = mine(owner, "cases", [{"role": "user", "content": ASIDE}], MARCH)[0]
    other = mine(owner, "other", [{"role": "user", "content": "The tomatoes need staking this weekend."}], MARCH)[0]
    # Crafted vectors: the turn is about display cases (axis 0), its last sentence about charity (axis 1),
    # and the query asks about charity.
    Drawer.objects.filter(pk=aside.pk).update(embedding=unit((0, 1.0)))
    Drawer.objects.filter(pk=other.pk).update(embedding=unit((0, 1.0), (1, 0.5)))
    Passage.objects.filter(drawer=aside).update(embedding=unit((0, 1.0)))
    Passage.objects.filter(drawer=aside, position=2).update(embedding=unit((1, 1.0)))
    query = unit((1, 1.0))

    found = recall(owner=owner, query="charity things I did", top_k=2, vector=query)
    assert [hit.drawer.pk for hit in found.hits] == [aside.pk, other.pk]
    # The passage lends its similarity less the margin: 1.0 - 0.08.
    with override_settings(RECALL_PASSAGE_MARGIN=0.08):
        signals = recall(owner=owner, query="charity things I did", top_k=1, vector=query).hits[0].signals
    assert signals["semantic"] == pytest.approx(0.92, abs=1e-4)

    # Without its passages the turn is farther than the other drawer: the passages made the difference.
    Passage.objects.filter(drawer=aside).delete()
    found = recall(owner=owner, query="charity things I did", top_k=2, vector=query)
    assert found.hits[0].drawer.pk == other.pk


def test_a_never_recall_drawer_is_not_found_through_its_passages(personas: Personas) -> None:
    owner = personas.owner.user
    aside = mine(owner, "cases", [{"role": "user", "content": ASIDE}], MARCH)[0]
    Drawer.objects.filter(pk=aside.pk).update(never_recall=True, embedding=unit((0, 1.0)))
    Passage.objects.filter(drawer=aside).update(embedding=unit((1, 1.0)))
    assert recall(owner=owner, query="charity auction", top_k=5, vector=unit((1, 1.0))).hits == []


def test_another_owners_passages_are_never_candidates(personas: Personas) -> None:
    owner, outsider = personas.owner.user, make_user("passage-outsider")
    aside = mine(owner, "cases", [{"role": "user", "content": ASIDE}], MARCH)[0]
    Passage.objects.filter(drawer=aside).update(embedding=unit((1, 1.0)))
    mine(outsider, "mine", [{"role": "user", "content": "Gardening plans for spring."}], MARCH)
    found = recall(owner=outsider, query="charity auction jersey", top_k=5, vector=unit((1, 1.0)))
    assert all(hit.drawer.owner_id == outsider.pk for hit in found.hits)
    assert aside.pk not in {hit.drawer.pk for hit in found.hits}


def test_forgetting_a_drawer_removes_its_passages(personas: Personas) -> None:
    owner = personas.owner.user
    aside = mine(owner, "cases", [{"role": "user", "content": ASIDE}], MARCH)[0]
    assert Passage.objects.filter(drawer_id=aside.pk).count() == 3
    forget.forget(owner=owner, kind="drawer", ids=[aside.pk])
    assert not Passage.objects.filter(owner=owner).exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM palace_passage WHERE text LIKE %s", ["%charity auction%"])
        assert cursor.fetchone()[0] == 0


def test_the_command_builds_passages_for_drawers_mined_without_them_once(personas: Personas) -> None:
    owner = personas.owner.user
    mine(owner, "cases", [{"role": "user", "content": ASIDE}], MARCH)
    mine(owner, "short", [{"role": "user", "content": "One sentence only, about the garden."}], MARCH)
    Passage.objects.filter(owner=owner).delete()  # as a palace mined before passages existed

    out = io.StringIO()
    call_command("passages", "--user", owner.username, stdout=out, stderr=io.StringIO())
    assert "2 drawers read, 3 passages written, 3 embedded" in out.getvalue()
    assert Passage.objects.filter(owner=owner, embedding__isnull=False).count() == 3
    assert passages_build(owner_id=owner.pk).passages == 0  # a second run writes nothing new
    assert Passage.objects.filter(owner=owner).count() == 3


def test_an_import_splits_and_embeds_the_passages_again(personas: Personas) -> None:
    owner = personas.owner.user
    mine(owner, "cases", [{"role": "user", "content": ASIDE}], MARCH)
    before = sorted(Passage.objects.filter(owner=owner).values_list("text", flat=True))
    exported = list(export_lines(owner=owner))
    assert not any("passage" in line for line in exported)  # derived, never exported
    newcomer = make_user("passage-import")
    import_lines(owner=newcomer, lines=exported)
    passages = Passage.objects.filter(owner=newcomer)
    assert sorted(passages.values_list("text", flat=True)) == before
    assert not passages.filter(embedding__isnull=True).exists()


def test_the_follow_up_job_embeds_only_passages_without_a_vector(personas: Personas) -> None:
    owner = personas.owner.user
    drawer = mine(owner, "cases", [{"role": "user", "content": ASIDE}], MARCH)[0]
    kept = Passage.objects.get(drawer=drawer, position=0)
    Passage.objects.filter(pk=kept.pk).update(embedding=unit((5, 1.0)))
    Passage.objects.filter(drawer=drawer).exclude(pk=kept.pk).update(embedding=None)
    assert passages_embed(conversation_ids=[drawer.conversation_id]) == 2
    assert passages_embed(conversation_ids=[drawer.conversation_id]) == 0  # a second run: nothing left
    assert not Passage.objects.filter(drawer=drawer, embedding__isnull=True).exists()
    vector = Passage.objects.get(pk=kept.pk).embedding
    assert vector is not None and list(vector) == pytest.approx(unit((5, 1.0)))  # left as it was


def test_a_sentence_joining_two_statements_also_gives_each_as_a_passage() -> None:
    one = "I recently started taking classes and I'm working on refinishing an old dresser."
    clauses = ["I recently started taking classes", "I'm working on refinishing an old dresser."]
    assert passages_of("user", one) == clauses
    two = f"I'm looking to learn more about antique furniture restoration. {one}"
    assert passages_of("user", two) == [
        "I'm looking to learn more about antique furniture restoration.",
        one,
        "I recently started taking classes",
        "I'm working on refinishing an old dresser.",
    ]
    # An opener is no statement of its own: the sentence stays whole.
    assert passages_of("user", "By the way, I bought a signed jersey at the charity auction last month.") == []
