"""Which of a package's modules import which, read from the source with ast.

Every import that can run counts, at the top of a module or inside a function
(a lazy import is still a dependency, and the usual way a circle gets hidden);
imports under ``if TYPE_CHECKING:`` never run and name only types, so they are
left out (import-linter's contracts still see them). Importing a package's
``__init__`` is an edge to the package; ``from pkg import name`` is an edge to
``pkg.name`` when that is a module and to ``pkg`` otherwise.
"""

from __future__ import annotations

import ast
from pathlib import Path


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module under ``root`` (the package's folder) by its dotted name."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The dotted name a relative ``from`` import in ``module`` means."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Each module's imports of the package's own modules (other packages left out)."""
    names = module_names(root, package)
    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, path in names.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _runtime_nodes(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(name, is_package, node.level, node.module)
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    targets.append(submodule if submodule in names else source)
            for target in targets:
                if target in names and target != name:
                    graph[name].add(target)
    return graph


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` but the bodies of ``if TYPE_CHECKING:`` blocks."""
    found: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle for each group of modules that reach each other (Tarjan's SCC).

    Each circle is given as a path that starts and ends at the same module, so a
    failure names every step of it.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[set[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        # Iterative, so a deep import chain cannot exhaust Python's recursion limit.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return [_circle_in(group, graph) for group in groups]


def _circle_in(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no circle through {start} in {sorted(group)}")
