"""Dependencies (issue 19 §5): every package the service installs is pinned to one version, and the
environment the suite runs in holds exactly those versions, so what was audited is what runs. The
vulnerability audit itself (`make audit`, pip-audit) needs an advisory service over the network; see
docs/security.md."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
# Build tooling, not imported by the service: a floor is enough.
UNPINNED = {"setuptools"}


def requirements(name: str) -> dict[str, str]:
    pins: dict[str, str] = {}
    for raw in (BASE_DIR / name).read_text().splitlines():
        line = raw.split("#")[0].strip()
        if not line or line.startswith(("-r", "-e")):
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-\[\],]+?)(?:\[[^\]]*\])?==([^\s;]+)(?:\s*;.*)?", line)
        package = re.split(r"[<>=!~\[; ]", line)[0]
        if package.lower() in UNPINNED:
            continue
        assert match, f"{name}: {line!r} is not pinned to one version"
        pins[match.group(1)] = match.group(2)
    return pins


def test_every_dependency_is_pinned_and_installed_at_its_pin() -> None:
    pins = requirements("requirements.txt") | requirements("requirements-dev.txt")
    assert len(pins) > 50
    wrong = {
        package: (pin, metadata.version(package)) for package, pin in pins.items() if metadata.version(package) != pin
    }
    assert wrong == {}
