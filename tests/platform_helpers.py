"""Run unonet's macOS and Windows code paths on this machine: the platform checks read
``sys.platform`` when called (`unonet.dirs.is_windows`), so a test sets it; what Windows
lacks is deleted from ``os``; the shell-folder lookup that only Windows can answer is
given by the test (platformdirs asks it for ``%LOCALAPPDATA%``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs.windows

POSIX_ONLY_OS = ("getuid", "geteuid", "getgid", "getegid", "fchmod", "O_NOFOLLOW")


def pretend_windows(monkeypatch, root: Path) -> Path:
    """This process as Windows sees it; returns the user's ``%LOCALAPPDATA%`` (under
    ``root``).  ``os.link`` takes no ``follow_symlinks`` (a POSIX linkat argument)."""
    local = root / "AppData" / "Local"
    folders = {"CSIDL_LOCAL_APPDATA": local, "CSIDL_APPDATA": root / "AppData" / "Roaming"}
    monkeypatch.setattr(platformdirs.windows, "get_win_folder", lambda csidl: str(folders[csidl]))
    monkeypatch.setattr(sys, "platform", "win32")
    for name in POSIX_ONLY_OS:
        monkeypatch.delattr(os, name, raising=False)
    real_link = os.link
    monkeypatch.setattr(os, "link", lambda src, dst: real_link(src, dst))
    monkeypatch.delenv("UNONET_HOME", raising=False)
    return local


def pretend_macos(monkeypatch, home: Path) -> None:
    """This process as macOS: ``sys.platform`` "darwin", ``$HOME`` at ``home``, no XDG
    variables and no ``UNONET_HOME``."""
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setenv("HOME", str(home))
    for var in ("UNONET_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(var, raising=False)
