"""Every failure is one `LociError(status, message, extra)`: the error envelope as the server wrote it,
a refused key, another owner's row, a network failure, a missing key."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from accounts import services as accounts
from tests.conftest import Personas

from loci_client import Loci, LociError  # isort: skip
from loci_client._base import MESSAGE_NO_KEY  # isort: skip

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_unknown_job_is_a_404_in_the_envelope(connect: Callable[..., Loci], personas: Personas) -> None:
    with pytest.raises(LociError) as caught:
        connect(personas.owner).job_get(str(uuid.uuid4()))
    assert (caught.value.status, caught.value.message, caught.value.extra) == (404, "Job not found.", {})


def test_invalid_input_carries_the_fields_and_stores_nothing(connect: Callable[..., Loci], personas: Personas) -> None:
    loci = connect(personas.owner)
    with pytest.raises(LociError) as caught:
        loci.memory_create("episodic", "")
    assert caught.value.status == 400 and caught.value.message == "Invalid input."
    assert set(caught.value.extra["fields"]) >= {"content"}
    assert loci.memory_query("anything")["count"] == 0


def test_a_too_big_working_memory_is_a_413_with_its_sizes(connect: Callable[..., Loci], personas: Personas) -> None:
    with pytest.raises(LociError) as caught:
        connect(personas.owner).working_memory_set("c1", {"blob": "x" * 70_000})
    assert caught.value.status == 413
    assert caught.value.extra["limit_bytes"] == 64 * 1024 and caught.value.extra["size_bytes"] > 64 * 1024


def test_a_wrong_or_revoked_key_is_a_401(live_server: Any, personas: Personas) -> None:
    with Loci(live_server.url, "loci_nope_nope") as loci, pytest.raises(LociError) as caught:
        loci.ledger_check("c1", "x")
    assert (caught.value.status, caught.value.message) == (401, "Invalid or revoked API key.")
    accounts.api_key_revoke(api_key=personas.owner.api_key)
    with Loci(live_server.url, personas.owner.key) as loci, pytest.raises(LociError) as caught:
        loci.ledger_check("c1", "x")
    assert caught.value.status == 401


def test_another_owners_job_is_a_404_and_a_teammates_is_visible(
    connect: Callable[..., Loci], personas: Personas
) -> None:
    job_id = connect(personas.owner).conversation_create("c1", [{"role": "user", "content": "hello"}])["job_id"]
    assert connect(personas.teammate).job_get(job_id)["conversation_id"] == "c1"
    with pytest.raises(LociError) as caught:
        connect(personas.outsider).job_get(job_id)
    assert caught.value.status == 404
    with pytest.raises(LociError) as caught:
        connect(personas.outsider).forget_conversation("c1")
    assert caught.value.status == 404
    assert connect(personas.teammate).job_get(job_id)["status"] == "queued"


def test_a_network_failure_is_a_loci_error_without_a_status() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, never listening: the connection is refused
        with Loci(f"http://127.0.0.1:{port}", "loci_a_b", timeout=2) as loci, pytest.raises(LociError) as caught:
            loci.recall("anything")
    assert caught.value.status is None and "ConnectError" in caught.value.message


def test_the_environment_gives_the_url_and_key(
    live_server: Any, personas: Personas, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCI_URL", live_server.url + "/api/v1/")
    monkeypatch.setenv("LOCI_API_KEY", personas.owner.key)
    with Loci() as loci:
        assert loci.ledger_check("c1", "x")["injected"] is False
    monkeypatch.delenv("LOCI_API_KEY")
    with pytest.raises(LociError) as caught:
        Loci()
    assert (caught.value.status, caught.value.message) == (None, MESSAGE_NO_KEY)
