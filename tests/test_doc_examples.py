"""Every command of the README's and docs/'s shell blocks runs, as a user would type it (issue 13 item 7).

A ```sh block is a promise to the reader: each line in it must work on a fresh clone against the
bundled data. The lines run in order, per document, in a sandbox holding copies of ``configs/``,
``data/`` and the Makefile (so the caches the examples write stay out of the checkout), through
the installed commands. ``make`` lines that install or run for minutes (``make demo``, ``make test``,
``make bench``, ``make models``) are checked with ``make -n`` (the target exists and expands);
every other line must exit 0. Lines naming ``../shared`` run only when it is present. Python
blocks are illustrations (they use variables defined in the prose) and are not run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, SHARED

DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
SHELL_BLOCK = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```", re.S | re.M)
COMMANDS = ("iqsetup", "iqeval", "IQsetup", "IQeval", "mteval", "make")
MAKE_DRY_RUN = ("demo", "demo-syntax", "test", "test-all", "test-lexical", "research-test", "install", "bench",
                "models", "models-eval", "lint", "clean")
# Documents whose commands take more than a few seconds on two cores (the campaign of
# meta-evaluation.md: ~80 s): left to ``make test-all`` (marker ``slow``).
SLOW_DOCUMENTS = {"README.md", "meta-evaluation.md", "report.md", "scaling.md", "significance-systems.md",
                  "usage.md"}


def command_lines(document: Path) -> list[str]:
    """The commands of a document's shell blocks: continuations joined, comments stripped."""
    lines: list[str] = []
    for block in SHELL_BLOCK.findall(document.read_text(encoding="utf-8")):
        pending = ""
        for raw in block.splitlines():
            text = re.sub(r"(^|\s)#.*$", "", raw).strip()
            if text.endswith("\\"):
                pending += text[:-1].strip() + " "
                continue
            text = (pending + text).strip()
            pending = ""
            if text:
                lines.append(text)
    return lines


def documents_with_commands() -> list[Path]:
    return [d for d in DOCUMENTS if command_lines(d)]


def documents_as_params() -> list:
    """:func:`documents_with_commands`, the slow ones marked ``slow``."""
    return [pytest.param(d, id=d.name, marks=[pytest.mark.slow] if d.name in SLOW_DOCUMENTS else [])
            for d in documents_with_commands()]


def sandbox(tmp_path: Path) -> Path:
    """A folder laid out like the checkout's root, with what the examples read."""
    root = tmp_path / "clone"
    root.mkdir()
    for folder in ("configs", "data"):
        shutil.copytree(ROOT / folder, root / folder)
    shutil.copy(ROOT / "Makefile", root / "Makefile")
    return root


def run_line(line: str, cwd: Path) -> subprocess.CompletedProcess:
    words = line.split()
    if words[0] == "make" and len(words) > 1 and words[1] in MAKE_DRY_RUN:
        line = "make -n " + " ".join(words[1:])
    return subprocess.run(["bash", "-euo", "pipefail", "-c", line], cwd=cwd, capture_output=True,
                          text=True, timeout=900)


def test_every_document_block_uses_known_commands() -> None:
    unknown = [(d.name, line) for d in DOCUMENTS for line in command_lines(d) if line.split()[0] not in COMMANDS]
    assert not unknown, f"shell blocks with commands this test cannot run (use another block language): {unknown}"


@pytest.mark.parametrize("document", documents_as_params())
def test_document_commands_run(document: Path, tmp_path: Path) -> None:
    root = sandbox(tmp_path)
    ran = 0
    for line in command_lines(document):
        if "../shared" in line and not SHARED.exists():
            continue
        result = run_line(line, root)
        assert result.returncode == 0, f"{document.name}: `{line}` exited {result.returncode}:\n{result.stderr[-2000:]}"
        ran += 1
    assert ran, f"{document.name}: no command ran"


def test_line_parsing_joins_continuations_and_strips_comments(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text("text\n```sh\niqeval -G sys \\\n  -O 0 c.yaml   # a comment\n\n# only a comment\n```\n"
                   "```python\nprint(1)\n```\n", encoding="utf-8")
    assert command_lines(doc) == ["iqeval -G sys -O 0 c.yaml"]
