"""Every unonet module imports, and the command starts, with the Linux/POSIX-only
facilities taken away, as on Windows: ``fcntl``, ``termios``, ``tty``, ``pty``, ``pwd``,
``grp`` and ``resource`` cannot be imported by unonet, and ``os.getuid`` /
``os.geteuid`` are gone.

Our own libraries (trio, prompt_toolkit) pick their code path by platform and may use
those modules on Linux; the refusal is therefore for imports made by unonet's own
modules, and the libraries are imported before ``os.getuid`` is deleted."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

POSIX_ONLY = ("fcntl", "termios", "tty", "pty", "pwd", "grp", "resource")

# Runs in a fresh interpreter: refuse the modules to unonet, delete the uid calls, then
# import every module of the package and run `unonet --help` and `unonet rules`.
PROBE = textwrap.dedent("""
    import contextlib, importlib, importlib.util, io, os, pathlib, sys
    BLOCKED = set(sys.argv[1].split(","))

    class NotHere:
        '''A meta-path finder that refuses the POSIX-only modules to unonet's modules.'''
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] not in BLOCKED:
                return None
            frame = sys._getframe(1)
            for _ in range(200):
                if frame is None:
                    break
                module = frame.f_globals.get("__name__", "")
                if not module.startswith(("importlib", "_frozen_importlib")):
                    if module == "unonet" or module.startswith("unonet."):
                        raise ImportError(f"No module named {name!r} (as on Windows)", name=name)
                    return None
                frame = frame.f_back
            return None

    import trio, prompt_toolkit, cryptography, msgpack, sqlite3  # the libraries' own choices
    import prompt_toolkit.application
    for name in BLOCKED:
        sys.modules.pop(name, None)  # unonet's import must reach the finder, not a cache
    sys.meta_path.insert(0, NotHere())
    for name in ("getuid", "geteuid"):
        if hasattr(os, name):
            delattr(os, name)

    failed = []
    root = pathlib.Path(importlib.util.find_spec("unonet").origin).parent  # nothing run yet
    names = sorted(".".join(("unonet",) + p.relative_to(root).with_suffix("").parts)
                   .removesuffix(".__init__") for p in root.rglob("*.py"))
    names.remove("unonet.__main__")  # the entry script: main() runs below
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    try:
        from unonet.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main(["--help"])
            except SystemExit as exc:
                if exc.code not in (0, None):
                    failed.append(f"unonet --help exited {exc.code}")
            if main(["rules"]) != 0:
                failed.append("unonet rules failed")
    except Exception as exc:
        failed.append(f"unonet command: {type(exc).__name__}: {exc}")
    print(f"imported {len(names) - len(failed)} of {len(names)}")
    for line in failed:
        print("FAILED", line)
    sys.exit(1 if failed else 0)
""")


def run_probe(*blocked: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE, ",".join(blocked)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_every_module_imports_without_posix_only_facilities():
    proc = run_probe(*POSIX_ONLY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    count = int(proc.stdout.split()[1])
    assert count > 50  # the walk found the package, not an empty path


def test_the_probe_refuses_what_it_says():
    # the refusal is real: refused a module unonet does import at module level (ipaddress,
    # for discovery), unonet.net fails to import, and the probe says so
    proc = run_probe("ipaddress")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAILED unonet.net._discovery: ImportError: No module named 'ipaddress'" in proc.stdout
