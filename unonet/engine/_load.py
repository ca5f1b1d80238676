"""Which engine runs: the compiled modules when the build made them (setup.py), else the pure ones.

`setup.py` compiles the cards, events, actions, round and bots with mypyc where it can; a compiled module sits beside
its source and Python imports it first. Loaded here, before anything else of the engine, so
that every importer sees one build: the pure sources when ``UNONET_PURE`` is set (CI's second
pass; a comparison in the bench) or when a compiled module cannot load (its shared runtime
belongs to another environment's build of this checkout).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

_PACKAGE = __name__.rpartition(".")[0]
#: setup.py's COMPILED, in import order
MODULES = ("_cards", "_events", "_actions", "_round", "_bots")


def _load_source(name: str) -> None:
    full = f"{_PACKAGE}.{name}"
    spec = importlib.util.spec_from_file_location(full, os.path.join(os.path.dirname(__file__), name + ".py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[full] = module
    spec.loader.exec_module(module)


def load() -> bool:
    """Import the engine's compiled-when-built modules; True if the compiled ones run."""
    if not os.environ.get("UNONET_PURE"):
        try:
            mods = [importlib.import_module(f"{_PACKAGE}.{m}") for m in MODULES]
            return all(not (m.__file__ or "").endswith(".py") for m in mods)
        except ImportError:
            for m in MODULES:
                sys.modules.pop(f"{_PACKAGE}.{m}", None)
    for m in MODULES:
        _load_source(m)
    return False
