"""Public faces of packages: show the public path in reprs and tracebacks
(trio's ``fixup_module_metadata``)."""

from __future__ import annotations

from typing import Any


def fixup_module_metadata(namespace: dict[str, Any], package: str) -> None:
    """Classes re-exported by ``package`` from its private ``_modules`` claim it."""
    for obj in list(namespace.values()):
        if isinstance(obj, type) and getattr(obj, "__module__", "").startswith(package + "._"):
            obj.__module__ = package
