#!/usr/bin/env python3
"""Peak memory (RSS) of the full-screen client: `unonet join` at a live table on loopback.

    python3 scripts/bench/client.py [--seconds 20] [--players 2] [--bot] [--local]

Starts `unonet host --no-ui --json --bind 127.0.0.1 --port 0` (its beacons stay on loopback),
then `unonet join 127.0.0.1:PORT` with its screen in a pseudo-terminal of 80x24 (the client needs
a terminal), both as `sys.executable -m unonet` with a temporary HOME (fresh keys).  It samples
the client's /proc/PID/status every 20 ms while it sits at the table - the lobby, then the match
(the host's turn clock, ``--turn-timeout``, plays the client's seat, or with ``--bot`` it plays
itself) - for ``--seconds`` or until the host's match is over, then types q (and y) and waits for it to leave.  Prints the client's peak RSS (VmHWM,
the kernel's own high-water mark) and its RSS at the end.  The goal (issue 12) is <= 60 MB.

``--local`` measures `unonet play` (the same client, bots in-process) the same way, for scale.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import random
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time


def status_kb(pid: int) -> dict[str, int]:
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmHWM", "VmRSS"):
                    out[key] = int(rest.split()[0])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return out


def spawn_in_pty(argv: list[str], env: dict) -> tuple[int, int]:
    pid, fd = pty.fork()
    if pid == 0:  # the child: the client, on the pty's slave side
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    return pid, fd


def drain(fd: int, seconds: float) -> bytes:
    """Read what the client draws for ``seconds`` (the screen is thrown away)."""
    end, got = time.monotonic() + seconds, b""
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return got
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            return got
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return got
        got += chunk
        TAIL.extend(chunk)
        del TAIL[:-2000]


TAIL = bytearray()  # the client's last output (to say why it failed)


def measure(argv: list[str], env: dict, seconds: float, done=lambda: False) -> tuple[int, int, int]:
    """Run ``argv`` in a pty; sample its memory; quit it; (peak kB, last RSS kB, exit status)."""
    pid, fd = spawn_in_pty(argv, env)
    peak = last = 0
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end and not done():
            drain(fd, 0.02)
            st = status_kb(pid)
            if not st:
                break
            peak, last = max(peak, st.get("VmHWM", 0)), st.get("VmRSS", last)
        st = status_kb(pid)
        peak = max(peak, st.get("VmHWM", 0))
        for key in (b"q", b"y"):
            try:
                os.write(fd, key)
            except OSError:
                break
            drain(fd, 0.3)
        for _ in range(100):
            wpid, status = os.waitpid(pid, os.WNOHANG)
            if wpid:
                return peak, last, os.waitstatus_to_exitcode(status)
            drain(fd, 0.05)
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
        return peak, last, os.waitstatus_to_exitcode(status)
    finally:
        os.close(fd)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="longest the client sits at the table")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--bot", action="store_true", help="the client's seat plays itself (join --bot)")
    ap.add_argument("--turn-timeout", type=float, default=0.1,
                    help="the host's turn clock: it plays the client's turns after this many seconds, so "
                         "the match goes on while the client (no keys typed) checks every event")
    ap.add_argument("--local", action="store_true", help="measure `unonet play` instead")
    args = ap.parse_args()

    home = tempfile.mkdtemp(prefix="unonet-bench-client-")
    env = dict(os.environ, HOME=home, UNONET_BOT_DELAY="0", TERM=os.environ.get("TERM", "xterm-256color"))
    py = sys.executable
    host = None
    try:
        if args.local:
            argv = [py, "-m", "unonet", "play", "--players", str(args.players), "--seed", "1"]
            peak, last, code = measure(argv, env, args.seconds)
            label = "unonet play (local client, bots in-process)"
        else:
            # the host's lines go to a file (a pipe nobody reads would fill and stall the host)
            log = open(os.path.join(home, "host.jsonl"), "w+")
            host = subprocess.Popen(
                [py, "-m", "unonet", "host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0",
                 "--players", str(args.players), "--name", "Hal", "--turn-timeout", str(args.turn_timeout),
                 "--discovery-port", str(random.randint(40000, 60000))],
                stdout=log, stderr=subprocess.DEVNULL, text=True,
                env=dict(env, HOME=os.path.join(home, "host")))  # keys of its own
            port = None
            for _ in range(500):
                log.seek(0)
                line = log.readline()
                if line.endswith("\n"):
                    port = json.loads(line)["port"]
                    break
                time.sleep(0.02)
            if port is None:
                print("the host did not open its table", file=sys.stderr)
                return 1
            argv = [py, "-m", "unonet", "join", "--name", "Bench", f"127.0.0.1:{port}"]
            if args.bot:
                argv.insert(-1, "--bot")
            t0 = time.monotonic()
            peak, last, code = measure(argv, env, args.seconds, done=lambda: host.poll() is not None)
            log.seek(0)
            lines = [json.loads(line) for line in log if line.strip()]
            over = host.poll() == 0 and bool(lines) and lines[-1].get("t") == "match-over"
            if over:
                label_end = f"{lines[-1].get('rounds')} rounds"
            label = (f"unonet join (full-screen client at a loopback table, {time.monotonic() - t0:.0f} s, "
                     f"{'the whole match, ' + label_end if over else 'match not over'})")
        print(f"{label}: peak RSS {peak / 1024:.1f} MB (VmHWM), RSS at the end {last / 1024:.1f} MB, "
              f"exit {code}   goal <= 60 MB")
        if code:
            import re

            text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b" ", bytes(TAIL)).decode("utf-8", "replace")
            print("  the client's last words: " + " ".join(text.split())[-300:])
    finally:
        if host is not None and host.poll() is None:
            host.terminate()
            try:
                host.wait(5)
            except subprocess.TimeoutExpired:
                host.kill()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
