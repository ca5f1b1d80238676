"""The net layer's modules form no import circle, and the command-line modules are imported by
nothing below them (issue 21: one seat session, no five-file circle held by lazy imports)."""

from __future__ import annotations

import ast
from pathlib import Path

import unonet.net

NET = Path(unonet.net.__file__).parent
PACKAGE = NET.parent
CLI_MODULES = {"session_cli", "list_cli"}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module imported relative to unonet.net, at module level?) for every import."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.level == 1 and path.parent == NET:
                out.append((node.module, id(node) in top))
            elif node.module.startswith("unonet.net."):
                out.append((node.module.rsplit(".", 1)[1], id(node) in top))
            elif node.level == 2 and node.module.startswith("net."):
                out.append((node.module.split(".", 1)[1], id(node) in top))
    return out


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for n in graph.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def test_no_import_circle_and_no_lazy_import_inside_the_net_layer():
    graph = {p.stem: {m for m, _ in _imports(p)} for p in NET.glob("*.py")}
    lazy = [(p.stem, m) for p in NET.glob("*.py") for m, top in _imports(p) if not top]
    assert lazy == [], lazy

    circles = sorted(m for m in graph if m in _reach(graph, m))
    assert circles == [], circles


def test_the_command_line_modules_are_imported_by_nothing_below_them():
    below = [p for p in PACKAGE.rglob("*.py") if p.name not in ("cli.py",) and p.stem not in CLI_MODULES
             and "store" not in p.parts[-2:-1]]
    users = sorted(str(p.relative_to(PACKAGE)) for p in below for m, _ in _imports(p) if m in CLI_MODULES)
    assert users == [], users


def test_no_module_level_import_circle_anywhere_in_the_package():
    """The same rule for every layer (fair/ and table/ had circles held together by lazy imports)."""
    def name(path: Path) -> str:
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    modules = {name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for mod, path in modules.items():
        pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):  # lazy imports too: one dodges a circle
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                base = pkg
                for _ in range(max(0, node.level - 1)):
                    base = base.rsplit(".", 1)[0]
                target = f"{base}.{node.module}" if node.level else node.module
                if target in modules and not (path.name == "__init__.py" and target.startswith(mod + ".")):
                    deps.add(target)
        graph[mod] = deps - {mod}

    circles = sorted(m for m in graph if not modules[m].name == "__init__.py" and m in _reach(graph, m))
    assert circles == [], circles
