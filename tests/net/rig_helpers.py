"""The project's scripts (scripts/lan-rig, scripts/bench/*.py) loaded as modules in tests:
they are files to run, not a package to import."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_script(name: str, path: Path):
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def load_rig():
    return load_script("lan_rig", ROOT / "scripts" / "lan-rig")


#: a LAN-rig test: slow, and only where namespaces can be made (Linux, root, iproute2)
RIG_MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("ip") is None,
                       reason="network namespaces need Linux, root and iproute2"),
]
