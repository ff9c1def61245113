"""Terminal output (issue 30, deliverable 5): on a real pseudo-terminal, every progress bar ends
drawn at 100 % and is then cleared, progress messages and ``prog: warning:`` lines are written on
lines of their own (never into a bar's line), nothing of a bar is left where the shell's next output
goes (after a normal end or Ctrl-C), the parse bar moves from its first batch (the parses staying
the same), a pool's one metric bar counts the families' weighted work (so its time left follows
the real cost), and ``-q`` shows nothing.

The commands run under ``pty.openpty()`` with ``MTEVAL_PROGRESS=1``; what they write is replayed
on a small screen model (carriage return, newline, cursor up: what tqdm uses; erase below: what a
command writes on Ctrl-C) to see what a user is left with. See tests/test_progress.py and
tests/test_progress_loops.py for the bars in pipes, the quiet switch and the resampling loops' bars."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from helpers import ROOT, ctrl_c_reaches, ende_config
from test_progress import small_syntactic_config

from mteval import progress
from mteval.setup import run as setup

COLUMNS = 120
BAR = re.compile(r"(?P<desc>[^\r\n:]+):\s+(?P<pct>\d+)%\|[^|\r\n]*\|\s*(?:(?P<n>\d+)/(?P<total>\d+) |\[)"
                 r"(?:[^\]\r\n]*?(?P<pn>\d+)/(?P<ptotal>\d+) pairs)?")
WARN_EVERY = 5  # the injected warnings: one every this many chunks of files saved

# iqsetup with a warning logged (as the library logs them) every WARN_EVERY chunks saved, while the
# metric stage's bars show
INJECTED = f"""
import logging, sys
from mteval.cli import iqsetup
from mteval.setup import run as setup
saved, count = setup.SetupRun.save, [0]
def save(self, *args):
    count[0] += 1
    if count[0] % {WARN_EVERY} == 0:
        logging.getLogger("mteval.test").warning("injected %d", count[0])
    return saved(self, *args)
setup.SetupRun.save = save
sys.exit(iqsetup.main(sys.argv[1:]))
"""


# --- running a command on a pseudo-terminal, and what it leaves on the screen ----------------------

def _terminal_child() -> None:
    """In the child, before it runs: the pseudo-terminal is its controlling terminal, and SIGINT
    reaches it (:func:`helpers.ctrl_c_reaches`)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    ctrl_c_reaches()


def on_terminal(argv: Sequence[str], env: dict[str, str] | None = None,
                interrupt: Callable[[bytes], bool] | None = None, timeout: float = 300) -> tuple[int, bytes]:
    """Run ``argv`` with stdin, stdout and stderr on a new pseudo-terminal (COLUMNS wide, its
    controlling terminal); its exit code and every byte it wrote. ``interrupt``: type Ctrl-C (the
    terminal sends SIGINT to the command and its worker processes) once it is true of the bytes so far."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, COLUMNS, 0, 0))
    environment = {**os.environ, "MTEVAL_PROGRESS": "1", "COLUMNS": str(COLUMNS), **(env or {})}
    child = subprocess.Popen(list(argv), stdin=slave, stdout=slave, stderr=slave, env=environment, close_fds=True,
                             start_new_session=True, preexec_fn=_terminal_child)
    os.close(slave)
    out, sent, deadline = bytearray(), False, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: every writer is gone
                    break
                if not data:
                    break
                out += data
                if interrupt is not None and not sent and interrupt(bytes(out)):
                    os.write(master, b"\x03")
                    sent = True
            elif child.poll() is not None:
                break
        else:
            child.kill()
            pytest.fail(f"{argv} ran past {timeout} s:\n{out.decode(errors='replace')[-2000:]}")
        return child.wait(timeout=60), bytes(out)
    finally:
        os.close(master)


def screen(stream: str) -> list[str]:
    """The rows a terminal shows (scrollback included) after ``stream``: what tqdm writes (\\r,
    \\n, cursor up ``ESC[nA``, erase to the end of the screen ``ESC[J``) is followed; other escape
    sequences are dropped; no line wrapping."""
    rows, row, col = [""], 0, 0
    for token in re.findall(r"\x1b\[(\d*)([A-Za-z])|(\r)|(\n)|([^\x1b\r\n]+)|(\x1b)", stream):
        count, code, cr, lf, text, _ = token
        if cr:
            col = 0
        elif lf:
            row += 1
            if row == len(rows):
                rows.append("")
        elif code == "A":
            row = max(0, row - int(count or 1))
        elif code == "J" and not count:  # erase from the cursor to the end of the screen
            rows[row] = rows[row][:col]
            rows[row + 1:] = [""] * (len(rows) - row - 1)
        elif text:
            line = rows[row].ljust(col)
            rows[row] = line[:col] + text + line[col + len(text):]
            col += len(text)
    return rows


def bar_states(stream: str) -> list[dict[str, Any]]:
    """Every drawing of a bar in ``stream``, in order: its description, percentage and counts (n
    and total for an item bar; the pairs for a metric-stage bar, which counts work)."""
    states = []
    for piece in re.split(r"[\r\n]|\x1b\[\d*[A-Za-z]", stream):
        found = BAR.match(piece)
        if found:
            n, total = (found["n"], found["total"]) if found["n"] else (found["pn"], found["ptotal"])
            states.append({"desc": found["desc"].strip(), "pct": int(found["pct"]),
                           "n": None if n is None else int(n), "total": None if total is None else int(total),
                           "text": piece})
    return states


def last_states(stream: str) -> dict[str, dict[str, Any]]:
    return {state["desc"]: state for state in bar_states(stream)}


def assert_clean_screen(stream: str, prog: str = "iqsetup") -> list[str]:
    """Nothing of a bar is left anywhere, every line is one of the command's lines from its first
    column, and nothing follows the output's last newline; the non-blank rows."""
    rows = [row.rstrip() for row in screen(stream)]
    assert rows[-1] == "", f"bar text after the final newline: {rows[-1]!r}"
    shown = [row for row in rows if row]
    for row in shown:
        assert "%|" not in row and "|" not in row, f"a bar (or what is left of one) on the screen: {row!r}"
        assert row.startswith(f"{prog}: "), f"a line not from its first column (written into a bar?): {row!r}"
    tail = stream[stream.rindex("\n") + 1:] if "\n" in stream else stream
    assert "%|" not in tail and not tail.strip(), repr(tail)
    return shown


# --- iqsetup on the bundled example ------------------------------------------------------------------

@pytest.fixture
def example(tmp_path: Path) -> Path:
    """configs/example.yaml, its paths made absolute, with a fresh cache in tmp_path."""
    source = ROOT / "configs" / "example.yaml"
    config = yaml.safe_load(source.read_text(encoding="utf-8"))

    def absolute(value: str) -> str:
        return str((source.parent / value).resolve())

    config["cache"] = str(tmp_path / "cache")
    config["source"] = absolute(config["source"])
    config["references"] = {k: absolute(v) for k, v in config["references"].items()}
    config["systems"] = {k: absolute(v) for k, v in config["systems"].items()}
    path = tmp_path / "example.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("pooled", [pytest.param(False, marks=pytest.mark.slow), True],  # ~7 s: in make test-all
                         ids=["one-process", "pool"])
def test_bars_finish_at_100_and_messages_and_warnings_have_their_own_lines(example: Path, pooled: bool) -> None:
    config = yaml.safe_load(example.read_text(encoding="utf-8"))
    config["metrics"].append("METEOR-sy")  # warned about in German (METEOR-ex, Meteor 1.4's -l de number, is not)
    example.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    jobs = ["-j", "2"] if pooled else ["-j", "1"]
    env = {"MTEVAL_POOL_MIN_WORK": "0"} if pooled else {}
    code, raw = on_terminal([sys.executable, "-c", INJECTED, *jobs, str(example)], env)
    stream = raw.decode("utf-8")
    assert code == 0, stream[-3000:]
    states = bar_states(stream)
    assert states, stream[-3000:]
    last = last_states(stream)
    if pooled:  # one bar over the stage: no family's bar waits open for its turn
        assert set(last) == {"metrics"}, set(last)
    else:  # a bar per family, one after another
        assert {"mteval-v13a", "chrF", "TER", "METEOR"} <= set(last), set(last)
    for desc, state in last.items():
        assert state["pct"] == 100 and state["n"] == state["total"], (desc, state["text"])
    assert all(state["n"] is not None for state in states), [s["text"] for s in states if s["n"] is None][:3]
    # every line starts at the first column, right after a carriage return or a newline
    for line in ("iqsetup: warning:", "iqsetup: ["):
        starts = [m.start() for m in re.finditer(re.escape(line), stream)]
        assert starts, line
        assert all(i == 0 or stream[i - 1] in "\r\n" for i in starts), [stream[max(0, i - 80): i + 30]
                                                                       for i in starts]
    rows = assert_clean_screen(stream)
    warnings = [row for row in rows if row.startswith("iqsetup: warning:")]
    # the German sample's METEOR-sy (its synonym stage is English) is warned about once, before any bar
    assert [w for w in warnings if "METEOR" in w] == [warnings[0]] and "language de, METEOR-sy" in warnings[0]
    injected = warnings[1:]
    assert injected == [f"iqsetup: warning: injected {WARN_EVERY * (k + 1)}" for k in range(len(injected))]
    assert injected
    assert rows[-1].startswith("iqsetup: 429 file(s) computed, 0 up to date")


@pytest.mark.parametrize("draws", [1, 6], ids=["first-draw", "later"])
def test_ctrl_c_leaves_no_bar_behind(example: Path, draws: int) -> None:
    """Ctrl-C at a bar's first draw (it may land inside tqdm's constructor) or later on."""
    code, raw = on_terminal(["iqsetup", "-j", "1", str(example)], interrupt=lambda out: out.count(b"%|") >= draws)
    stream = raw.decode("utf-8")
    assert code == 130, stream[-3000:]
    rows = assert_clean_screen(stream)
    assert rows[-1].startswith("iqsetup: interrupted"), rows[-3:]


def test_quiet_shows_nothing_on_a_terminal(tmp_path: Path) -> None:
    config = ende_config(tmp_path, metrics=["BLEU", "chrF"])
    code, raw = on_terminal(["iqsetup", "-q", str(config)], {"MTEVAL_PROGRESS": ""})
    assert code == 0, raw
    assert raw == b""


# --- the bars themselves, in this process -------------------------------------------------------------

@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """Bars forced on; the buffer a test makes standard error (:func:`as_stderr`: pytest sets its
    own at the start of the test) for tqdm to draw into as on a terminal."""
    monkeypatch.setenv("MTEVAL_PROGRESS", "1")
    return io.StringIO()


@contextmanager
def as_stderr(stream: io.StringIO) -> Iterator[None]:
    saved, sys.stderr = sys.stderr, stream
    try:
        yield
    finally:
        sys.stderr = saved


def test_a_finished_bar_is_drawn_at_100_then_cleared(terminal: io.StringIO) -> None:
    with as_stderr(terminal):
        with progress.bar(50, "work", unit="item") as shown:
            for _ in range(50):
                shown.update(1)  # well within the half-second redraw interval: only the first draw shows
        assert sys.stderr is terminal
    states = bar_states(terminal.getvalue())
    assert states[0]["n"] == 0 and states[-1]["n"] == states[-1]["total"] == 50
    assert not screen(terminal.getvalue())[-1].strip()


def test_a_bar_left_by_an_error_is_cleared_and_stderr_restored(terminal: io.StringIO) -> None:
    with as_stderr(terminal):
        with pytest.raises(KeyboardInterrupt), progress.bar(50, "work") as shown:
            shown.update(7)
            raise KeyboardInterrupt
        assert sys.stderr is terminal
    assert not screen(terminal.getvalue())[-1].strip()


def test_lines_written_under_a_bar_go_above_it(terminal: io.StringIO) -> None:
    with as_stderr(terminal):
        with progress.bar(10, "outer") as outer, progress.bar(10, "inner") as inner:
            outer.update(3)
            print("a message", file=sys.stderr)
            progress.write("prog: warning: a warning")
            sys.stderr.write("half a line ")
            inner.update(10)
            sys.stderr.write("and its end\n")
            outer.update(7)
        assert sys.stderr is terminal
    stream = terminal.getvalue()
    rows = [row.rstrip() for row in screen(stream)]
    assert [row for row in rows if row] == ["a message", "prog: warning: a warning", "half a line and its end"]
    assert {desc: (s["n"], s["total"]) for desc, s in last_states(stream).items()} == {"outer": (10, 10),
                                                                                   "inner": (10, 10)}


def test_warnings_of_a_command_go_through_the_bars(terminal: io.StringIO) -> None:
    import logging

    from mteval.cli.common import run_command

    def body() -> int:
        with progress.bar(4, "work") as shown:
            shown.update(2)
            logging.getLogger("mteval.x").warning("careful")
            shown.update(2)
        return 0

    with as_stderr(terminal):
        assert run_command("prog", body) == 0
    stream = terminal.getvalue()
    assert "\rprog: warning: careful\n" in stream
    assert [row.rstrip() for row in screen(stream) if row.strip()] == ["prog: warning: careful"]


# --- the metric stage's bars count work -------------------------------------------------------------

@dataclass
class Recorded:
    """A bar Recorder opened: its total and description, how it moved, its postfix, whether closed."""

    total: int
    desc: str
    postfix: str | None
    n: int = 0
    moves: list[int] = field(default_factory=list)
    closed: bool = False

    def update(self, n: int = 1) -> None:
        self.n += n
        self.moves.append(n)

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s

    def __enter__(self) -> Recorded:
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True


class Recorder:
    """Stands in for progress.bar: the bars opened, in order."""

    def __init__(self) -> None:
        self.bars: list[Recorded] = []

    def __call__(self, total: int, description: str, **options: Any) -> Recorded:
        self.bars.append(Recorded(total, description, options.get("postfix")))
        return self.bars[-1]


def fake_work() -> list[list[Any]]:
    """Units as iqsetup plans them: (family x reference set, its pairs) pieces."""
    def planned(family: str, refs: tuple[str, ...], targets: int) -> Any:
        todo = [(setup.Pair(f"s{k}", refs), ["x"]) for k in range(targets)]
        return SimpleNamespace(family=SimpleNamespace(family=family), references=refs, members=refs, todo=todo)

    one, three, ter = planned("chrF", ("A",), 4), planned("chrF", ("A", "B", "C"), 2), planned("TER", ("A",), 2)
    return [[(one, one.todo[:2])], [(one, one.todo[2:]), (three, three.todo)], [(ter, ter.todo)]]


def test_a_family_bar_counts_its_pairs_and_closes_with_its_last_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    monkeypatch.setattr(setup, "bar", recorder)
    work = fake_work()
    with setup._Tracker(work, lambda message: None, pooled=False) as tracker:
        for index in range(len(work)):
            tracker.started(index)
            tracker.done(index)
    chrf, ter = recorder.bars
    assert (chrf.desc, chrf.total, chrf.moves) == ("chrF", 6, [2, 4])
    assert (ter.desc, ter.total, ter.moves) == ("TER", 2, [2])
    assert chrf.closed and ter.closed


def test_a_pools_one_bar_weighs_the_families_costs(monkeypatch: pytest.MonkeyPatch) -> None:
    from mteval.setup.units import weighted

    recorder = Recorder()
    monkeypatch.setattr(setup, "bar", recorder)
    work = fake_work()
    messages: list[str] = []
    with setup._Tracker(work, messages.append, pooled=True) as tracker:
        for index in range(len(work)):
            tracker.started(index)
        for index in (2, 0, 1):  # in any order
            tracker.done(index)
            assert not recorder.bars[0].closed or index == 1
    (stage,) = recorder.bars
    assert stage.desc == "metrics" and stage.postfix == "8/8 pairs" and stage.closed
    assert stage.total == weighted("TER", 2) + weighted("chrF", 6)
    assert stage.moves == [weighted("TER", 2), weighted("chrF", 2), weighted("chrF", 4)]
    assert weighted("TER", 2) > weighted("chrF", 2)  # TER's pairs cost more: they weigh more
    assert stage.n == stage.total
    assert sorted(messages) == ["TER: 2 target(s) against A (done)", "chrF: 2 target(s) against A_B_C (done)",
                                "chrF: 4 target(s) against A (done)"]


def test_an_interrupted_stage_closes_its_bars(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    monkeypatch.setattr(setup, "bar", recorder)
    work = fake_work()
    with pytest.raises(KeyboardInterrupt), setup._Tracker(work, lambda message: None, pooled=True) as tracker:
        tracker.started(0)
        raise KeyboardInterrupt
    assert recorder.bars[0].closed


# --- the parse bar --------------------------------------------------------------------------------------

class FakeParser:
    """Parses each text alone, as Stanza does here (a chain of words), noting each call."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def parse(self, texts: Sequence[str]) -> list[tuple[Any, Any]]:
        from test_annotation_cache_integrity import FakeParser as Chain

        self.calls.append(len(texts))
        return [Chain._one(t) for t in texts]


def parse_with(tmp: Path, monkeypatch: pytest.MonkeyPatch, texts: list[str], workers: int) -> tuple[list[int], Any]:
    """Annotate ``texts`` with a stand-in parser (``workers`` > 1: through the worker path, its pool
    replaced by one that answers the pieces last first); the parse bar's moves and the fingerprints."""
    from test_annotation_cache_integrity import fingerprints

    from mteval.annotate import annotator as module
    from mteval.annotate import workers as pool

    moves: list[int] = []

    class Shown:
        def update(self, n: int = 1) -> None:
            moves.append(n)

        def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
            return None

    class Opened:
        def __enter__(self) -> Shown:
            return Shown()

        def __exit__(self, *exc: object) -> None:
            return None

    parser = FakeParser()

    def parallel(choice: Any, batches: Sequence[Sequence[str]], count: int) -> Iterator[tuple[int, Any]]:
        for index in reversed(range(len(batches))):
            yield index, parser.parse(batches[index])

    monkeypatch.setattr(module.progress, "bar", lambda *args, **kwargs: Opened())
    monkeypatch.setattr(pool, "parse_parallel", parallel)
    ann = module.Annotator(tmp, processors="tokenize,mwt,pos,lemma,depparse", workers=workers, batch_size=20)
    ann._parser = parser  # type: ignore[assignment]
    return moves, fingerprints(ann, texts)


@pytest.mark.models
def test_the_parse_bar_moves_every_few_texts_and_the_parses_stay_the_same(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from mteval.annotate.annotator import PROGRESS_STEP

    texts = [f"Sentence {i} has {'more ' * (i % 5)}words ." for i in range(45)] + [""]
    here, serial = parse_with(tmp_path / "here", monkeypatch, texts, workers=1)
    pooled, parallel = parse_with(tmp_path / "pool", monkeypatch, texts, workers=2)
    assert serial == parallel
    for moves in (here, pooled):
        assert sum(moves) == len(texts) and len(moves) >= len(texts) // PROGRESS_STEP
        assert max(moves) <= PROGRESS_STEP
    # the cache's shards are the same (batch_size texts each): the step cuts only the parse calls
    for folder in (tmp_path / "here", tmp_path / "pool"):
        assert len(list((folder / "annotation").glob("*.keys"))) == 3


@pytest.mark.slow
@pytest.mark.models
def test_the_parse_bar_shows_intermediate_counts_and_ends_at_100(tmp_path: Path) -> None:
    config = small_syntactic_config(tmp_path, lines=30)
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["annotation"] = {"cache": str(tmp_path / "annotation")}
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    code, raw = on_terminal([shutil.which("iqsetup") or "iqsetup", "-j", "1", str(config)])
    stream = raw.decode("utf-8")
    assert code == 0, stream[-3000:]
    parsing = [state for state in bar_states(stream) if state["desc"] == "parsing"]
    assert parsing, stream[-3000:]
    total = parsing[-1]["total"]
    assert parsing[-1]["n"] == total and parsing[-1]["pct"] == 100, parsing[-1]["text"]
    assert any(0 < state["n"] < total for state in parsing), [state["text"] for state in parsing]
    assert last_states(stream)["SP"]["pct"] == 100
    assert_clean_screen(stream)
