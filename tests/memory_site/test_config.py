from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_site.config import BASE_DIR, ConfigError, load_config


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"MEMORY_PORT": "abc"}, "MEMORY_PORT must be an integer, got 'abc'"),
        ({"MEMORY_PORT": "70000"}, "MEMORY_PORT must be at most 65535, got 70000"),
        ({"DJANGO_DEBUG": "perhaps"}, "DJANGO_DEBUG must be one of"),
        ({"DATABASE_URL": "mysql://x/y"}, "DATABASE_URL must be a URL starting with postgres:// or postgresql://"),
        ({"API_THROTTLE_RATE": "lots"}, "API_THROTTLE_RATE must look like 1200/min"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR"),
    ],
)
def test_a_malformed_value_is_refused_with_its_message(environ: dict[str, str], message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config({"LOCI_STATE_DIR": str(tmp_path), **environ})


def test_defaults_are_typed(tmp_path: Path) -> None:
    config = load_config({"LOCI_STATE_DIR": str(tmp_path)})
    assert (config.host, config.port, config.debug) == ("127.0.0.1", 8002, False)
    assert config.working_memory_ttl == 86400


def test_a_secret_key_is_generated_once_into_the_state_folder(tmp_path: Path) -> None:
    first = load_config({"LOCI_STATE_DIR": str(tmp_path)}).secret_key
    assert len(first) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
    assert load_config({"LOCI_STATE_DIR": str(tmp_path)}).secret_key == first
    assert load_config({"LOCI_STATE_DIR": str(tmp_path), "DJANGO_SECRET_KEY": "given"}).secret_key == "given"


@pytest.mark.parametrize("entry", [["manage.py", "check"], ["-m", "memory_site.launcher", "run"]])
def test_start_up_stops_with_a_one_line_message(entry: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "LOCI_STATE_DIR": str(tmp_path), "MEMORY_PORT": "abc"}
    result = subprocess.run([sys.executable, *entry], env=env, cwd=BASE_DIR, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr == "loci: configuration error: MEMORY_PORT must be an integer, got 'abc'\n"
    # Nothing was started: no database folder in the state folder.
    assert not (tmp_path / "postgres").exists()
