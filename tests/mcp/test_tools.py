"""Every tool but recall (tests/mcp/test_http.py) through the SDK's client: each runs the same operation as
its REST endpoint, as the key's agent, and another owner's agent reaches none of it."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.client.session import ClientSession

from episodic.models import TypedMemory
from tests.conftest import Personas
from tests.mcp.client import over_http, structured

pytestmark = pytest.mark.django_db(transaction=True)


def _calls(url: str, key: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def work(session: ClientSession) -> list[Any]:
        return [await session.call_tool(name, arguments) for name, arguments in calls]

    return over_http(url, key, work)


def test_the_memory_tools_act_for_the_owner_and_never_for_an_outsider(live_server: Any, personas: Personas) -> None:
    url = live_server.url
    remembered, wm_set, marked, fact = _calls(
        url,
        personas.owner.key,
        [
            ("remember", {"memory_type": "semantic", "content": "Anna prefers window seats.", "entity_id": "anna"}),
            ("working_memory", {"conversation_id": "c1", "action": "set", "fields": {"goal": "book a flight"}}),
            ("ledger", {"conversation_id": "c1", "action": "mark", "item": "skill-travel"}),
            ("kg_add", {"subject": "Anna", "predicate": "lives_in", "object": "Porto"}),
        ],
    )
    assert not any(result.is_error for result in (remembered, wm_set, marked, fact)), (remembered, fact)
    assert TypedMemory.objects.filter(owner=personas.owner.user, content="Anna prefers window seats.").exists()

    found, wm, checked, facts, context = _calls(
        url,
        personas.teammate.key,
        [
            ("search_memories", {"query": "window seats", "memory_types": ["semantic"]}),
            ("working_memory", {"conversation_id": "c1", "action": "get"}),
            ("ledger", {"conversation_id": "c1", "action": "check", "item": "skill-travel"}),
            ("kg_query", {"entity": "Anna"}),
            ("context", {"query": "Where does Anna live?", "token_budget": 500}),
        ],
    )
    assert not found.is_error and not wm.is_error and not checked.is_error and not facts.is_error
    assert "Porto" in str(structured(facts))
    assert not context.is_error and structured(context)["token_budget"] == 500

    outsider = _calls(
        url,
        personas.outsider.key,
        [
            ("search_memories", {"query": "window seats"}),
            ("working_memory", {"conversation_id": "c1", "action": "get"}),
            ("ledger", {"conversation_id": "c1", "action": "check", "item": "skill-travel"}),
            ("kg_query", {"entity": "Anna"}),
            ("forget", {"kind": "entity", "id": "Anna"}),
        ],
    )
    searched, their_wm, their_ledger, their_facts, refused = (structured(result) for result in outsider)
    assert "window seats" not in str(searched)
    assert "book a flight" not in str(their_wm)
    assert their_ledger.get("injected") is not True
    assert "Porto" not in str(their_facts)
    assert outsider[4].is_error and refused["status"] == 404

    forgotten = structured(_calls(url, personas.owner.key, [("forget", {"kind": "entity", "id": "Anna"})])[0])
    assert "receipt" in forgotten, forgotten


def test_bad_arguments_are_a_tool_error_the_model_can_read(live_server: Any, personas: Personas) -> None:
    missing, unset, bad_drawer, superscript, slashed, slashed_forget = _calls(
        live_server.url,
        personas.owner.key,
        [
            ("recall", {"top_k": 3}),
            ("working_memory", {"conversation_id": "c1", "action": "set"}),
            ("forget", {"kind": "drawer", "id": "twelve"}),
            ("forget", {"kind": "drawer", "id": "\u00b2"}),  # a digit to str.isdigit, not to int()
            ("working_memory", {"conversation_id": "wm1/keys", "action": "get"}),  # no other route by a slash
            ("forget", {"kind": "conversation", "id": "c1/turns"}),
        ],
    )
    assert missing.is_error and "query" in structured(missing)["extra"]["fields"]  # as REST names them
    assert unset.is_error and "fields" in structured(unset)["message"]
    assert bad_drawer.is_error and "number" in structured(bad_drawer)["message"]
    assert superscript.is_error and "number" in structured(superscript)["message"]
    assert slashed.is_error and "conversation_id" in structured(slashed)["extra"]["fields"]
    assert slashed_forget.is_error and "Conversation ids" in structured(slashed_forget)["message"]


def test_kg_query_reaches_names_with_spaces_and_slashes(live_server: Any, personas: Personas) -> None:
    added = [
        ("kg_add", {"subject": "Anna Smith", "predicate": "works_at", "object": "Acme Labs"}),
        ("kg_add", {"subject": "R/D Team", "predicate": "based_in", "object": "Porto"}),
        ("kg_add", {"subject": "Łódź Office", "predicate": "based_in", "object": "東京"}),
    ]
    queried = [
        ("kg_query", {"entity": "Anna Smith"}),
        ("kg_query", {"entity": "R/D Team"}),
        ("kg_query", {"entity": "Łódź Office"}),
    ]
    results = _calls(live_server.url, personas.owner.key, [*added, *queried])
    assert not any(result.is_error for result in results), results
    assert "Acme Labs" in str(structured(results[3])) and "Porto" in str(structured(results[4]))
    assert "東京" in str(structured(results[5]))
