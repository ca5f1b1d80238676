"""The build: the rules engine compiled with mypyc where it can be, pure Python otherwise.

`pyproject.toml` holds the metadata; this file only adds the optional compiled engine
(docs/performance.md, "The compiled engine"). Where a C compiler and Python's headers are
found, the build asks for mypy (which carries mypyc: a build requirement of this machine only)
and compiles the engine's hot modules to C extensions, each `optional`: a compile that fails
still installs the same modules as plain Python. Elsewhere (a friend's laptop without a
compiler) nothing more is fetched and the engine is pure Python. ``UNONET_PURE=1`` builds pure
Python on purpose (the wheel handed around; at run time it loads the pure modules even beside
compiled ones: unonet/engine/_load.py).
"""

import os
import shutil
import sys
import sysconfig

from setuptools import setup

#: the modules compiled: the cards, the events, the actions, the round's state machine and the
#: bots that drive it (unonet/engine/_load.py loads them, or their sources)
COMPILED = ["unonet/engine/_cards.py", "unonet/engine/_events.py", "unonet/engine/_actions.py",
            "unonet/engine/_round.py", "unonet/engine/_bots.py"]


def can_compile() -> bool:
    """A C compiler and Python's headers here (POSIX; elsewhere the engine stays pure)."""
    if os.environ.get("UNONET_PURE") or os.name != "posix":
        return False
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    include = sysconfig.get_paths().get("include") or ""
    return bool(cc) and shutil.which(cc[0]) is not None and os.path.exists(os.path.join(include, "Python.h"))


def engine_extensions() -> list:
    if not can_compile():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # asked for (setup_requires) but not there: a build without isolation
        return []
    try:
        exts = mypycify(["--follow-imports=silent", *COMPILED], opt_level="3", group_name="unonet_engine")
    except (Exception, SystemExit) as exc:  # a mypyc that cannot compile them: a pure build, said once
        print(f"unonet: the engine is not compiled ({type(exc).__name__}: {exc}); pure Python", file=sys.stderr)
        return []
    for ext in exts:
        ext.optional = True  # a failed compile: pure Python, not a failed install
    return exts


setup(
    ext_modules=engine_extensions(),
    # a build requirement only where the engine can be compiled (PEP 517: get_requires_for_build_*)
    setup_requires=["mypy>=1.10"] if can_compile() else [],
)
