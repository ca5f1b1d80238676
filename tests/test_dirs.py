"""Where unonet keeps its files (unonet.dirs): Linux exactly as before (XDG, what
platformdirs computes there), macOS and Windows where platformdirs puts them, and
``UNONET_HOME`` above all."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs.unix
import pytest

from unonet.dirs import config_dir, data_dir
from unonet.store import default_db_path

from .platform_helpers import pretend_macos, pretend_windows

pytestmark = pytest.mark.skipif(os.name != "posix", reason="simulates the systems on a POSIX one")


@pytest.mark.parametrize("xdg", [False, True])
def test_linux_places_are_the_xdg_ones_platformdirs_gives(tmp_path, monkeypatch, xdg):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("UNONET_HOME", raising=False)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        if xdg:
            monkeypatch.setenv(var, str(tmp_path / var))
        else:
            monkeypatch.delenv(var, raising=False)
    linux = platformdirs.unix.Unix("unonet", appauthor=False)
    assert config_dir() == Path(linux.user_config_dir)
    assert data_dir() == Path(linux.user_data_dir)
    expect = tmp_path / "XDG_CONFIG_HOME" if xdg else tmp_path / "home" / ".config"
    assert config_dir() == expect / "unonet"


def test_macos_uses_application_support_unless_an_older_unonet_made_dot_config(
        tmp_path, monkeypatch):
    pretend_macos(monkeypatch, tmp_path)
    support = tmp_path / "Library" / "Application Support" / "unonet"
    assert config_dir() == support and data_dir() == support
    assert default_db_path() == support / "scores.db"
    (tmp_path / ".config" / "unonet").mkdir(parents=True)  # keys a friend has pinned
    assert config_dir() == tmp_path / ".config" / "unonet" and data_dir() == support
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "unonet"


def test_windows_uses_local_appdata_and_ignores_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    local = pretend_windows(monkeypatch, tmp_path)
    assert config_dir() == local / "unonet" and data_dir() == local / "unonet"
    assert default_db_path() == local / "unonet" / "scores.db"
    assert default_db_path({"UNONET_HOME": str(tmp_path / "u")}) == tmp_path / "u" / "scores.db"
