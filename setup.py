"""The build: the rules engine compiled with mypyc where it can be, pure Python otherwise.

`pyproject.toml` holds the metadata; this file only adds the optional compiled engine
(docs/performance.md, "The compiled engine"). The engine's hot modules are compiled to C
extensions when mypyc (build requirement `mypy`) and a C compiler are there; each extension
is `optional`, so a machine without a compiler (a friend's laptop) installs the same modules
as plain Python. ``UNONET_PURE=1`` builds pure Python on purpose (and, at run time, loads the
pure modules even beside compiled ones: `unonet.engine`).
"""

import os

from setuptools import setup

#: the modules compiled: the actions, the round's state machine and the bots that drive it (unonet/engine/_load.py
#: loads them, or their sources)
COMPILED = ["unonet/engine/_actions.py", "unonet/engine/_round.py", "unonet/engine/_bots.py"]


def engine_extensions() -> list:
    if os.environ.get("UNONET_PURE"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # no mypy: the pure engine
        return []
    try:
        exts = mypycify(["--follow-imports=silent", *COMPILED], opt_level="3", group_name="unonet_engine")
    except (Exception, SystemExit) as exc:  # a mypyc that cannot compile them: a pure build, said once
        print(f"unonet: the engine is not compiled ({type(exc).__name__}: {exc}); pure Python")
        return []
    for ext in exts:
        ext.optional = True  # no C compiler: pure Python, not a failed install
    return exts


setup(ext_modules=engine_extensions())
