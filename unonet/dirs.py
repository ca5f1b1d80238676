"""Where unonet keeps its files on Linux, macOS and Windows (docs/install.md "Files").

``UNONET_HOME`` wins everywhere (tests and second instances on one machine use it).
Linux and the BSDs follow the XDG base directories exactly as platformdirs computes
them there (``$XDG_CONFIG_HOME`` / ``$XDG_DATA_HOME``, else ``~/.config`` /
``~/.local/share``); the rule is applied to the environment the caller passes, so it
is written out here and a test pins it to platformdirs.  Windows and macOS take
platformdirs' places: ``%LOCALAPPDATA%\\unonet`` (local, never roaming: private keys
stay on the machine) and ``~/Library/Application Support/unonet``.  macOS honours an
``XDG_*`` variable that is set, and keeps ``~/.config/unonet`` where an earlier unonet
made it: the key friends pinned there stays this player's key.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

__all__ = ["APP", "config_dir", "data_dir", "is_windows"]

APP = "unonet"
_XDG = {"config": ("XDG_CONFIG_HOME", (".config",)), "data": ("XDG_DATA_HOME", (".local", "share"))}


def is_windows() -> bool:
    """Windows: no POSIX owners or mode bits on files, no fcntl, no ``os.getuid``."""
    return sys.platform == "win32"


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The key store's directory: identity and pinned peers."""
    return _place("config", environ)


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The scorekeeper's directory: ``scores.db``."""
    return _place("data", environ)


def _place(kind: str, environ: Mapping[str, str] | None) -> Path:
    env = os.environ if environ is None else environ
    if env.get("UNONET_HOME"):
        return Path(env["UNONET_HOME"])
    if is_windows():
        from platformdirs.windows import Windows

        dirs = Windows(APP, appauthor=False, roaming=False)
        return Path(dirs.user_config_dir if kind == "config" else dirs.user_data_dir)
    var, default = _XDG[kind]
    if env.get(var):
        return Path(env[var]) / APP
    xdg = Path.home().joinpath(*default) / APP
    if sys.platform == "darwin" and not xdg.is_dir():
        from platformdirs.macos import MacOS

        dirs = MacOS(APP, appauthor=False)
        return Path(dirs.user_config_dir if kind == "config" else dirs.user_data_dir)
    return xdg
