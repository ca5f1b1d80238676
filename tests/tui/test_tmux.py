"""End to end: `unonet play` in a real terminal (tmux), played by reading the screen."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from .tmux_server import keep_up, take_down

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]


# A tmux server of our own (its socket named per run), so that parallel runs and the
# developer's own tmux never meet; every session of this module lives on it.
SOCKET = f"unonet-test-{uuid.uuid4().hex[:12]}"


def tmux(*args, check=True) -> str:
    proc = subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True)
    if check and proc.returncode:
        pytest.fail(f"tmux {' '.join(args[:3])} ... failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


@pytest.fixture(scope="module", autouse=True)
def _tmux_server():
    # one server for the module, kept up by an idle session (test_tmux_lan imports this fixture:
    # its module starts a server on the same socket right after this module's kill-server)
    keep_up(SOCKET)
    yield
    take_down(SOCKET)


def unonet_command(*args: str, **env: str) -> str:
    """The shell command tmux runs: this interpreter (never a `unonet` found on PATH)."""
    assign = [f"{k}={v}" for k, v in env.items()]
    return shlex.join(["env", *assign, sys.executable, "-m", "unonet", *args])



def send_move(session, keys):
    """Type one move: Enter or Space alone, else the text (and Enter after a notation)."""
    if keys in ("Enter", " "):
        tmux("send-keys", "-t", session, "Enter" if keys == "Enter" else "Space")
    else:
        tmux("send-keys", "-t", session, "-l", keys)
        if len(keys) > 1:
            tmux("send-keys", "-t", session, "Enter")

def start(session, columns, rows, cmd) -> None:
    """A session running ``cmd`` whose pane stays after the program exits, so that a crash
    (or the standings printed on leaving) can still be read."""
    tmux("-f", "/dev/null", "new-session", "-d", "-s", session, "-x", str(columns), "-y", str(rows), cmd,
         ";", "set-option", "-t", session, "remain-on-exit", "on")


def exited(session) -> bool:
    return tmux("display-message", "-p", "-t", session, "#{pane_dead}").strip() == "1"


def capture(session) -> str:
    """The screen; a program that exited before its test was done fails with what it printed."""
    screen = tmux("capture-pane", "-p", "-t", session)
    if exited(session):
        pytest.fail("unonet exited early; its terminal:\n" + tmux("capture-pane", "-p", "-S", "-", "-t", session))
    return screen


def log_text(screen: str) -> str:
    """The log panel's entries, one a line: the log wraps an entry onto indented lines at the
    pane's width (and so where a port number falls), so a test reads whole entries."""
    entries: list[str] = []
    for line in screen.splitlines():
        if "|" not in line:
            continue
        text = line.split("|", 1)[1][1:].rstrip()
        if text.startswith("  ") and entries:
            entries[-1] += " " + text.strip()
        elif text:
            entries.append(text)
    return "\n".join(entries)


#: a playable card as the hand shows it ("[R7]", "[W+4]", "[O+5]"): a colour's or a wild's letter
#: first, never the turn clock ("[0:31]") of the status line under the hand
CARD_IN_BRACKETS = re.compile(r"\[([A-Z][A-Z0-9+]*)\]")
CLOCK = re.compile(r"^ ?\[\d+:\d\d\]")


def hand_of(screen: str) -> tuple[int, list[str]]:
    """(cards held, playable cards) read from the hand area of the screen: its card lines
    only, up to the status line (which may start with the turn clock, "[0:31] ...")."""
    lines = screen.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(" Your hand ("))
    held = int(re.match(r" Your hand \((\d+) card", lines[i]).group(1))
    playable = []
    for line in lines[i + 1:]:
        if not line.startswith((" [", ">", "  ")) or CLOCK.match(line) or "Your turn" in line \
                or "You drew" in line:
            break
        playable += CARD_IN_BRACKETS.findall(line)
    return held, playable


def test_the_hand_is_read_as_cards_never_as_the_turn_clock():
    """A LAN screen with a turn clock puts "[4:56]" at the start of the status line under the
    hand: it was read as a playable card ("4:56") on a screen where none was playable, and
    typed as a move when 2 cards were on the player.  The screens are Kim's at Hal's table
    (`unonet join`, the host's --turn-timeout 300), the second with a +2 on Kim."""
    waiting = (" ----------------------------------------------------------------------------\n"
               " Your hand (7 cards)\n"
               "> R1   RS   RR   Y6   B0   B3   B5\n"
               " [4:56] Pat's turn.\n")
    assert hand_of(waiting) == (7, [])
    stacked = (" Your hand (7 cards, 2 playable in [ ])\n"
               "  R1   RS  [R+2]  Y6  [G+2]  B3   B5\n"
               " [1:12] 2 cards are on you: stack a draw card or D to draw 2.\n")
    assert hand_of(stacked) == (7, ["R+2", "G+2"])
    assert move_for(stacked) == "r+2"


def move_for(screen: str) -> str | None:
    """The keys a simple player types for this screen (None: wait)."""
    dark = "Side DARK up" in screen
    color = "o" if dark else "r"
    if "RACE! " in screen:
        return " "
    if "which colour?" in screen or "name the colour" in screen:
        return color
    if "C challenge, D accept" in screen:
        return "d"
    if "You drew" in screen and ("Enter to play it" in screen or "must play it" in screen
                                 or "cannot be played: Enter or K keeps it" in screen):
        return "Enter"
    if "Your turn: nothing fits" in screen:
        return "d"
    if "Your turn: play a card" in screen or "cards are on you" in screen:
        held, playable = hand_of(screen)
        if not playable:
            return "d"
        card = playable[0].lower()
        text = card + (f" {color}" if card.startswith("w") else "")
        return text + ("!" if held == 2 else "")
    return None


def wait_change(session, before: str, timeout: float = 3.0) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        now = capture(session)
        if now != before:
            return now
        time.sleep(0.03)
    return capture(session)


def settle(session, before: str, timeout: float = 3.0) -> str:
    """Wait for the screen to change and then stay still for a moment."""
    now = wait_change(session, before, timeout)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        time.sleep(0.08)
        again = capture(session)
        if again == now:
            return now
        now = again
    return now


def test_play_a_whole_round_in_tmux(tmp_path):
    session = f"unonet-e2e-{uuid.uuid4().hex[:8]}"
    cmd = unonet_command("play", "--seed", "4", "--players", "3", "--name", "Tess", UNONET_BOT_DELAY="0")
    start(session, 100, 30, cmd)
    moves = 0
    try:
        screen = ""
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            screen = capture(session)
            if re.search(r"Round 1 over: .* out", screen):
                break
            keys = move_for(screen)
            if keys is None:
                screen = wait_change(session, screen, 0.5)
                continue
            send_move(session, keys)
            moves += 1
            after = settle(session, screen)
            assert "You don't hold" not in after and "doesn't fit" not in after, after
        else:
            pytest.fail(f"no round result after {moves} moves; screen:\n{screen}")
        assert "Tess" in screen and "Enter: deal the next round." in screen
        assert re.search(r"Standings \(first to 500\)", screen)
        assert moves >= 3
        # the next round is dealt on Enter, and q asks before quitting
        tmux("send-keys", "-t", session, "Enter")
        screen = wait_change(session, screen)
        deadline = time.monotonic() + 5
        while "round 2" not in screen and time.monotonic() < deadline:
            screen = wait_change(session, screen, 0.5)
        assert "round 2" in screen
        tmux("send-keys", "-t", session, "q")
        screen = wait_change(session, screen)
        assert "Quit the match? Y: quit" in screen
        tmux("send-keys", "-t", session, "y")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if exited(session):
                break
            time.sleep(0.05)
        else:
            pytest.fail("unonet did not exit after q, y:\n" + capture(session))
        # the full screen is gone and the standings stay on the terminal
        left = tmux("capture-pane", "-p", "-S", "-", "-t", session)
        assert "unonet: you left during round 2, first to 500 wins." in left, left
        assert re.search(r"^ +1\. \S", left, re.M) and "Tess (you)" in left, left
        assert "Your hand" not in left
    finally:
        tmux("kill-session", "-t", session, check=False)


def play_one_round(session: str, timeout: float = 40) -> tuple[str, list, set]:
    """Play by reading the screen until round 1's result shows; returns the last screen,
    the moves typed and the sides seen ("LIGHT", "DARK")."""
    moves, sides, typed = 0, set(), []
    screen = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = capture(session)
        sides |= set(re.findall(r"Side (LIGHT|DARK) up", screen))
        if re.search(r"Round 1 over: ", screen):
            return screen, typed, sides
        keys = move_for(screen)
        if keys is None:
            wait_change(session, screen, 0.5)
            continue
        send_move(session, keys)
        moves += 1
        typed.append(keys)
        after = settle(session, screen)
        assert "You don't hold" not in after and "doesn't fit" not in after, after
        assert "is not a colour" not in after and "is not a card" not in after, after
    pytest.fail(f"no round result after {moves} moves; screen:\n{screen}")


def test_play_a_flip_round_in_tmux():
    session = f"unonet-flip-{uuid.uuid4().hex[:8]}"
    cmd = unonet_command("play", "--rules", "flip", "--seed", "5", "--players", "3", "--name", "Tess",
                         UNONET_BOT_DELAY="0")
    start(session, 80, 24, cmd)
    try:
        screen, typed, sides = play_one_round(session)
        assert len(typed) >= 3
        assert sides == {"LIGHT", "DARK"}, sides  # the table flipped during the round
        # dark faces were typed (p5, tse, o+5, w+c o ...)
        assert any(k[:1] in "ptou" or k.startswith("w+c") for k in typed), typed
        assert "Tess" in screen and "Enter: deal the next round." in screen
        tmux("send-keys", "-t", session, "q")
        screen = wait_change(session, screen)
        tmux("send-keys", "-t", session, "y")
    finally:
        tmux("kill-session", "-t", session, check=False)


@pytest.mark.parametrize("preset", ["smackdown", "office", "deadly", "cross-family", "dirty", "combo"])
def test_a_round_of_each_variant_in_tmux(preset):
    """`unonet play --rules NAME`: a round to its result by reading the screen, never refused."""
    session = f"unonet-{preset}-{uuid.uuid4().hex[:8]}"
    cmd = unonet_command("play", "--rules", preset, "--seed", "3", "--players", "3", "--name", "Tess",
                         UNONET_BOT_DELAY="0", UNONET_RACE_TIME="0.3")
    start(session, 80, 24, cmd)
    try:
        screen, typed, _sides = play_one_round(session)
        assert typed and f"{preset}" in screen.splitlines()[0]
        assert "Enter: deal the next round." in screen or "Match over" in screen
    finally:
        tmux("kill-session", "-t", session, check=False)
