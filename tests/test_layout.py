"""The layout of engine/: the rules side (engine.games) never imports the search side
(engine.search), and no module of the project imports itself back through a cycle.

The import graph is read from the sources with :mod:`ast`, every import statement counted,
those inside functions and ``TYPE_CHECKING`` blocks included (a lazy import is still a
dependency)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "adapters", "gtpgames")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that ``name`` imports (``from pkg import sub`` counts as ``pkg.sub``
    when ``sub`` is a module)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [origin]
            targets += [f"{origin}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            if target in modules and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (the first repeated at the end), or ``None``."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_import_graph_has_no_cycle() -> None:
    edges = graph()
    assert "engine.games.core" in edges and "engine.search.mcts" in edges
    assert find_cycle(edges) is None


def test_the_rules_side_never_imports_the_search_side() -> None:
    for name, targets in graph().items():
        if name.startswith("engine.games"):
            wrong = {t for t in targets if t.startswith("engine.search")}
            assert not wrong, f"{name} imports {sorted(wrong)}"


def test_engine_imports_neither_protocol_nor_adapters() -> None:
    for name, targets in graph().items():
        if name.startswith("engine"):
            wrong = {t for t in targets if t.split(".")[0] in {"protocol", "adapters", "gtpgames"}}
            assert not wrong, f"{name} imports {sorted(wrong)}"
        if name.startswith("protocol"):
            wrong = {t for t in targets if t.split(".")[0] in {"adapters", "gtpgames"}}
            assert not wrong, f"{name} imports {sorted(wrong)}"
