"""Every test runs with a home of its own (``UNONET_HOME``): identities, known peers and score
files never land in the real user's home, and concurrent runs never see each other's keys
(a port reused by another run's host once read as "KEY CHANGED").  A test that is about the
home itself sets or removes the variable as it needs.

The temporary directories tests and the processes they start make (``tempfile.mkdtemp``: a
process's output files, a joiner's home, a scorekeeper's file) go under the run's own pytest
directory, which pytest prunes (it keeps the last three runs): left in /tmp, a day of runs
left ~9,000 of them there."""

from __future__ import annotations

import os
import tempfile

import pytest


@pytest.fixture(scope="session", autouse=True)
def _own_tmp(tmp_path_factory):
    where = str(tmp_path_factory.mktemp("tmp", numbered=False))
    before, env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir = where
    os.environ["TMPDIR"] = where  # (and the processes a test starts)
    try:
        yield
    finally:
        tempfile.tempdir = before
        if env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = env


@pytest.fixture(autouse=True)
def _own_home(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("UNONET_HOME", str(tmp_path_factory.mktemp("home")))
