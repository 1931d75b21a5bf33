# unosim: `make demo` and `make test` each set up everything they need on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-fast soak bench lint clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,rl]'
	touch $(STAMP)

demo: install
	$(VENV)/bin/unosim demo --out results/demo

test: install
	$(PY) -m pytest -q -n 2 --dist loadgroup -m "not soak" tests

soak: install
	$(PY) -m pytest -q -n 2 --dist loadgroup -m soak tests

test-fast: install
	$(PY) -m pytest -q -x -m "not slow and not soak" tests

bench: install
	$(PY) scripts/bench.py

lint: install
	$(VENV)/bin/ruff check unosim tests scripts

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
