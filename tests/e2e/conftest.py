"""Real Chromium (Debian's `chromium`, which `make test` installs) driven by Playwright against the live
test server: pages as a person sees them, with JavaScript and htmx running. Never `playwright install`:
the browser is the system's."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from memory_site.config import BASE_DIR

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = BASE_DIR / "docs" / "screenshots"

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make between browser
# steps are synchronous and safe here (Django refuses them inside a running loop unless told).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Per module, not per session: Playwright's sync API keeps an event loop running in this thread
    while it is open, and tests after it that run their own loop (asyncio.run: the MCP and async client
    tests) would fail."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="session", autouse=True)
def _connections_closed(live_server_connections_closed: None) -> None:
    """Every test here runs against the live server (tests/fixtures/live_server.py says why)."""


def logged_in_page(chromium: Any, live_server: Any, user: Any, width: int = 1280) -> Any:
    """A browser page with `user`'s session (the login form itself is tested once, in test_login)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context = chromium.new_context(base_url=live_server.url, viewport={"width": width, "height": 900})
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live_server.url}])
    return context.new_page()


def axe_violations(page: Any) -> list[str]:
    """Serious and critical axe-core violations of the page as it is now (axe runs in the same Chromium)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {', '.join(str(n['target']) for n in v['nodes'][:3])}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def screenshot(page: Any, name: str) -> None:
    """docs/screenshots/<name>.png, when LOCI_SCREENSHOTS is set (the README shows them)."""
    if os.environ.get("LOCI_SCREENSHOTS"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
