# looplift — CI runs `make test`, then `make test-slow`; `make check` adds lint.

.DEFAULT_GOAL := help
.PHONY: help venv test test-slow check docs demo demo-cluster clean

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.stamp

# Spark's Python workers must run the venv's interpreter (pandas, pyarrow, looplift).
export PYSPARK_PYTHON := $(abspath $(BIN)/python)

help:  ## list the targets
	@echo "make venv   create $(VENV) ($(PYTHON)) and install looplift with its test extras"
	@echo "make test   run the test suite, without the cases marked slow (CI runs it first)"
	@echo "make test-slow  run the slow cases, in their reduced form (CI runs it after make test)"
	@echo "make check  ruff, then the test suite"
	@echo "make docs   build the documentation site (docs/, mkdocs.yml) into build/site"
	@echo "make demo   run the compiled clickstream on 1M clicks on a local Spark, next to a hand-written UDF"
	@echo "make demo-cluster  build clickstream to build/, run it on a standalone Spark cluster (master + 2 workers)"
	@echo "make clean  remove build output and caches (keeps $(VENV))"

venv: $(STAMP)

# Re-installs only when pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

# Two pytest-xdist workers, a file each at a time, each with its own SparkSession: the
# suite's Spark work is mostly driver latency, so two sessions keep both cores busy.
test: $(STAMP)
	$(BIN)/pytest -q -m "not slow" --durations=20 -n 2 --dist loadfile

# The cases marked slow (kills of processes, the cluster, builds run by spark-submit,
# more generated inputs), in the reduced form tests/README.md's variables scale up.
test-slow: $(STAMP)
	$(BIN)/pytest -q -m slow --durations=10 -n 2 --dist loadfile

check: $(STAMP)
	$(BIN)/ruff check compiler runtime states shells tests samples jvm
	$(MAKE) test test-slow

docs: $(STAMP)
	$(BIN)/mkdocs build --strict -d build/site

demo: $(STAMP)
	$(BIN)/uda-compile --explain samples/clickstream.py --only clickstream
	$(BIN)/python -m tests.perf.demo

# Starts a master and two workers on 127.0.0.1, spark-submits tests/cluster/job.py with
# --py-files build/clickstream.zip, stops the cluster also on failure.
demo-cluster: $(STAMP)
	$(BIN)/python -m tests.cluster.demo

clean:
	rm -rf build dist spark-warehouse metastore_db derby.log .pytest_cache .hypothesis .ruff_cache
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +
