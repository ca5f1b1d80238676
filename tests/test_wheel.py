"""The package as a friend installs it (issue 25): a wheel built from this checkout, installed
into a virtual environment of its own, runs `unonet --help`, `unonet play` in a real terminal
(tmux) and a loopback host-and-join match -- with the code of the wheel, not of the checkout.

Offline, as the tests must be: the wheel is built without build isolation (the test extra
brings setuptools >= 77), installed with ``--no-index --no-deps``, and the new environment
finds the dependencies (trio, cryptography, ...) through a path file naming this interpreter's
site-packages -- a directory named in a ``.pth`` line is not itself scanned for ``.pth`` files,
so this checkout's editable install stays out of it (asserted below)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _run(argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=kw.pop("timeout", 300), **kw)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the venv's `unonet` script, its python, an environment for it)."""
    base = tmp_path_factory.mktemp("wheel")
    # built from a copy: a build writes build/ and *.egg-info into its source tree, and two test
    # workers building in this checkout at once would trip over each other's files
    src = base / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", ".bench-venv", "build", "dist",
                                                             "*.egg-info", "__pycache__", ".pytest_cache",
                                                             "*.so", "*__mypyc*"))
    # the wheel a friend is handed is the pure one (one file for every system; setup.py compiles the
    # engine only for an install from source, where a C compiler is)
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                  "-w", str(base / "dist"), str(src)], cwd=base, env={**os.environ, "UNONET_PURE": "1"})
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheels = list((base / "dist").glob("unonet-*-py3-none-any.whl"))
    assert len(wheels) == 1, list((base / "dist").iterdir())  # pure Python: one file for every system
    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)])  # (ensurepip: pip from the bundled wheel)
    assert made.returncode == 0, made.stderr
    vpy = venv / "bin" / "python"
    site = Path(_run([str(vpy), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    inst = _run([str(vpy), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheels[0])],
                env={"PATH": "/usr/bin:/bin", "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert inst.returncode == 0, inst.stdout[-2000:] + inst.stderr[-2000:]
    (site / "deps-of-the-test-interpreter.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    script = venv / "bin" / "unonet"
    assert script.exists(), sorted(p.name for p in (venv / "bin").iterdir())
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(base / "home"), "LANG": "C.UTF-8",
           "UNONET_HOME": str(base / "unonet-home"), "PYTHONUNBUFFERED": "1"}
    return script, vpy, env, base


def test_the_wheel_is_what_runs_not_the_checkout(installed):
    script, vpy, env, base = installed
    where = _run([str(vpy), "-c", "import unonet, trio; print(unonet.__file__)"], env=env, cwd=base)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(base / "venv"), where.stdout
    assert not Path(where.stdout.strip()).is_relative_to(ROOT)


def test_help_from_the_wheel(installed):
    script, vpy, env, base = installed
    out = _run([str(script), "--help"], env=env, cwd=base, timeout=60)
    assert out.returncode == 0, out.stderr
    for command in ("host", "join", "play", "score"):
        assert command in out.stdout


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _json_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip().startswith("{")]


def test_a_loopback_host_and_join_match_from_the_wheel(installed):
    script, vpy, env, base = installed
    run = base / "match"
    run.mkdir()
    procs = []
    try:
        host = subprocess.Popen([str(script), "host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0",
                                 "--discovery-port", str(_free_udp_port()), "--players", "2", "--name", "Hal"],
                                stdout=open(run / "host.out", "w"), stderr=open(run / "host.err", "w"),
                                env=env, cwd=base)
        procs.append(host)
        port = None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline and host.poll() is None:
            port = next((x["port"] for x in _json_lines(run / "host.out") if "port" in x), None)
            time.sleep(0.05)
        assert port, (run / "host.err").read_text()
        jenv = dict(env, UNONET_HOME=str(base / "joiner-home"))
        join = subprocess.Popen([str(script), "join", "--no-ui", "--json", "--bot", "--name", "Jo",
                                 f"127.0.0.1:{port}"],
                                stdout=open(run / "join.out", "w"), stderr=open(run / "join.err", "w"),
                                env=jenv, cwd=base)
        procs.append(join)
        assert join.wait(timeout=300) == 0, (run / "join.err").read_text()[-2000:]
        assert host.wait(timeout=60) == 0, (run / "host.err").read_text()[-2000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=5)
    overs = [[x for x in _json_lines(run / f) if x.get("t") == "match-over"] for f in ("host.out", "join.out")]
    assert overs[0] and overs[1], overs
    assert max(overs[0][-1]["scores"]) >= 500
    assert {k: v for k, v in overs[0][-1].items() if k != "text"} == \
        {k: v for k, v in overs[1][-1].items() if k != "text"}


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")
def test_play_from_the_wheel_opens_the_table_in_a_terminal(installed):
    script, vpy, env, base = installed
    sock = f"unonet-wheel-{uuid.uuid4().hex[:10]}"
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
    cmd = " ".join(["env", *(f"{k}={v}" for k, v in env.items()), "TERM=xterm-256color", str(script), "play"])
    try:
        assert _run(tmux + ["new-session", "-d", "-s", "w", "-x", "100", "-y", "32", cmd]).returncode == 0
        screen = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and " Your hand (" not in screen:
            time.sleep(0.1)
            screen = _run(tmux + ["capture-pane", "-p", "-t", "w"]).stdout
        # (7 cards, or 9 when the first discard is a Draw Two played on us: the deal is random)
        assert re.search(r" Your hand \((7|9) cards", screen), screen
        _run(tmux + ["send-keys", "-t", "w", "q"])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "quit" not in screen.lower():
            time.sleep(0.1)
            screen = _run(tmux + ["capture-pane", "-p", "-t", "w"]).stdout
        assert "quit" in screen.lower(), screen
    finally:
        _run(tmux + ["kill-server"])
