"""Start-up (issue 12): a lexical-only iqsetup imports only what it uses -- the registry answers
from its generated catalog and imports the requested families' modules only; the heavy optional
modules (torch, stanza, scipy, Dask...) are never imported; a warm run does not import the engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from mteval.metrics import catalog, registry

HEAVY = ("torch", "stanza", "scipy", "sklearn", "pandas", "matplotlib", "distributed", "dask", "tqdm",
         "rapidfuzz")  # rapidfuzz: TER's and WER's, not asked for below
UNUSED = ("mteval.annotate.layers", "mteval.annotate.parser", "mteval.metrics.meteor", "mteval.metrics.ter",
          "mteval.metrics.shallow_syntax", "mteval.setup.dask_engine", "mteval.setup.learned",
          "mteval.evaluate.outside_qarla", "mteval.meta", "difflib")

# Runs iqsetup's main twice in one fresh process (cold, then warm) and prints the modules each run added.
CHILD = """
import json, sys
from mteval.cli.iqsetup import main
before = set(sys.modules)
assert main(["-q", "-j", "1", sys.argv[1]]) == 0
cold = set(sys.modules)
for name in [m for m in sys.modules if m.startswith(("mteval.setup.engine", "concurrent", "multiprocessing"))]:
    del sys.modules[name]
warm_before = set(sys.modules)
assert main(["-q", "-j", "1", sys.argv[1]]) == 0
print(json.dumps({"cold": sorted(cold), "warm_added": sorted(set(sys.modules) - warm_before)}))
"""


def _imported(tmp_path: Path) -> dict[str, list[str]]:
    (tmp_path / "ref.txt").write_text("the cat sat on the mat\nhello world\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("a cat sat on a mat\nhello there world\n", encoding="utf-8")
    config = {"name": "lexical", "cache": str(tmp_path / "cache"), "references": {"A": str(tmp_path / "ref.txt")},
              "systems": {"S": str(tmp_path / "hyp.txt")}, "metrics": ["BLEU", "NIST-2", "chrF", "RG-L"]}
    path = tmp_path / "experiment.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _under(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


def test_a_lexical_run_imports_no_heavy_or_unused_module(tmp_path: Path) -> None:
    found = _imported(tmp_path)
    assert _under(found["cold"], HEAVY) == []
    assert _under(found["cold"], UNUSED) == []
    assert {"mteval.metrics.bleu_nist", "mteval.metrics.chrf", "mteval.metrics.rouge"} <= set(found["cold"])
    # a warm run (everything up to date) computes nothing: no engine, no process pool
    assert _under(found["warm_added"], ("mteval.setup.engine", "concurrent", "multiprocessing")) == []


def test_the_registered_order_does_not_depend_on_the_import_order() -> None:
    code = ("from mteval.metrics import registry; registry.create('METEOR'); registry.create('chrF'); "
            "print(registry.catalog_text())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == Path(catalog.__file__).read_text(encoding="utf-8") + "\n"


def test_the_catalog_is_up_to_date() -> None:
    text = Path(catalog.__file__).read_text(encoding="utf-8")
    assert text == registry.catalog_text(), "run: python -m mteval.metrics.registry (then commit catalog.py)"


# Answers of the registry from the catalog (nothing loaded), then from the registered families.
ANSWERS = """
import json, sys
from mteval.metrics import registry
def answers():
    names = registry.family_names()
    return {"families": names, "variants": registry.all_variants(), "aliases": registry.alias_table(),
            "of": {n: list(registry.variants_of(n)) for n in names},
            "expand": registry.expand(["BLEU", "MTR-para", "RG-L", "SP", "NE", "BLEU-4", "NIST"]),
            "family_of": {v: registry.family_of(v) for v in [*registry.all_variants(), *registry.alias_table()]},
            "mean": registry.did_you_mean("BLUE-4")}
first = answers()
loaded = sorted(m for m in sys.modules if m.startswith("mteval.metrics.") and m != "mteval.metrics.catalog")
registry.families()
print(json.dumps({"catalog": first, "registered": answers(), "loaded": loaded}))
"""


def test_the_catalog_answers_as_the_registered_families_do() -> None:
    done = subprocess.run([sys.executable, "-c", ANSWERS], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["catalog"] == found["registered"]
    assert found["loaded"] == ["mteval.metrics.aliases", "mteval.metrics.base", "mteval.metrics.parameters",
                               "mteval.metrics.registry"]


def test_a_family_created_alone_imports_its_module_only() -> None:
    code = ("import sys; from mteval.metrics import registry; f = registry.create('chrF'); "
            "print(f.family, sorted(m for m in sys.modules if m.startswith('mteval.metrics.') and m.count('.') == 2))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" ", 1)[0] == "chrF"
    assert "meteor" not in done.stdout and "bleu_nist" not in done.stdout and "mteval.metrics.chrf" in done.stdout


STALE = """
import sys
from mteval.metrics import catalog, registry
del catalog.VARIANTS["chrF++"]  # as if a family had gained a variant since the catalog was made
catalog.ALIASES.pop("MTR-para")
assert registry.expand(["chrF++", "MTR-para"]) == ["chrF++", "MTR-para"]
assert registry.family_of("chrF++") == "chrF" and registry.canonical("MTR-para") == "METEOR-stsypa"
assert type(registry.create("chrF")).__name__
print("ok")
"""


def test_a_stale_catalog_falls_back_to_the_registered_families() -> None:
    done = subprocess.run([sys.executable, "-c", STALE], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_commands_run_blas_on_one_thread() -> None:
    """Set before numpy is imported, so that results do not depend on the machine's cores (an EDPM
    statistic differed in its last digit between a 2-thread and a 1-thread BLAS on full ru-en)."""
    import os

    code = ("import sys, mteval.cli.iqsetup as m, os; "
            "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["1", "1"]
    kept = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**env, "OPENBLAS_NUM_THREADS": "2"})
    assert kept.stdout.split()[0] == "2"  # the user's own setting is kept


# The Python API (issue 30): ``import mteval`` alone imports no other module; scoring BLEU through it
# imports BLEU's family and the pipeline, never the heavy modules nor other families.
API_CHILD = """
import json, sys
import mteval
bare = sorted(m for m in sys.modules if m.startswith("mteval") or m == "numpy")
assert "score" in dir(mteval) and "Campaign" in mteval.__all__
try:
    mteval.no_such_name
except AttributeError:
    pass
else:
    raise SystemExit("mteval.no_such_name did not raise AttributeError")
found = mteval.score("BLEU", ["the cat sat on the mat", "hello world"], [["the cat sat on a mat", "hello world"]])
print(json.dumps({"bare": bare, "after": sorted(sys.modules), "score": found.score}))
"""


def test_import_mteval_is_bare_and_the_api_scores_bleu_without_heavy_modules() -> None:
    import os

    env = {**os.environ, "MTEVAL_PROGRESS": "0"}  # no progress bar: tqdm stays unimported too
    done = subprocess.run([sys.executable, "-c", API_CHILD], capture_output=True, text=True, timeout=300, env=env,
                          check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["bare"] == ["mteval"]
    assert 0 < found["score"] < 1
    assert _under(found["after"], HEAVY) == []
    read_path = ("mteval.evaluate.outside_qarla", "difflib")  # the API reads the scores back as iqeval does
    assert _under(found["after"], tuple(m for m in UNUSED if m not in read_path)) == []
    assert "mteval.metrics.bleu_nist" in found["after"] and "mteval.metrics.chrf" not in found["after"]
