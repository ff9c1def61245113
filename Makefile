# mteval — see README.md. All targets run offline on a fresh machine.
# Every target runs in the project's virtual environment VENV (.venv, made by `make install` from
# PYTHON, reused while current: docs/install.md); VENV= installs into PYTHON's own environment.
PYTHON ?= python3
VENV ?= .venv
EXTRAS ?= syntax,test,dask,models,ru,fr,spm
HOST_PYTHON := $(PYTHON)
ifneq ($(strip $(VENV)),)
override PYTHON := $(abspath $(VENV))/bin/python
export PATH := $(abspath $(VENV))/bin:$(PATH)
export VIRTUAL_ENV := $(abspath $(VENV))
endif
PIP ?= $(PYTHON) -m pip
CONFIG ?= configs/example.yaml

.PHONY: install demo demo-syntax test test-all test-lexical research-test lint bench clean models models-eval models-long

install:  # torch first, pinned to the CPU build (a plain `torch` requirement pulls a multi-GB CUDA build)
	@bash tools/install.sh '$(HOST_PYTHON)' '$(VENV)' '$(EXTRAS)'

demo: install
	iqsetup $(CONFIG)
	iqeval -doOQ -doQUEEN -G sys -O 0 $(CONFIG)
	iqeval -doKING -optimizeKING -G seg $(CONFIG)
	@echo
	@echo "make demo: iqsetup computed every metric of $(CONFIG) for its systems and references into its"
	@echo "cache; iqeval printed the systems x metrics matrix with QUEEN, then KING and the metric set"
	@echo "-optimizeKING picked. Next: $(if $(strip $(VENV)),. $(VENV)/bin/activate and then) iqeval -h;"
	@echo "  mteval report $(CONFIG) -assessments data/wmt21-ende-sample/human/mqm.tsv -o report.html;"
	@echo "  make demo-syntax (the linguistic metrics, parsing with the embedded English models)."

# syntactic metrics on the English sample (parses ~700 distinct sentences with the embedded models)
demo-syntax: install
	iqsetup configs/example-syntax.yaml
	iqeval -doOQ -G sys -O 0 configs/example-syntax.yaml

# mypy checks the whole package and the tools (setup.cfg [mypy]; an exclude list there, empty today).
# research/ (the training lab, not installed) is checked by ruff only.

lint:
	ruff check mteval tests bench tools research
	mypy mteval tools
	lint-imports

# The fast tier (unit, property, CLI, parity on committed oracles; ~4.5 minutes on an idle 2-core
# machine): what a contributor runs. test-all runs every test, the slow ones, ../shared's, the browser's,
# Dask's and the training runs too, and research/tests (the training lab's, also `make research-test`):
# what CI runs (.ci/run). Tiers are pytest markers (setup.cfg).
FAST_TESTS = not slow and not browser and not dask and not training
# Tests run in TEST_WORKERS processes (pytest-xdist, the `test` extra; auto = one a core, at most 8
# and one per 3 GiB of memory: tests/conftest.py), a test module's tests on one worker (--dist
# loadscope: its module fixtures are built once); TEST_WORKERS=0 runs them all in this process (pdb, -x).
TEST_WORKERS ?= auto
PYTEST = $(PYTHON) -m pytest -q -p no:cacheprovider -rs -n $(TEST_WORKERS) --dist loadscope

test: install lint
	$(PYTEST) -m "$(FAST_TESTS)" tests

test-all: install lint
	$(PYTEST) tests research/tests

# The fast tier in a lexical-only environment (the `test` extra, no Stanza/torch: the parsing tests
# skip with their reason), in its own venv, on any Python: make test-lexical PYTHON=python3.13.
# CI runs it on the oldest supported and the newest Python it finds (.ci/run; docs/install.md).
LEXICAL_VENV ?= build/venv-lexical
test-lexical:
	$(MAKE) test VENV=$(LEXICAL_VENV) EXTRAS=test

research-test: install
	$(PYTHON) -m pytest -q -p no:cacheprovider -rs research/tests

bench: install
	$(PYTHON) bench/run_all.py

clean:  # keeps build/models-long: the long training run's checkpoints (hours of CPU; research/models/README.md)
	if [ -d build ]; then find build -mindepth 1 -maxdepth 1 ! -name models-long -exec rm -rf {} +; fi
	rm -rf dist *.egg-info demo-cache bench/out .pytest_cache .mypy_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# The embedded English Stanza models (mteval/resources/models/en_ewt, CC BY-SA 4.0): retrain them
# from ../shared/ud (CPU, hours; STAGES="ner" for one stage, QUICK=1 MODELS_OUT=DIR for a smoke run,
# DRY_RUN=1 to print the commands: research/models/README.md) and score them (docs/annotation.md).
models:
	PYTHON=$(PYTHON) bash research/models/train_models.sh ../shared build/models

models-eval:
	$(PYTHON) research/models/eval_models.py ../shared

# Issue 15's long, resumable training of the tagger then the parser (one niced thread; the same
# command starts and resumes it; stop with kill $$(cat build/models-long/train_long.pid)).
models-long:
	mkdir -p build/models-long
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 nice -n 19 $(PYTHON) research/models/train_long.py --work build/models-long --max-steps 20000

# A meta-evaluation campaign (docs/meta-evaluation.md): compute the scores (with system/system
# files for JACK), then save metric scores, QUEEN/KING/JACK and the -optimizeKING trace, and, with
# ASSESSMENTS=FILE, system- and segment-level correlations with 95% CIs, as TSV under REPORT.
#   make campaign CONFIG=configs/example.yaml ASSESSMENTS=data/wmt21-ende-sample/human/mqm.tsv
# QARLA=no skips QUEEN/KING/JACK (they need at least 3 references).
REPORT ?= out/campaign/$(basename $(notdir $(CONFIG)))
QARLA ?= yes
.PHONY: campaign report
campaign:
	iqsetup $(if $(filter yes,$(QARLA)),-JACK) $(CONFIG)
	mkdir -p $(REPORT)
	iqeval -doOQ -G sys --tsv $(CONFIG) > $(REPORT)/scores.sys.tsv
ifeq ($(QARLA),yes)
	iqeval -doQUEEN -doKING -doJACK -G sys --tsv $(CONFIG) > $(REPORT)/qarla.sys.tsv
	iqeval -doQUEEN -doKING -G seg --tsv $(CONFIG) > $(REPORT)/qarla.seg.tsv
	iqeval -optimizeKING -G seg --tsv $(CONFIG) > $(REPORT)/optimize_king.tsv
endif
ifneq ($(ASSESSMENTS),)
	iqeval -assessments $(ASSESSMENTS) -G sys --significance --tsv $(CONFIG) > $(REPORT)/correlations.sys.tsv
	iqeval -assessments $(ASSESSMENTS) -G seg --mean-removed --weighted --tsv $(CONFIG) > $(REPORT)/correlations.seg.tsv
endif
	@echo "campaign report in $(REPORT)/"

# Campaign report (docs/report.md): one self-contained HTML file from the score cache.
#   make report CONFIG=configs/example.yaml ASSESSMENTS=data/wmt21-ende-sample/human/mqm.tsv
report:
	iqsetup $(CONFIG)
	mkdir -p $(REPORT)
	mteval report $(CONFIG) $(if $(ASSESSMENTS),-assessments $(ASSESSMENTS)) -o $(REPORT)/report.html
