"""The README's agent loop, run as written: the code block under "## From Python" is executed with a
scripted `input` and a stub LLM, against the live server and a real worker."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from memory_site.config import BASE_DIR
from palace.models import MiningJob
from tests.conftest import Personas

from loci_client import Loci  # isort: skip

pytestmark = pytest.mark.django_db(transaction=True)

EARLIER = [
    {"role": "user", "content": "My router is a Fritzbox 7590 and it drops Wi-Fi every evening."},
    {"role": "assistant", "content": "A Fritzbox 7590 dropping Wi-Fi in the evening often means channel congestion."},
]


def readme_agent_loop() -> str:
    readme = (BASE_DIR / "README.md").read_text()
    section = readme.split("## From Python", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README has no agent loop under ## From Python"
    return match.group(1)


def test_the_readme_agent_loop_runs_and_its_prompt_holds_the_memory(
    live_server: Any,
    personas: Personas,
    connect: Callable[..., Loci],
    monkeypatch: pytest.MonkeyPatch,
    celery_worker: str,
) -> None:
    code = readme_agent_loop()
    assert len(code.strip().splitlines()) <= 12
    loci = connect(personas.owner)
    earlier = loci.conversation_create("router-1", EARLIER, complete=True)
    assert loci.job_wait(earlier["job_id"], timeout=60, interval=0.1)["status"] == "done"

    monkeypatch.setenv("LOCI_URL", live_server.url)
    monkeypatch.setenv("LOCI_API_KEY", personas.owner.key)
    said = iter(["Which router do I have?", "Thanks, that fixed it.", ""])
    prompts: list[dict[str, str]] = []

    def call_llm(*, system: str, user: str) -> str:
        prompts.append({"system": system, "user": user})
        return f"answer {len(prompts)}"

    exec(code, {"input": lambda _prompt: next(said), "call_llm": call_llm, "print": lambda *_: None})

    assert [p["user"] for p in prompts] == ["Which router do I have?", "Thanks, that fixed it."]
    assert "<memory_context>" in prompts[0]["system"] and "Fritzbox 7590" in prompts[0]["system"]
    # The loop's own conversation was stored turn by turn, completed and is now mined.
    job = MiningJob.objects.filter(conversation__external_id="support-42").latest("requested_at")
    done = loci.job_wait(str(job.id), timeout=60, interval=0.1)
    assert done["status"] == "done" and done["counts"]["drawers"] == 4, done
    recalled = loci.recall("Did the router fix work?", top_k=5)
    assert "Thanks, that fixed it." in [hit["content"] for hit in recalled["results"]]
