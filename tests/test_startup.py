"""A command imports only what it uses (issue 26): building the command line must not pull in
trio, the protocol or cryptography, which cost `--help` ~4x a bare interpreter's start; `play`
plays the bots in this process on the engine alone (no fair play, no network), so its first
screen needs none of them either.

The real command runs (`sys.executable -m unonet`) under ``-X importtime``, which names every
module the process imported; the speed itself is measured by scripts/bench/startup.py."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest

IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", re.M)

HEAVY = ("trio", "cryptography", "msgpack", "prompt_toolkit", "unonet.net", "unonet.protocol", "unonet.fair",
         "unonet.table")


def imported(*args: str, code: int = 0) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "unonet", *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == code, proc.stderr[-2000:]
    return set(IMPORTED.findall(proc.stderr))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))


@pytest.mark.parametrize("args", [("--help",), ("host", "--help"), ("join", "--help"), ("score", "--help"),
                                  ("play", "--help"), ("--version",)], ids=" ".join)
def test_help_imports_no_network_crypto_or_screen_library(args):
    modules = imported(*args)
    assert "unonet.cli" in modules  # (the check sees the command's imports at all)
    assert heavy(modules) == []
    # nor what only some commands print with (json), nor shutil (argparse's own look-up of the
    # terminal's width imports it, and with it bz2, lzma, zlib: the parser is told the width)
    assert {"json", "shutil", "unonet.engine"} & modules == set()


def test_engine_only_commands_import_no_network_or_crypto():
    for args in (("rules", "--json"), ("simulate", "--rounds", "2", "--seed", "1", "--json")):
        modules = imported(*args)
        assert "unonet.engine" in modules
        assert heavy(modules) == [], args


def test_the_check_sees_a_command_that_does_use_crypto(tmp_path):
    """`audit` needs the fair layer and cryptography: the same check names them (it is not blind)."""
    modules = imported("audit", str(tmp_path / "missing.jsonl"), code=2)
    assert "unonet.fair" in modules and "cryptography" in modules


def play_until_dealt(tmp_path) -> tuple[set[str], set[str], bytes]:
    """The modules `unonet play --seed 1` had imported when its screen (an 80x24
    pseudo-terminal) showed the dealt table, those it had imported once the application drew
    its own first frame, and what it drew; then it is stopped."""
    import fcntl
    import pty
    import struct
    import termios

    err = tmp_path / "importtime.txt"
    env = dict(os.environ, TERM="xterm-256color", HOME=str(tmp_path), UNONET_HOME=str(tmp_path / "unonet"),
               UNONET_BOT_DELAY="0")
    env.pop("UNONET_FIRST_FRAME", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: stderr to the file, then the real command
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            os.execve(sys.executable, [sys.executable, "-X", "importtime", "-m", "unonet", "play", "--seed", "1"],
                      env)
        finally:
            os._exit(127)
    screen, at_dealt = b"", None
    try:
        deadline = time.monotonic() + 60
        while APP not in screen and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.5)[0]:
                try:
                    screen += os.read(fd, 65536)
                except OSError:  # the program exited (its output is in the assertion below)
                    break
            if at_dealt is None and b"Top " in screen:
                at_dealt = err.read_text()  # (stderr is unbuffered: the imports done by now)
        time.sleep(0.5)  # the bots' first moves (no delay): what they need is imported too
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return set(IMPORTED.findall(at_dealt or "")), set(IMPORTED.findall(err.read_text())), screen


APP = b"\x1b[?2004h"  # prompt_toolkit's first render turns bracketed paste on


@pytest.mark.skipif(sys.platform == "win32", reason="the screen runs in a POSIX pseudo-terminal here")
def test_play_imports_no_network_crypto_or_fair_play_to_its_first_screen(tmp_path):
    at_dealt, modules, screen = play_until_dealt(tmp_path)
    assert b"Top " in screen and APP in screen, screen[-500:]
    assert {"unonet.tui.app", "unonet.tui.local", "unonet.engine", "prompt_toolkit"} <= modules
    assert [m for m in heavy(modules) if not m.startswith("prompt_toolkit")] == []
    # the LAN-only feed values (a dataclass each, compiled at import) load on first use only
    assert "unonet.lan_feed" not in modules and "unonet.feed" in modules


@pytest.mark.skipif(sys.platform == "win32", reason="the screen runs in a POSIX pseudo-terminal here")
def test_play_draws_the_dealt_table_before_loading_asyncio_and_the_screen_library(tmp_path):
    """The first screen (issue 26): the dealt table is on the terminal before asyncio and
    prompt_toolkit are imported (together they take longer than the whole start-up budget),
    and before the application's own first render; the application then draws over it."""
    at_dealt, modules, screen = play_until_dealt(tmp_path)
    assert {"unonet.engine", "unonet.tui.screen", "unonet.tui.first_frame"} <= at_dealt
    assert {m for m in at_dealt if m.split(".")[0] in ("asyncio", "prompt_toolkit", "ssl")} == set()
    assert heavy(at_dealt) == []
    first = screen[:screen.index(APP)]  # what was on the screen before prompt_toolkit drew
    for text in (b" Top ", b"colour in force", b"Your hand (7 cards)", b"Seats", b"You", b"Ana", b"Ben", b"Cleo", b"round 1"):
        assert text in first, (text, first[-600:])
