"""`unonet play` outside a terminal: one line and exit status 2, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_play(**kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "unonet", "play", "--seed", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=30, **kw)


def test_play_without_a_terminal_says_so_and_exits_2():
    with open(os.devnull) as devnull:
        p = run_play(stdin=devnull)
    assert p.returncode == 2
    out = (p.stdout + p.stderr).strip().splitlines()
    assert out == ["unonet play needs a terminal (stdin is not a tty)"]
    assert "Traceback" not in p.stderr
