"""Exclusion rules: what mining keeps out, the rules' validation and bounds, preview and purge."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest
from rest_framework.test import APIClient

from accounts.models import ExclusionRule
from palace import exclusions
from palace.models import ActivityEvent, Conversation, Drawer, Entity, MiningJob
from palace.services import exclusions as exclusion_services
from palace.services import intake, jobs, mining
from tests.conftest import Personas
from tests.palace.recall_data import mine

pytestmark = pytest.mark.django_db

URL = "/api/v1/settings/exclusions"
SECRET = "My therapist Dr. Okonkwo says the divorce papers arrive Friday."
TURNS = [
    {"role": "user", "content": "Derek and I are rebuilding the Efoil project this month."},
    {"role": "user", "content": SECRET},
    {"role": "assistant", "content": "What does the Efoil project need first?"},
    {"role": "user", "content": "A new battery for the Efoil, a 12V20Ah pack."},
]


def _rule(api: APIClient, headers: dict[str, Any], kind: str, pattern: str) -> Any:
    return api.post(URL, {"kind": kind, "pattern": pattern}, format="json", **headers)


def test_a_matching_turn_is_never_mined_and_the_others_are(api: APIClient, personas: Personas) -> None:
    owner = personas.owner.user
    rule_id = _rule(api, personas.owner.headers, "word", "DIVORCE").json()["id"]
    drawers = mine(owner, "c1", TURNS)
    assert [d.turn_index for d in drawers] == [0, 2, 3]
    assert not Drawer.objects.filter(content__icontains="divorce").exists()
    # Numbers are drawn for kept turns only: no hole; every kept drawer is embedded.
    assert sorted(d.number for d in drawers) == [1, 2, 3]
    assert all(d.embedding is not None for d in drawers)
    # Nothing extracted from it: the name only that turn says is no entity and no tag.
    assert not Entity.objects.filter(owner=owner, name__icontains="Okonkwo").exists()
    assert not any("Okonkwo" in str(d.tags) for d in drawers)
    event = ActivityEvent.objects.get(owner=owner, kind="memory_mined")
    assert (event.data["excluded"], event.data["rules"]) == (1, [rule_id])
    assert "divorce" not in str(event.data).lower() and "okonkwo" not in str(event.data).lower()
    # Not recallable.
    answer = api.post("/api/v1/recall", {"query": "divorce papers therapist"}, format="json", **personas.owner.headers)
    assert all("divorce" not in hit["content"].lower() for hit in answer.json()["results"])
    # Mining again adds nothing and still keeps it out.
    again = mining.conversation_mine(conversation=Conversation.objects.get(external_id="c1"))
    assert again["drawers"] == 0 and Drawer.objects.filter(owner=owner).count() == 3


def test_appended_turns_are_checked_too_and_a_run_of_only_excluded_turns_is_logged(
    api: APIClient, personas: Personas
) -> None:
    owner = personas.owner.user
    mine(owner, "c1", TURNS[:1])
    rule_id = _rule(api, personas.owner.headers, "phrase", "divorce   papers").json()["id"]
    conversation = Conversation.objects.get(external_id="c1")
    intake.conversation_append(owner=owner, external_id="c1", turns=[{"role": "user", "content": SECRET}])
    counts = mining.conversation_mine(conversation=conversation)
    assert counts["drawers"] == 0 and counts["excluded"] == 1 and counts["rules"] == [rule_id]
    assert Drawer.objects.filter(owner=owner).count() == 1


@pytest.mark.parametrize(
    ("kind", "pattern", "text", "matched"),
    [
        ("word", "cat", "A Cat sat.", True),
        ("word", "cat", "concatenate", False),
        ("word", "c++", "I write C++ daily", True),
        ("phrase", "project falcon", "the PROJECT\n  Falcon launch", True),
        ("phrase", "project falcon", "project falconry", False),
        ("regex", r"\b\d{3}-\d{2}-\d{4}\b", "ssn 123-45-6789 here", True),
        ("regex", r"\b\d{3}-\d{2}-\d{4}\b", "call 123-456-7890", False),
    ],
)
def test_words_and_phrases_match_whole_words_case_insensitively(
    personas: Personas, kind: str, pattern: str, text: str, matched: bool
) -> None:
    rule = exclusion_services.exclusion_rule_create(owner=personas.owner.user, kind=kind, pattern=pattern)
    assert (exclusions.exclusion_matcher(owner=personas.owner.user)(text) == rule) is matched
    # Preview (PostgreSQL for words and phrases, the bounded matcher for a regex) agrees with mining.
    mine(personas.owner.user, "c1", [{"role": "user", "content": text}])
    previewed = exclusion_services.exclusion_preview(owner=personas.owner.user, rule_id=rule.pk).exists()
    assert previewed is False  # mining kept it out when it matched, so nothing is left to purge
    assert Drawer.objects.filter(owner=personas.owner.user).exists() is not matched


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("[unclosed", "Not a valid regular expression"),
        ("(a+)+$", exclusions.MESSAGE_REGEX_NESTED),
        ("(x|xy)*z", exclusions.MESSAGE_REGEX_NESTED),
        (r"(\w+)\s\1", exclusions.MESSAGE_REGEX_BACKREF),
        (r"a*b*c*d*", exclusions.MESSAGE_REGEX_UNBOUNDED),
        ("a" * 201, exclusions.MESSAGE_TOO_LONG),
        ("   ", exclusions.MESSAGE_EMPTY),
    ],
)
def test_an_invalid_or_catastrophic_regex_is_a_400(
    api: APIClient, personas: Personas, pattern: str, message: str
) -> None:
    response = _rule(api, personas.owner.headers, "regex", pattern)
    assert response.status_code == 400
    assert response.json()["extra"]["fields"]["pattern"][0].startswith(message)
    assert not ExclusionRule.objects.exists()


def test_a_word_rule_is_one_word_and_the_kind_is_checked(api: APIClient, personas: Personas) -> None:
    assert _rule(api, personas.owner.headers, "word", "two words").status_code == 400
    assert _rule(api, personas.owner.headers, "glob", "x*").status_code == 400
    assert _rule(api, personas.owner.headers, "word", "fine").status_code == 201
    assert _rule(api, personas.owner.headers, "word", "fine").status_code == 409


def test_a_word_or_phrase_in_another_case_is_the_same_rule_and_a_regex_is_not(
    api: APIClient, personas: Personas
) -> None:
    h = personas.owner.headers
    assert _rule(api, h, "word", "Derek").status_code == 201
    again = _rule(api, h, "word", "derek")
    assert again.status_code == 409 and again.json()["message"] == exclusion_services.MESSAGE_RULE_EXISTS
    assert _rule(api, h, "phrase", "Project Falcon").status_code == 201
    assert _rule(api, h, "phrase", "project   FALCON").status_code == 409
    # A regex says its own case ("(?i)" or not): these two match different text.
    assert _rule(api, h, "regex", "Derek").status_code == 201
    assert _rule(api, h, "regex", "derek").status_code == 201
    assert _rule(api, personas.outsider.headers, "word", "DEREK").status_code == 201  # rules are per owner
    kept = ExclusionRule.objects.filter(owner=personas.owner.user).values_list("kind", "pattern")
    assert sorted(kept) == [("phrase", "Project Falcon"), ("regex", "Derek"), ("regex", "derek"), ("word", "Derek")]


def test_importing_a_rule_held_in_another_case_keeps_the_one_there(api: APIClient, personas: Personas) -> None:
    assert _rule(api, personas.owner.headers, "word", "Derek").status_code == 201
    exported: Any = api.get("/api/v1/export", **personas.owner.headers)
    assert _rule(api, personas.outsider.headers, "word", "derek").status_code == 201
    imported = api.post(
        "/api/v1/import",
        b"".join(exported.streaming_content),
        content_type="application/x-ndjson",
        **personas.outsider.headers,
    )
    assert imported.status_code == 200, imported.json()
    assert list(ExclusionRule.objects.filter(owner=personas.outsider.user).values_list("pattern", flat=True)) == [
        "derek"
    ]


def test_a_slow_regex_runs_out_of_time_and_counts_as_a_match(personas: Personas) -> None:
    # Three unbounded quantifiers pass the static check, but backtrack polynomially on a long run of
    # spaces: the deadline stops it and the text is treated as excluded (fail closed).
    rule = ExclusionRule.objects.create(owner=personas.owner.user, kind="regex", pattern=r"\s*\s*\s*x")
    match = exclusions.exclusion_matcher(owner=personas.owner.user)
    clock = time.monotonic()
    assert match(" " * 1900 + "!") == rule
    assert time.monotonic() - clock < 2
    assert match("short text, no x-ray") == rule and match("nothing here") is None


def test_at_most_100_rules(personas: Personas) -> None:
    owner = personas.owner.user
    ExclusionRule.objects.bulk_create(ExclusionRule(owner=owner, kind="word", pattern=f"w{i}") for i in range(100))
    with pytest.raises(exclusion_services.TooManyRules):
        exclusion_services.exclusion_rule_create(owner=owner, kind="word", pattern="one-more")
    # Another owner has their own allowance.
    exclusion_services.exclusion_rule_create(owner=personas.outsider.user, kind="word", pattern="one-more")


def test_preview_and_purge_the_drawers_mined_before_the_rule(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    owner = personas.owner.user
    mine(owner, "c1", TURNS)
    mine(personas.outsider.user, "c1", TURNS)  # the outsider's matching drawer is never touched
    rule_id = _rule(api, h, "word", "divorce").json()["id"]
    preview = api.get(f"{URL}/{rule_id}/preview", **h).json()
    secret = Drawer.objects.get(owner=owner, turn_index=1)
    assert preview["count"] == 1 and [d["id"] for d in preview["drawers"]] == [secret.pk]
    assert preview["drawers"][0]["preview"] == SECRET
    regex_id = _rule(api, h, "regex", r"(?i)okonkwo").json()["id"]
    assert api.get(f"{URL}/{regex_id}/preview", **h).json()["count"] == 1
    purged = api.post(f"{URL}/{rule_id}/purge", **h)
    body = purged.json()
    assert purged.status_code == 200 and {k: body[k] for k in ("rule_id", "deleted", "drawer_ids")} == {
        "rule_id": rule_id,
        "deleted": 1,
        "drawer_ids": [secret.pk],
    }
    assert body["receipt"]["counts"]["drawers"] == 1
    assert not Drawer.objects.filter(owner=owner, content__icontains="divorce").exists()
    assert Drawer.objects.filter(owner=owner).count() == 3
    assert Drawer.objects.filter(owner=personas.outsider.user, content__icontains="divorce").count() == 1
    event = ActivityEvent.objects.get(owner=owner, kind="exclusion_purged")
    assert "divorce" not in str(event.data).lower()
    assert api.get(f"{URL}/{rule_id}/preview", **h).json()["count"] == 0


def test_only_the_owner_s_agents_see_and_change_the_rules(api: APIClient, personas: Personas) -> None:
    rule_id = _rule(api, personas.owner.headers, "word", "divorce").json()["id"]
    listed = api.get(URL, **personas.teammate.headers).json()
    assert listed["count"] == 1 and listed["results"][0]["pattern"] == "divorce"
    outsider = personas.outsider.headers
    assert api.get(URL, **outsider).json()["count"] == 0
    assert api.get(f"{URL}/{rule_id}/preview", **outsider).status_code == 404
    assert api.post(f"{URL}/{rule_id}/purge", **outsider).status_code == 404
    assert api.delete(f"{URL}/{rule_id}", **outsider).status_code == 404
    assert ExclusionRule.objects.filter(pk=rule_id).exists()
    assert api.delete(f"{URL}/{rule_id}", **personas.teammate.headers).status_code == 204
    assert not ExclusionRule.objects.exists()
    assert api.delete(f"{URL}/{rule_id}", **personas.teammate.headers).status_code == 404
    logged = ActivityEvent.objects.filter(owner=personas.owner.user, kind="settings_changed")
    assert [list(e.data) for e in logged.order_by("created_at")] == [
        ["exclusion_rule_added"],
        ["exclusion_rule_deleted"],
    ]
    assert "divorce" not in str([e.data for e in logged])


def test_a_mining_job_records_the_skip_in_its_counts(personas: Personas) -> None:
    owner = personas.owner.user
    rule = exclusion_services.exclusion_rule_create(owner=owner, kind="word", pattern="divorce")
    turns = cast(list[intake.TurnInput], TURNS)
    job = intake.conversation_create(owner=owner, agent=None, external_id="c1", turns=turns, complete=True)
    jobs.job_run(job_id=job.pk)
    job = MiningJob.objects.get(pk=job.pk)
    assert job.status == "done" and job.counts["drawers"] == 3
    assert (job.counts["excluded"], job.counts["rules"]) == (1, [rule.pk])
