"""A tmux server of a test module's own (its socket named per run), kept up by an idle session:
a server whose last session was killed exits, and the next test's new-session could race that
exit ("server exited unexpectedly", seen in CI)."""

from __future__ import annotations

import subprocess
import time


def keep_up(socket: str) -> None:
    """Start the server on ``socket`` with an idle session; right after another server on the same
    socket exited, try again (bounded)."""
    command = ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "idle", "sleep 3600"]
    for _ in range(50):
        proc = subprocess.run(command, capture_output=True, text=True)
        if not proc.returncode:
            return
        time.sleep(0.1)
    raise AssertionError(f"tmux would not start a server on {socket}: {proc.stderr.strip()}")


def take_down(socket: str) -> None:
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
