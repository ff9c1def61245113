"""The configuration corpus: odd and hostile experiment files either work or are refused fast with
one line naming the file (and line) and the problem, exit 2, no traceback and nothing written."""

from __future__ import annotations

import json
import resource
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from helpers import ENDE, ende_config, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bad_input import assert_user_error

from mteval import names
from mteval.errors import ConfigError
from mteval.evaluate.trial import with_trial_system
from mteval.experiment import config as config_module
from mteval.experiment.loading import load
from mteval.store.iqxml import parse

REF_A = json.dumps(str(ENDE / "refs" / "A.de"))
REF_C = json.dumps(str(ENDE / "refs" / "C.de"))
UEDIN = json.dumps(str(ENDE / "sys" / "UEdin.de"))
ONLINE = json.dumps(str(ENDE / "sys" / "Online-W.de"))
MEMORY_LIMIT = 1 << 30  # address space of a refused iqsetup (an alias bomb used to take all memory)


def experiment(systems: str = f"  UEdin: {UEDIN}\n", references: str = f"  A: {REF_A}\n",
               metrics: str = "[BLEU]", extra: str = "", head: str = "cache: cache\n") -> str:
    """A YAML experiment (by default the cache is ./cache beside it) with the given blocks."""
    return f"{head}references:\n{references}systems:\n{systems}metrics: {metrics}\n{extra}"


def write(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """The 1-based number of the line holding the ``nth`` occurrence of ``needle``."""
    hits = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    return hits[nth - 1]


def run_limited(*args: str) -> subprocess.CompletedProcess[str]:
    """Run an installed command with its address space capped at MEMORY_LIMIT."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(list(args), capture_output=True, text=True, timeout=120, preexec_fn=cap)


def refuse(tmp_path: Path, text: str, *fragments: str, line: int | None = None) -> str:
    """iqsetup refuses the experiment ``text``: one line naming exp.yaml (and the line), exit 2, nothing
    written beside the config. Returns the error line."""
    config = write(tmp_path, text)
    result = run_limited("iqsetup", "-q", str(config))
    where = f"exp.yaml:{line}: " if line is not None else "exp.yaml"
    assert_user_error(result, where, *fragments)
    assert [p.name for p in tmp_path.iterdir()] == ["exp.yaml"]
    return result.stderr.strip()


def refuse_load(config: Path, *fragments: str) -> None:
    """load() (in-process, for the cases beyond the corpus run through iqsetup) refuses ``config``."""
    with pytest.raises(ConfigError) as caught:
        load(config)
    message = caught.value.format()
    assert message.startswith(str(config)) and "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


# --- the shape of the file -------------------------------------------------------------------------

def test_list_instead_of_mapping(tmp_path: Path) -> None:
    refuse(tmp_path, "- references\n- systems\n", "expected a YAML mapping", "the file is a list")


def test_scalar_instead_of_mapping(tmp_path: Path) -> None:
    refuse(tmp_path, "42\n", "expected a YAML mapping", "the file is a number")


def test_duplicate_top_level_key(tmp_path: Path) -> None:
    text = experiment(extra="metrics: [NIST]\n")
    refuse(tmp_path, text, "duplicate key 'metrics'", f"first at line {line_of(text, 'metrics')}",
           line=line_of(text, "metrics", 2))


def test_duplicate_system(tmp_path: Path) -> None:
    text = experiment(systems=f"  UEdin: {UEDIN}\n  UEdin: {ONLINE}\n")
    refuse(tmp_path, text, "duplicate key 'UEdin'", line=line_of(text, "UEdin", 2))


def test_duplicate_set(tmp_path: Path) -> None:
    text = experiment(extra="sets:\n  some: [UEdin]\n  other: [BLEU]\n  some: [A]\n")
    refuse(tmp_path, text, "duplicate key 'some'", line=line_of(text, "some:", 2))


def test_yaml_merge_keys_still_override(tmp_path: Path) -> None:
    config = write(tmp_path, experiment(systems=f"  UEdin: &e {{path: {UEDIN}, format: plain}}\n"
                                                f"  Other: {{<<: *e, path: {ONLINE}}}\n"))
    systems = load(config).systems
    assert [(s.path.name, s.format) for s in systems] == [("UEdin.de", "plain"), ("Online-W.de", "plain")]


def test_null_optional_keys_take_their_defaults(tmp_path: Path) -> None:
    text = experiment(head="cache: ~\nname: ~\nlanguage: ~\nformat: ~\ncase: ~\nsource: ~\n",
                      extra="sets: ~\nannotation: {cache: ~, workers: ~}\nhybridize: ~\n")
    loaded = load(write(tmp_path, text))
    assert (loaded.cache, loaded.name, loaded.language) == (tmp_path / "exp-cache", "exp", "en")
    assert (loaded.source, loaded.sets, loaded.annotation, loaded.hybridize) == (None, {}, {}, None)


# --- names that become cache folders --------------------------------------------------------------

BAD_NAMES = ["..", ".", "a/b", "a b", "$(rm -rf x)", ";", ".hidden", "x" * 300]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_system_name(tmp_path: Path, name: str) -> None:
    text = experiment(systems=f"  {json.dumps(name)}: {UEDIN}\n")
    error = refuse(tmp_path, text, "key 'systems'", "is not allowed", line=line_of(text, UEDIN))
    assert "x" * (config_module.QUOTE_CHARS + 1) not in error  # quoted values are cut short


@pytest.mark.parametrize("name", ["..", "a/b", ".hidden"])
def test_bad_reference_name(tmp_path: Path, name: str) -> None:
    text = experiment(references=f"  {json.dumps(name)}: {REF_A}\n")
    refuse(tmp_path, text, "key 'references'", "is not allowed", line=line_of(text, REF_A))


@pytest.mark.parametrize(("name", "kind"), [("~", "null"), ("yes", "a boolean"), ("1", "a number")])
def test_names_that_are_not_yaml_strings(tmp_path: Path, name: str, kind: str) -> None:
    text = experiment(systems=f"  {name}: {UEDIN}\n")
    refuse(tmp_path, text, "is not a string", f"YAML reads it as {kind}", "quote it", line=line_of(text, UEDIN))


def test_case_collision(tmp_path: Path) -> None:
    text = experiment(systems=f"  Sys: {UEDIN}\n  sys: {ONLINE}\n")
    refuse(tmp_path, text, "'Sys' and 'sys'", "differ only in case", line=line_of(text, "sys:"))


def test_reference_named_like_a_system(tmp_path: Path) -> None:
    text = experiment(systems=f"  A: {UEDIN}\n")
    refuse(tmp_path, text, "'A' is also a reference name", line=line_of(text, UEDIN))


def test_hybrid_name_is_a_folder_name(tmp_path: Path) -> None:
    text = experiment(references=f"  A: {REF_A}\n  C: {REF_C}\n", extra="hybridize: {name: '..'}\n")
    refuse(tmp_path, text, "key 'hybridize.name'", "is not allowed")
    text = experiment(references=f"  A: {REF_A}\n  C: {REF_C}\n", extra="hybridize: {name: uedin}\n")
    refuse(tmp_path, text, "key 'hybridize.name'", "differ only in case")


def test_non_ascii_name_works(tmp_path: Path) -> None:
    config = write(tmp_path, experiment(systems=f"  Übersetzer: {UEDIN}\n"))
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    assert parse(tmp_path / "cache" / "Übersetzer" / "A" / "BLEU.xml").scores.system > 0


def test_same_file_as_two_systems_gives_equal_scores(tmp_path: Path) -> None:
    config = write(tmp_path, experiment(systems=f"  One: {UEDIN}\n  Two: {UEDIN}\n", metrics="[BLEU, NIST]"))
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    for metric in ("BLEU", "NIST"):
        one, two = (parse(tmp_path / "cache" / s / "A" / f"{metric}.xml").scores for s in ("One", "Two"))
        assert one.system == two.system > 0 and list(one.segments) == list(two.segments)


# --- types of the other keys ------------------------------------------------------------------------

def test_no_metrics(tmp_path: Path) -> None:
    text = experiment(metrics="[]")
    refuse(tmp_path, text, "key 'metrics'", "no metrics", line=line_of(text, "metrics"))
    result = run("iqeval", "-doQUEEN", str(tmp_path / "exp.yaml"))  # used to end in a traceback
    assert_user_error(result, "exp.yaml", "no metrics")


def test_language_must_be_a_code(tmp_path: Path) -> None:
    text = experiment(extra="language: [de]\n")
    refuse(tmp_path, text, "key 'language'", "expected a language code", line=line_of(text, "language"))


def test_annotation_workers_must_be_a_number(tmp_path: Path) -> None:
    text = experiment(extra="annotation: {workers: many}\n")
    refuse(tmp_path, text, "key 'annotation.workers'", "expected an integer from 1 to", "'many'",
           line=line_of(text, "annotation"))


@pytest.mark.parametrize(("extra", "fragments"), [
    ("annotation: {workers: 0}\n", ("annotation.workers", "got 0")),
    ("annotation: {threads: 2}\n", ("key 'annotation'", "unknown key 'threads'")),
    ("annotation: {processors: [tokenize]}\n", ("annotation.processors",)),
    ("annotation: {max_words: 1.5}\n", ("annotation.max_words",)),
    ("sets: {s: [[UEdin]]}\n", ("key 'sets.s'", "members are names or segment numbers")),
    ("sets: [UEdin]\n", ("key 'sets'", "expected a mapping")),
    ("sets: {UEdin: [A]}\n", ("key 'sets'", "'UEdin' is also a system, reference or metric name")),
    ("sets: {BLEU: [NIST]}\n", ("key 'sets'", "'BLEU' is also a system, reference or metric name")),
    ("sets: {m: []}\n", ("key 'sets.m'", "the set is empty")),  # iqeval -doQUEEN -M m: a traceback
    ("sets: {t: ' , '}\n", ("key 'sets.t'", "the set is empty")),  # iqeval -doOQ -T t: a traceback
    ("sets: {s: ['']}\n", ("key 'sets.s'", "empty name")),
    ("case: yes\n", ("key 'case'", "True is not one of cs, ci")),
    ("name: [x]\n", ("key 'name'", "is not a string")),
    ("cache: [x]\n", ("key 'cache'", "expected a path")),
    ("hybridize: {references: AC}\n", ("key 'hybridize.references'", "expected a list")),
])
def test_key_types(tmp_path: Path, extra: str, fragments: tuple[str, ...]) -> None:
    refuse_load(write(tmp_path, experiment(extra=extra, head="")), *fragments)


def test_entry_types(tmp_path: Path) -> None:
    text = experiment(systems=f"  UEdin: {{path: {UEDIN}, sysid: 7}}\n")
    refuse_load(write(tmp_path, text), f":{line_of(text, UEDIN)}: ", "key 'systems.UEdin.sysid'", "7 is not a string")
    text = experiment(systems=f"  UEdin: {{path: {UEDIN}, format: xml}}\n")
    refuse_load(write(tmp_path, text), "key 'systems.UEdin.format'", "'xml' is not one of plain, sgml")


# --- size: alias bombs, huge and deep files ---------------------------------------------------------

BOMB = "".join(f"  l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 10) + "]\n" for i in range(1, 10))


@pytest.mark.parametrize("where", ["sets", "metrics"])
def test_alias_bomb_is_refused_fast(tmp_path: Path, where: str) -> None:
    bomb = "  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + BOMB
    if where == "sets":
        text = experiment(extra=f"sets:\n{bomb}")
    else:
        text = experiment(metrics="*l9", head=f"cache: cache\nsets:\n{bomb}")
    started = time.perf_counter()
    with pytest.raises(ConfigError, match="once its aliases are expanded"):
        load(write(tmp_path, text, "direct.yaml"))
    assert time.perf_counter() - started < 2.0
    (tmp_path / "direct.yaml").unlink()
    error = refuse(tmp_path, text, "once its aliases are expanded", "alias bomb")
    assert len(error) < 300


def test_huge_file_is_refused_fast(tmp_path: Path) -> None:
    text = experiment(extra="sets:\n" + "".join(f"  s{i}: [UEdin, A, BLEU, some words here]\n"
                                                  for i in range(250_000)))
    assert len(text) > 10_000_000
    started = time.perf_counter()
    with pytest.raises(ConfigError, match="larger than 1 MiB"):
        load(write(tmp_path, text, "direct.yaml"))
    assert time.perf_counter() - started < 2.0
    (tmp_path / "direct.yaml").unlink()
    refuse(tmp_path, text, "larger than 1 MiB")


def test_big_scalars_repeated_by_aliases(tmp_path: Path) -> None:
    text = experiment(extra=f"sets:\n  big: &big '{'x' * 500_000}'\n  many: [{', '.join(['*big'] * 20)}]\n")
    refuse(tmp_path, text, "once its aliases are expanded", "characters")


@pytest.mark.parametrize("text", ["a: " + "[" * 5000 + "]" * 5000 + "\n", "a:\n" + "- " * 5000 + "x\n",
                                  "a: &a [*a]\n", "a: 2020-13-01\n", "a: !!python/object:os.system x\n",
                                  "a: b: c\n", "\x00\n", "? [a]\n: b\n"])
def test_hostile_yaml_is_a_user_error(tmp_path: Path, text: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ConfigError) as caught:
        load(write(tmp_path, text))
    assert time.perf_counter() - started < 2.0
    assert str(caught.value).startswith(str(tmp_path / "exp.yaml")) and len(str(caught.value)) < 400


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet="ab:-[]{}&*!~?,'\"\n #|>%@`=.", max_size=60))
def test_any_text_loads_or_is_a_user_error(tmp_path: Path, text: str) -> None:
    try:
        load(write(tmp_path, text))
    except ConfigError as error:
        assert "\n" not in error.format()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(max_size=120), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False)))
def test_system_name_accepted_iff_a_folder_name(tmp_path: Path, name: object) -> None:
    data = {"references": {"A": str(ENDE / "refs" / "A.de")}, "systems": {name: str(ENDE / "sys" / "UEdin.de")},
            "metrics": ["BLEU"]}
    config = write(tmp_path, yaml.safe_dump(data, allow_unicode=True))
    valid = isinstance(name, str) and names.name_problem(name) is None and not names.collisions(["A", name]) \
        and name != "A"
    try:
        assert load(config).system_names == (name,) and valid
    except ConfigError as error:
        assert not valid, error


# --- iqeval -TRY names ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scored")
    config = write(folder, experiment())
    result = run("iqsetup", "-q", str(config))
    assert result.returncode == 0, result.stderr
    return config


def _tree(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


@pytest.mark.parametrize("name", ["../../x", ".."])
def test_try_name_must_be_a_folder_name(scored: Path, name: str) -> None:
    folder = scored.parent
    before = _tree(folder.parent)
    result = run("iqeval", "-TRYoq", str(ENDE / "sys" / "Online-W.de"), "--try-name", name, str(scored))
    assert_user_error(result, "--try-name", "is not allowed")
    assert _tree(folder.parent) == before


def test_try_default_name_from_the_file_name(scored: Path, tmp_path: Path) -> None:
    trial = tmp_path / ".hidden.de"
    trial.write_bytes((ENDE / "sys" / "Online-W.de").read_bytes())
    result = run("iqeval", "-TRYoq", str(trial), str(scored))
    assert_user_error(result, ".hidden.de", "taken from the file name", "--try-name")


def test_try_name_clashes(scored: Path) -> None:
    experiment = load(scored)
    for name in ("UEDIN", "a", "UEdin", "BLEU"):
        with pytest.raises(ConfigError, match="differ only in case|already a system or reference|a set or metric"):
            with_trial_system(experiment, ENDE / "sys" / "Online-W.de", name)
    assert with_trial_system(experiment, ENDE / "sys" / "Online-W.de", "New").system_names == ("UEdin", "New")


# --- legacy key=value files --------------------------------------------------------------------------

def _legacy(tmp_path: Path, *lines: str) -> Path:
    body = [f"ref={ENDE / 'refs' / 'A.de'}", f"sys={ENDE / 'sys' / 'UEdin.de'}", "doBLEU", *lines]
    return write(tmp_path, "\n".join(body) + "\n", "exp.config")


def test_legacy_same_file_name_twice(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "UEdin.de").write_bytes((ENDE / "sys" / "Online-W.de").read_bytes())
    config = _legacy(tmp_path, f"sys={other / 'UEdin.de'}")
    assert_user_error(run("iqsetup", str(config)), "exp.config:4:", "'UEdin.de' is given twice",
                      "first at line 2")


@pytest.mark.parametrize(("line", "fragments"), [
    ("name=a\nname=b", ("exp.config:5:", "key 'name' is given twice")),
    ("some_systems=UEdin.de\nsome_systems=UEdin.de", ("exp.config:5:", "set 'some_systems' is given twice")),
    ("ref=/tmp/..", ("exp.config", "key 'references'", "is not allowed")),
    ("ref=" + str(ENDE / "sys" / "UEdin.de"), ("exp.config", "also a reference name")),
    ("trglang=de de", ("exp.config", "key 'language'")),
    ("some_metrics=", ("exp.config:4:", "key 'sets.some_metrics'", "the set is empty")),
])
def test_legacy_refusals(tmp_path: Path, line: str, fragments: tuple[str, ...]) -> None:
    refuse_load(_legacy(tmp_path, line), *fragments)


def test_a_language_code_with_a_final_newline_is_refused(tmp_path: Path) -> None:
    config = ende_config(tmp_path, language="en\n")
    with pytest.raises(ConfigError, match="language"):
        load(config)
