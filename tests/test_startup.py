"""A command imports only what it uses (issue 26): building the command line must not pull in
trio, the protocol or cryptography, which cost `--help` ~4x a bare interpreter's start.

The real command runs (`sys.executable -m unonet`) under ``-X importtime``, which names every
module the process imported; the speed itself is measured by scripts/bench/startup.py."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

HEAVY = ("trio", "cryptography", "msgpack", "prompt_toolkit", "unonet.net", "unonet.protocol", "unonet.fair",
         "unonet.table")


def imported(*args: str, code: int = 0) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "unonet", *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == code, proc.stderr[-2000:]
    return set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", proc.stderr, re.M))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))


@pytest.mark.parametrize("args", [("--help",), ("host", "--help"), ("join", "--help"), ("score", "--help"),
                                  ("play", "--help"), ("--version",)], ids=" ".join)
def test_help_imports_no_network_crypto_or_screen_library(args):
    modules = imported(*args)
    assert "unonet.cli" in modules  # (the check sees the command's imports at all)
    assert heavy(modules) == []


def test_engine_only_commands_import_no_network_or_crypto():
    for args in (("rules", "--json"), ("simulate", "--rounds", "2", "--seed", "1", "--json")):
        modules = imported(*args)
        assert "unonet.engine" in modules
        assert heavy(modules) == [], args


def test_the_check_sees_a_command_that_does_use_crypto(tmp_path):
    """`audit` needs the fair layer and cryptography: the same check names them (it is not blind)."""
    modules = imported("audit", str(tmp_path / "missing.jsonl"), code=2)
    assert "unonet.fair" in modules and "cryptography" in modules
