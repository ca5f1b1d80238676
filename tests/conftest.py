"""Every test runs with a home of its own (``UNONET_HOME``): identities, known peers and score
files never land in the real user's home, and concurrent runs never see each other's keys
(a port reused by another run's host once read as "KEY CHANGED").  A test that is about the
home itself sets or removes the variable as it needs."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _own_home(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("UNONET_HOME", str(tmp_path_factory.mktemp("home")))
