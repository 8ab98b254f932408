# Loci: `make run` serves, `make test` tests. Both set everything up on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: run test lint audit clean-state

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $(VENV)/.runtime $@

run: $(VENV)/.runtime
	$(PY) -m memory_site.launcher run

# The browser tests drive Debian's chromium through Playwright (never `playwright install`).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

test: $(VENV)/.dev $(CHROMIUM)
	$(PY) -m memory_site.launcher test $(PYTEST_ARGS)

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check . && $(VENV)/bin/mypy .

# Known vulnerabilities in the pinned versions: needs PyPI's JSON API or OSV over the network (docs/security.md).
audit: $(VENV)/.dev
	$(PY) -m pip install --quiet --disable-pip-version-check pip-audit
	$(VENV)/bin/pip-audit --requirement requirements.txt --requirement requirements-dev.txt --no-deps --disable-pip

clean-state:
	rm -rf .state
