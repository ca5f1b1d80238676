#!/usr/bin/env python3
"""Start-up: `unonet --help` and the first screen of `unonet play`, against a bare interpreter.

    .venv/bin/python scripts/bench/startup.py [--runs 10] [--top 8] [--only editable|wheel]
                                              [--against REV]

Two installs are measured, each by its own `unonet` script (what a user types):

  * editable: the interpreter running this script (the developer's venv, `pip install -e`).
    Its `site` imports setuptools' editable finder (pathlib, importlib.util, ...: ~20 ms on
    every start of every program in that venv) - a cost no user pays;
  * wheel: a wheel built from a copy of this checkout, installed into a fresh venv of its own
    (``--no-index --no-deps``, offline; the dependencies found through a path file naming this
    interpreter's site-packages, which is not scanned for .pth files, so the editable finder
    stays out) - what `pip install unonet` gives a user;
  * with ``--against REV``: a wheel of git revision REV installed the same way, with the same
    dependencies (a before/after of unonet's own code in one run).

All installs are measured in one loop, one run of each in turn, so that a burst of load on
the shared machine hits them alike.

Every figure is measured in this run, beside that install's `python -c pass` (the reference:
an interpreter that starts, imports `site` and stops), one process after another:

  * wall time from spawn to exit (`--help`, `-c pass`), and the process's CPU time (rusage);
  * `python -c "import prompt_toolkit.application"` (the screen library and asyncio alone: what
    any full-screen client pays before its own code);
  * `unonet play --seed 1` in an 80x24 pseudo-terminal: wall time from spawn to the first
    frame on the pty, to the dealt table (the bytes of the line showing the top card), with the
    CPU the process had used by then (/proc/PID/task/*/schedstat, nanoseconds), and to the
    application's own first render (prompt_toolkit turns bracketed paste on as it draws: from
    then on it reads keys; `play` draws the dealt table itself before that, see
    unonet/tui/first_frame.py); then it is stopped;
  * `python -X importtime`: the top-level imports of each command by cumulative time (the
    modules that cost the most, with what they pulled in); for `play`, those before its dealt
    table was on the screen and those after.

Children run with bytecode caches (PYTHONDONTWRITEBYTECODE is dropped from their environment
and one warm-up run writes unonet's .pyc files, as an installed package has them): without
them every import compiles its source, which costs unonet's start ~2x.

Min and median over ``--runs`` (the machine is shared: the min is the least disturbed run,
CPU time is disturbed less than wall time).  Targets (issue 26): `--help` <= 60 ms, the first
screen of `play` <= 150 ms; the design brief's `--help` <= 3x a bare interpreter.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import sysconfig
import tempfile
import termios
import time
from pathlib import Path

PY = sys.executable
ROOT = Path(__file__).resolve().parents[2]
HELP_TARGET_MS = 60.0
PLAY_TARGET_MS = 150.0
FRAME = b"\x1b[?1049h"  # the switch to the alternate screen: the first frame follows
DEALT = b"Top "         # the table line with the top discard: the deal is on the screen
APP = b"\x1b[?2004h"    # bracketed paste on: prompt_toolkit's first render (from here it reads keys)


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_to_exit(argv: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one process from spawn to exit, its output thrown away."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execve(argv[0], argv, ENV)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed")
    return wall, usage.ru_utime + usage.ru_stime


def cpu_of(pid: int) -> float:
    """CPU seconds the process's threads have run so far (schedstat: ns on the CPU)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e9


def first_screen(argv: list[str], stderr_to: str | None = None, limit: float = 10.0) -> dict[str, float]:
    """Spawn ``argv`` in an 80x24 pty; seconds to its first frame, to the dealt table (the
    bytes of its top-card line on the pty) and to the application's own first render, and its
    CPU time at the dealt table; then stop it.  With ``stderr_to``, "err_at_dealt" is how many
    bytes of its stderr were written by the time the table was on the screen."""
    env = dict(ENV, TERM="xterm-256color", HOME=tempfile.gettempdir(), UNONET_BOT_DELAY="5")
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        if stderr_to:
            err = os.open(stderr_to, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(err, 2)
        os.execve(argv[0], argv, env)
    got, out = b"", {}
    try:
        while not ("dealt" in out and "app" in out) and time.perf_counter() - t0 < limit:
            r, _, _ = select.select([fd], [], [], 0.5)
            if not r:
                continue
            try:
                got += os.read(fd, 65536)
            except OSError:
                break
            now = time.perf_counter() - t0
            if "frame" not in out and FRAME in got and len(got) > got.index(FRAME) + len(FRAME) + 64:
                out["frame"] = now
            if "dealt" not in out and DEALT in got:
                out["dealt"] = now
                out["cpu"] = cpu_of(pid)
                if stderr_to:
                    out["err_at_dealt"] = os.stat(stderr_to).st_size
            if "app" not in out and APP in got:
                out["app"] = now
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    if "dealt" not in out or "app" not in out:
        text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b" ", got).decode("utf-8", "replace")
        raise SystemExit(f"{' '.join(argv)}: no dealt table and application within {limit:g} s: "
                         f"{' '.join(text.split())[-200:]}")
    return out


def top_imports(lines: list[str], top: int) -> list[tuple[float, str]]:
    """The imports made at the top level (directly by the command), by cumulative ms."""
    rows = []
    for line in lines:
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(3)) == 1:
            rows.append((int(m.group(2)) / 1000, m.group(4)))
    return sorted(rows, reverse=True)[:top]


def importtime_help(py: str, top: int) -> list[tuple[float, str]]:
    with tempfile.TemporaryFile("w+") as err:
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(err.fileno(), 2)
            os.execve(py, [py, "-X", "importtime", "-m", "unonet", "--help"], ENV)
        os.waitpid(pid, 0)
        err.seek(0)
        return top_imports(err.read().splitlines(), top)


def importtime_play(py: str, top: int) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
    """`play`'s top-level imports before its dealt table was on the screen, and after it
    (up to the application's first render)."""
    with tempfile.NamedTemporaryFile("r") as err:
        out = first_screen([py, "-X", "importtime", "-m", "unonet", "play", "--seed", "1"], stderr_to=err.name)
        text = err.read()
        cut = len(text.encode()[:out["err_at_dealt"]].decode(errors="ignore"))
        return top_imports(text[:cut].splitlines(), top), top_imports(text[cut:].splitlines(), top)


def wheel_install(base: Path, tree: Path = ROOT) -> Path:
    """A venv under ``base`` with unonet installed from a wheel of ``tree`` (this checkout;
    offline): its bin/ directory.  As tests/test_wheel.py does: built from a copy of the
    tree without build isolation, the dependencies through a path file naming this
    interpreter's site-packages."""
    src = base / "src"
    shutil.copytree(tree, src, ignore=shutil.ignore_patterns(".git", ".venv", ".bench-venv", "build", "dist",
                                                             "*.egg-info", "__pycache__", ".pytest_cache"))
    quiet = {"capture_output": True, "text": True, "timeout": 300}
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    steps = [
        [PY, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-w",
         str(base / "dist"), str(src)],
        [PY, "-m", "venv", "--without-pip", str(base / "venv")],
    ]
    for argv in steps:
        done = subprocess.run(argv, cwd=base, env=env, **quiet)
        if done.returncode != 0:
            raise SystemExit(f"bench: {' '.join(argv[:4])} failed: {(done.stdout + done.stderr)[-1500:]}")
    wheel = next((base / "dist").glob("unonet-*.whl"))
    vpy = base / "venv" / "bin" / "python"
    done = subprocess.run([PY, "-m", "pip", "--python", str(vpy), "install", "-q", "--no-deps", "--no-index",
                           str(wheel)], cwd=base, env=env, **quiet)
    if done.returncode != 0:
        raise SystemExit(f"bench: installing the wheel failed: {(done.stdout + done.stderr)[-1500:]}")
    site = subprocess.run([str(vpy), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          **quiet).stdout.strip()
    Path(site, "deps-of-the-bench-interpreter.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return vpy.parent


def ms(xs: list[float]) -> str:
    return f"min {min(xs) * 1000:6.1f} ms  median {statistics.median(xs) * 1000:6.1f} ms"


def sample(bindir: Path) -> dict:
    """One run of each figure of the install in ``bindir``."""
    py, cmd = str(bindir / "python"), str(bindir / "unonet")
    return {"bare": run_to_exit([py, "-c", "pass"]),
            "libs": run_to_exit([py, "-c", "import prompt_toolkit.application"]),
            "help": run_to_exit([cmd, "--help"]),
            "play": first_screen([cmd, "play", "--seed", "1"])}


def report(label: str, bindir: Path, rows: list[dict], top: int) -> None:
    """The figures of one install, printed, with its top-level imports."""
    py, cmd = str(bindir / "python"), str(bindir / "unonet")

    def col(what, i):
        return [r[what][i] for r in rows]

    ref_wall, ref_cpu = min(col("bare", 0)), min(col("bare", 1))
    help_wall, help_cpu = min(col("help", 0)), min(col("help", 1))
    frame = [r["play"]["frame"] for r in rows]
    dealt = [r["play"]["dealt"] for r in rows]
    app = [r["play"]["app"] for r in rows]
    play_cpu = [r["play"]["cpu"] for r in rows]
    print(f"{label}: {cmd}, {len(rows)} runs each (load average now {os.getloadavg()[0]:.1f})")
    print(f"  python -c pass (reference)     wall {ms(col('bare', 0))}   CPU {ms(col('bare', 1))}")
    print(f"  import prompt_toolkit.app...   wall {ms(col('libs', 0))}   CPU {ms(col('libs', 1))}")
    print(f"  unonet --help                  wall {ms(col('help', 0))}   CPU {ms(col('help', 1))}")
    print(f"  unonet play: first frame       wall {ms(frame)}")
    print(f"  unonet play: the dealt table   wall {ms(dealt)}   CPU {ms(play_cpu)}")
    print(f"  unonet play: application's own first frame (reads keys)  wall {ms(app)}")
    print(f"  --help: {help_wall * 1000:.0f} ms wall (target <= {HELP_TARGET_MS:.0f}: "
          f"{'met' if help_wall * 1000 <= HELP_TARGET_MS else 'NOT met'}), "
          f"{help_wall / ref_wall:.2f}x the bare interpreter's wall, {help_cpu / ref_cpu:.2f}x its CPU "
          f"(brief: <= 3x: {'met' if help_wall <= 3 * ref_wall else 'NOT met'})")
    print(f"  play, dealt table: {min(dealt) * 1000:.0f} ms wall (target <= {PLAY_TARGET_MS:.0f}: "
          f"{'met' if min(dealt) * 1000 <= PLAY_TARGET_MS else 'NOT met'}), "
          f"{min(dealt) / ref_wall:.2f}x the bare interpreter's wall, {min(play_cpu) / ref_cpu:.2f}x its CPU; "
          f"{min(play_cpu) / min(col('libs', 1)):.2f}x the CPU of importing its screen library alone")
    before, after = importtime_play(py, top)
    for what, imports in (("unonet --help", importtime_help(py, top)),
                          ("unonet play, before its dealt table is on the screen", before),
                          ("unonet play, after it (to the application's first render)", after)):
        print(f"  python -X importtime, {what}: top-level imports by cumulative time")
        for t, name in imports:
            print(f"    {t:7.1f} ms  {name}")


def tree_of(rev: str, into: Path) -> Path:
    """This repository's files at ``rev`` (git archive), for a wheel of that revision."""
    into.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, timeout=120)
    if archive.returncode != 0:
        raise SystemExit(f"bench: git archive {rev}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True, timeout=120)
    return into


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--top", type=int, default=8, help="imports listed per command")
    ap.add_argument("--only", choices=("editable", "wheel"), help="measure one install only")
    ap.add_argument("--against", metavar="REV",
                    help="also a wheel of git revision REV (same dependencies), interleaved: before/after")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="unonet-startup-") as tmp:
        installs = {}
        if args.only != "wheel":
            installs["editable install (this venv)"] = Path(PY).parent
        if args.only != "editable":
            (Path(tmp) / "wheel").mkdir()
            installs["wheel install (a fresh venv)"] = wheel_install(Path(tmp) / "wheel")
        if args.against:
            (Path(tmp) / "against").mkdir()
            tree = tree_of(args.against, Path(tmp) / "tree")
            installs[f"wheel install of {args.against}"] = wheel_install(Path(tmp) / "against", tree)
        for bindir in installs.values():  # warm-up: the .pyc files
            run_to_exit([str(bindir / "unonet"), "--help"])
            first_screen([str(bindir / "unonet"), "play", "--seed", "1"])
        rows = {label: [] for label in installs}
        load = os.getloadavg()[0]
        for _ in range(args.runs):  # interleaved, so a burst of load hits all of them alike
            for label, bindir in installs.items():
                rows[label].append(sample(bindir))
        print(f"start-up: load average {load:.1f} when the runs began")
        for label, bindir in installs.items():
            report(label, bindir, rows[label], args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
