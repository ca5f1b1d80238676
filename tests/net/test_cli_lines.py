"""One line, never a traceback (issue 23 item 7, issue 21 item 8): a port in use or a bad
--bind, Ctrl-C at any moment, and an audit of something that is no transcript file."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from .session_helpers import ROOT, at_a_terminal, env_home, first_json, reaped, unonet

NOT_HERE = "192.0.2.1"  # TEST-NET-1: never an address of this machine (nothing is sent to it)


def _run(*args, timeout=30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unonet", *args], cwd=ROOT, env=env_home(),
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("ui", [["--no-ui"], []], ids=["no-ui", "full-screen"])
def test_a_port_in_use_is_one_line_naming_it_and_what_to_try(ui):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = _run("host", *ui, "--bind", "127.0.0.1", "--port", str(port))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"unonet: cannot listen on 127.0.0.1:{port}: TCP port {port} is in use (another table "
                           "or program holds it): give another --port, or --port 0 for any free one\n")


@pytest.mark.parametrize("command", [["host", "--no-ui", "--port", "0"], ["join", "--no-ui"],
                                     ["score", "--no-ui"], ["list"]])
def test_a_bind_address_this_machine_lacks_is_one_line(command):
    proc = _run(*command, "--bind", NOT_HERE)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"cannot listen on {NOT_HERE}:" in proc.stderr and "give one of its own addresses to --bind" in proc.stderr


#: a process that outlives its ^C says where it is: every thread's Python stack on SIGUSR1
DUMPS = "import faulthandler, signal; faulthandler.register(signal.SIGUSR1, all_threads=True)"


def _started(*args: str) -> subprocess.Popen:
    return unonet(*args, prelude=DUMPS, preexec_fn=at_a_terminal)


def _interrupt(proc: subprocess.Popen) -> tuple[int, str]:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)
        time.sleep(1.0)
        proc.kill()
        proc.wait(timeout=10)
        pytest.fail(f"still running 20 s after ^C; its stderr and stacks:\n{proc.err_path.read_text()}")
    return proc.returncode, proc.err_path.read_text()


def _free_udp() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ctrl_c_on_host_join_score_and_list_is_one_line_and_130():
    disc = str(_free_udp())
    host = _started("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0", "--discovery-port", disc,
                    "--players", "4")
    with reaped(host):
        port = first_json(host)["port"]
        join = _started("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", f"127.0.0.1:{port}")
        score = _started("score", "--no-ui", "--json", "--bind", "127.0.0.1", f"127.0.0.1:{port}")
        lst = _started("list", "--bind", "127.0.0.1", "--port", disc, "--timeout", "30")
        with reaped(join, score, lst):
            first_json(join)
            first_json(score)
            time.sleep(0.5)
            ends = {name: _interrupt(p) for name, p in (("join", join), ("score", score), ("list", lst))}
        ends["host"] = _interrupt(host)
    for name, (code, err) in ends.items():
        assert code == 130, (name, err)
        assert err.strip().splitlines()[-1].startswith("unonet") and "interrupted" in err, (name, err)
        assert "Traceback" not in err and "ExceptionGroup" not in err, (name, err)


def test_audit_of_a_device_a_fifo_or_a_huge_file_is_one_line_and_bounded(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.write(b"x" * (2 << 20) + b"\n")  # one line over the 1 MB line cap
    for path, why in (("/dev/zero", "a device, pipe or socket"), (str(fifo), "a device, pipe or socket"),
                      (str(big), "line 1 is over 1 MB")):
        t0 = time.monotonic()
        proc = _run("audit", path, timeout=20)
        assert time.monotonic() - t0 < 15
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stderr.startswith(f"unonet audit: cannot read {path}: ") and why in proc.stderr
