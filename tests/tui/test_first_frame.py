"""`unonet play`'s first frame: the dealt table drawn before prompt_toolkit is loaded
(unonet/tui/first_frame.py), from the same lines the application then shows.

* the escape codes it writes for each style are the ones prompt_toolkit writes;
* `screen.table_screen` fills the terminal exactly, or says it is too small;
* in a pseudo-terminal, keys typed before the application has drawn are not echoed and
  are honoured once it runs, and the terminal's mode is given back;
* in tmux, the screen before prompt_toolkit takes over and after it are the same, cell for
  cell with their colours (no flicker, nothing left behind)."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
import uuid

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.output.vt100 import Vt100_Output

from unonet.engine import make_rules
from unonet.names import width as cells
from unonet.tui.control import Controller
from unonet.tui.first_frame import FirstFrame, Styles, colour_256, enabled
from unonet.tui.layout import STYLE
from unonet.tui.local import LocalTable
from unonet.tui.screen import STYLE_RULES, table_screen

from .tmux_server import keep_up, take_down
from unonet.tui.view import TableView

APP = b"\x1b[?2004h"  # prompt_toolkit's first render turns bracketed paste on


def dealt(players=4, seed=1):
    table = LocalTable(make_rules(), ["You", "Ana", "Ben", "Cleo", "Dev", "Eli"][:players], seed=seed)
    view = TableView(0)
    ctl = Controller(view, table)
    table.subscribe(view.apply_all)
    table.start()
    return view, ctl


def prompt_toolkit_sgr(style: str) -> str:
    """What prompt_toolkit writes for ``style`` on a 256-colour terminal."""
    buf = io.StringIO()
    out = Vt100_Output(buf, lambda: Size(rows=24, columns=80), term="xterm-256color")
    out.set_attributes(STYLE.get_attrs_for_style_str(style), ColorDepth.DEPTH_8_BIT)
    out.flush()
    return buf.getvalue()


def test_every_style_on_the_table_screen_is_written_as_prompt_toolkit_writes_it():
    view, ctl = dealt()
    styles = {style for columns, rows in ((80, 24), (60, 20), (120, 40))
              for line in table_screen(view, ctl, columns, rows) for style, _text in line}
    # and every rule alone, and the combinations the screen makes (a selected card, your seat's turn)
    styles |= {f"class:{name}" for name, _spec in STYLE_RULES}
    styles |= {"class:card.red.dim class:card.selected", "class:seat.turn class:seat.me", "class:card.wild", ""}
    ours = Styles(STYLE_RULES)
    assert len(styles) > 30
    for style in sorted(styles):
        assert ours.sgr(style) == prompt_toolkit_sgr(style), style


def test_a_style_word_the_first_frame_cannot_write_means_no_first_frame():
    with pytest.raises(ValueError):
        Styles([("x", "bg:ansiblue")])
    frame = FirstFrame(1, io.StringIO(), None, (80, 24))
    assert frame.draw([[("class:x", "text")]], [("x", "bg:ansiblue")]) is False and not frame.drawn


def test_the_256_colour_table_is_prompt_toolkits():
    assert colour_256("#ff5555") == 203 and colour_256("#888888") == 102 and colour_256("#000000") == 16


def test_the_table_screen_fills_the_terminal_exactly_or_says_it_is_too_small():
    view, ctl = dealt(players=6)
    for columns, rows in ((80, 24), (63, 20), (64, 17), (100, 30), (120, 40), (40, 30), (200, 60)):
        lines = table_screen(view, ctl, columns, rows)
        assert lines is not None, (columns, rows)
        assert len(lines) == rows
        assert {sum(cells(text) for _style, text in line) for line in lines} == {columns}, (columns, rows)
        text = "\n".join("".join(t for _s, t in line) for line in lines)
        assert " Top " in text and "Your hand (7 cards)" in text and "Eli" in text
    # six seats, the table and the hand do not fit in 12 rows: no table with a seat missing
    assert table_screen(view, ctl, 80, 12) is None
    for columns, rows in ((0, 0), (1, 1), (10, 5), (20, 0)):  # (a terminal that reports no size)
        assert table_screen(view, ctl, columns, rows) is None


def test_no_first_frame_where_prompt_toolkit_would_not_draw_256_colours():
    assert enabled({"TERM": "xterm-256color"})
    for env in ({"TERM": "dumb"}, {"TERM": "linux"}, {}, {"TERM": "xterm", "NO_COLOR": "1"},
                {"TERM": "xterm", "PROMPT_TOOLKIT_COLOR_DEPTH": "DEPTH_24_BIT"},
                {"TERM": "xterm", "UNONET_FIRST_FRAME": "0"}):
        assert not enabled(env), env


# ---------------------------------------------------------------------- a real terminal
def spawn(tmp_path, columns=80, rows=24, **env):
    """`unonet play --seed 1` in a pseudo-terminal of its own: (pid, master fd, its `Stopper`)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("UNONET_FIRST_FRAME", "NO_COLOR")}
    environ.update(TERM="xterm-256color", HOME=str(tmp_path), UNONET_HOME=str(tmp_path / "unonet"),
                   UNONET_BOT_DELAY="60", **env)
    pid, fd = pty.fork()
    if pid == 0:
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            os.execve(sys.executable, [sys.executable, "-m", "unonet", "play", "--seed", "1"], environ)
        finally:
            os._exit(127)
    return pid, fd, Stopper(pid, fd)


def read_more(fd, wait: float) -> bytes | None:
    """What came within ``wait`` seconds (b"": nothing); None when the program closed the terminal."""
    if not select.select([fd], [], [], wait)[0]:
        return b""
    try:
        return os.read(fd, 65536) or None
    except OSError:
        return None


def read_until(fd, got: bytes, marker: bytes, timeout: float = 60) -> bytes:
    end = time.monotonic() + timeout
    while marker not in got and time.monotonic() < end:
        data = read_more(fd, 0.2)
        if data is None:
            break
        got += data
    return got


def read_quiet(fd, got: bytes, quiet: float = 1.0, timeout: float = 30) -> bytes:
    """Read until nothing came for ``quiet`` seconds (or the program closed the terminal)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        data = read_more(fd, quiet)
        if not data:
            break
        got += data
    return got


class Stopper:
    """Stops the program in the pseudo-terminal once: its exit code if it ended by itself
    within ``wait`` s, else None (it is killed); then its terminal is closed (``close``)."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd, self.code, self.reaped, self.closed = pid, fd, None, False, False

    def __call__(self, wait: float = 20, close: bool = True) -> int | None:
        end = time.monotonic() + wait
        while not self.reaped:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.code, self.reaped = os.waitstatus_to_exitcode(status), True
            elif time.monotonic() >= end:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                self.reaped = True
            else:
                time.sleep(0.05)
        if close and not self.closed:
            os.close(self.fd)
            self.closed = True
        return self.code


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pseudo-terminal")
def test_keys_typed_before_the_application_draws_are_not_echoed_and_are_honoured(tmp_path):
    """"q" (leave?) and "y" typed the moment the first frame is up - prompt_toolkit still
    loading - wait in the terminal, unechoed, and the application reads them: it leaves the
    match, prints the standings on the normal screen and exits 0."""
    for _attempt in range(3):
        pid, fd, stop = spawn(tmp_path)
        try:
            got = read_until(fd, b"", b"Your hand")
            assert b"Your hand" in got, got[-500:]
            early = APP not in got  # (prompt_toolkit not drawn yet, as far as we have read)
            os.write(fd, b"qy")
            got = read_quiet(fd, got)
            code = stop(close=False)
            lflag = termios.tcgetattr(fd)[3]  # (the pty's mode, read on its master side)
        finally:
            stop()
        if early:
            break
    else:
        pytest.fail("the application drew before the keys could be typed, three times")
    first, _sep, rest = got.partition(APP)
    assert b"qy" not in first, "the keys were echoed"
    assert code == 0, got[-800:]
    assert lflag & termios.ECHO and lflag & termios.ICANON and lflag & termios.ISIG, "the mode was not put back"
    assert b"you left during round 1" in rest and b"Cleo" in rest.split(b"you left")[-1], rest[-800:]
    assert rest.rstrip().endswith(b"points") or b"points" in rest[-200:], rest[-300:]


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pseudo-terminal")
def test_an_early_enter_reaches_the_application_as_enter(tmp_path):
    """The terminal translates input as it arrives, so the first frame puts it into
    prompt_toolkit's own raw mode before any key can come: an Enter typed during the load
    arrives as Enter (^M), not as ^J.  "q" asks to leave, Enter answers "keep playing", "?"
    opens the help; had Enter come as ^J (no key), "?" would have answered the question."""
    for _attempt in range(3):
        pid, fd, stop = spawn(tmp_path)
        try:
            got = read_until(fd, b"", b"Your hand")
            early = APP not in got
            os.write(fd, b"q\r?")
            got = read_quiet(fd, got)
        finally:
            stop(wait=0)
        if early:
            break
    else:
        pytest.fail("the application drew before the keys could be typed, three times")
    after = got.partition(APP)[2]
    assert b"Help: any key to go back to the table." in after, after[-800:]


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pseudo-terminal")
def test_a_terminal_too_small_for_the_table_gets_no_first_frame(tmp_path):
    """30x8 holds no table: nothing is drawn before the application, which says the window
    is too small; q, y still leave, and the terminal's mode comes back."""
    pid, fd, stop = spawn(tmp_path, 30, 8)
    try:
        got = read_until(fd, b"", APP)
        got = read_until(fd, got, b"too small")
        assert APP in got and b"Window too small" in got, got[-500:]
        assert got[:got.index(APP)].count(b"\x1b[?1049h") == 1, got[:300]  # prompt_toolkit's own only
        os.write(fd, b"qy")
        got = read_quiet(fd, got)
        code = stop(close=False)
        lflag = termios.tcgetattr(fd)[3]
    finally:
        stop()
    assert code == 0, got[-500:]
    assert lflag & termios.ECHO and lflag & termios.ICANON


# ---------------------------------------------------------------------- tmux: no flicker
SOCKET = f"unonet-first-{uuid.uuid4().hex[:12]}"


def tmux(*args) -> str:
    proc = subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", *args], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def cells_of(capture: str, columns: int) -> list[list[tuple]]:
    """``tmux capture-pane -e`` output as rows of cells (character, foreground, background,
    attributes), a cell not written being a blank one."""
    grid = []
    fg, bg, attrs = None, None, frozenset()  # (tmux carries them from one line to the next)
    for line in capture.split("\n"):
        row = []
        pos = 0
        for m in SGR.finditer(line + "\x1b[99m"):
            row += [(ch, fg, bg, attrs) for ch in line[pos:m.start()]]
            pos = m.end()
            params = [int(p) if p else 0 for p in m.group(1).replace(":", ";").split(";")]
            i = 0
            while i < len(params):
                p = params[i]
                if p == 0:
                    fg, bg, attrs = None, None, frozenset()
                elif p in (38, 48):
                    value = tuple(params[i + 1:i + 3]) if params[i + 1] == 5 else tuple(params[i + 1:i + 5])
                    i += len(value)
                    fg, bg = (value, bg) if p == 38 else (fg, value)
                elif p == 39 or p == 49:
                    fg, bg = (None, bg) if p == 39 else (fg, None)
                elif 30 <= p <= 37 or 90 <= p <= 97:
                    fg = (p,)
                elif 40 <= p <= 47 or 100 <= p <= 107:
                    bg = (p,)
                elif 20 <= p <= 29:
                    attrs = attrs - {p - 20, 2 if p == 22 else -1}
                elif p != 99:  # (99: the end of the line)
                    attrs = attrs | {p}
                i += 1
        row = [(" ", None, None, frozenset()) if c[0] == " " and not ({3, 4, 7} & c[3]) and c[2] is None else c
               for c in row]
        row += [(" ", None, None, frozenset())] * (columns - len(row))
        grid.append(row)
    while grid and all(c == (" ", None, None, frozenset()) for c in grid[-1]):
        grid.pop()
    return grid


@pytest.fixture(scope="module")
def tmux_server():
    """One tmux server for the module (`tmux_server.keep_up`)."""
    if shutil.which("tmux") is None:
        yield
        return
    keep_up(SOCKET)
    try:
        yield
    finally:
        take_down(SOCKET)


def shown(path, columns, rows) -> str:
    """The screen tmux shows after the bytes in ``path`` (each cell's colours included)."""
    session = f"s{uuid.uuid4().hex[:8]}"
    tmux("new-session", "-d", "-s", session, "-x", str(columns), "-y", str(rows),
         f"cat {path}; sleep 30")
    try:
        time.sleep(0.5)
        before = None
        for _ in range(50):
            now = tmux("capture-pane", "-e", "-p", "-t", session)
            if now == before:
                return now
            before = now
            time.sleep(0.1)
        return before
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", session], capture_output=True)


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")
@pytest.mark.parametrize("columns,rows", [(80, 24), (60, 20), (120, 40)])
def test_the_first_frame_is_the_applications_frame_cell_for_cell(tmp_path, columns, rows, tmux_server):
    """What `unonet play` wrote before prompt_toolkit drew, and everything up to its first
    frame, replayed into tmux at the same size: the two screens are identical (text and
    colours), so taking over changes nothing the player can see."""
    pid, fd, stop = spawn(tmp_path, columns, rows)
    try:
        got = read_until(fd, b"", APP)
        got = read_quiet(fd, got)
    finally:
        stop()
    assert APP in got, got[-500:]
    # prompt_toolkit's first render starts at its own switch to the alternate screen
    handover = got.rindex(b"\x1b[?1049h", 0, got.index(APP))
    assert handover > 0, "no first frame before the application's"
    (tmp_path / "first").write_bytes(got[:handover])
    (tmp_path / "both").write_bytes(got)
    first = shown(tmp_path / "first", columns, rows)
    then = shown(tmp_path / "both", columns, rows)
    assert " Top " in first and "Your hand (7 cards)" in first
    assert cells_of(first, columns) == cells_of(then, columns), (first, then)


def test_a_seat_row_keeps_its_uno_flag_when_its_flags_overflow_the_panel():
    """play8: at 100 columns the host's seats panel read "1 Bob        1 card  B dealer away
    no U|" (a partners table, Bob the dealer, away, one card and no UNO called): the catch
    the row is there to show was cut.  The dealer flag (the log names the dealer) gives way."""
    view, ctl = dealt(players=4)
    view.teams, view.dealer, view.away = True, 1, {1}
    view.counts[1], view.catchable, view.uno = 1, 1, set()
    for columns in (80, 100):
        lines = table_screen(view, ctl, columns, 32)
        row = next("".join(t for _s, t in line) for line in lines if "".join(t for _s, t in line)[1:6] == "1 Ana")
        left = row.split("|")[0]
        assert "no UNO!" in left and "away" in left, row
