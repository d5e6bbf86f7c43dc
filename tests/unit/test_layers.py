"""Imports point down the layers, read from the source (every import, those inside functions too).

    base         ioscale.errors, .histogram, .paths (and the package's __init__)
    wire         topics, schemas, records, columns, Avro encoding, producer, publishing: base only
    importers, collectors, simulator, services   on the wire and base
    query        the SQL library: reads sql/queries, runs them through the stack's ClickHouse client
    report       lab reports and the regression gate, rendered from the library's rows: base only
    stack        installs, runs and checks the services: never provision/ or cli/
    provision    configures a running stack
    cli          the commands: nothing imports them

and no two packages import each other, directly or round a longer circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "ingest" / "src"
PACKAGE = SRC / "ioscale"
BASE_MODULES = {"errors", "histogram", "paths"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> str:
    """The package a module belongs to: ``ioscale.wire.producer`` -> ``wire``; the base modules -> ``base``."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in BASE_MODULES:
        return "base"
    return parts[1]


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The ioscale modules (or packages) an import statement names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "ioscale"]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:  # relative: resolve against the importing module's package
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != "ioscale":
        return []
    if target == "ioscale":  # `from ioscale import wire, errors`: each name is a module or package
        return [f"ioscale.{a.name}" for a in node.names]
    return [target]


def _imports() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        out[module] = {t for node in ast.walk(tree) for t in _imported(node, module, path.name == "__init__.py")}
    return out


IMPORTS = _imports()


def _edges(frm: set[str], to: set[str]) -> list[str]:
    return sorted(f"{m} imports {t}" for m, targets in IMPORTS.items() if _layer(m) in frm
                  for t in targets if _layer(t) in to)


def test_every_layer_is_found():
    layers = {_layer(m) for m in IMPORTS}
    assert {"base", "wire", "stack", "provision", "services", "cli"} <= layers
    assert {"ioscale.errors", "ioscale.wire.producer", "ioscale.stack.launcher"} <= set(IMPORTS)


def test_the_base_modules_import_only_each_other():
    assert _edges({"base"}, {_layer(m) for m in IMPORTS} - {"base"}) == []


def test_the_wire_layer_depends_on_nothing_above_it():
    assert _edges({"wire"}, {_layer(m) for m in IMPORTS} - {"base", "wire"}) == []


def test_the_stack_never_imports_provisioning_or_commands():
    assert _edges({"stack"}, {"provision", "cli"}) == []


def test_nothing_imports_the_commands():
    assert _edges({_layer(m) for m in IMPORTS} - {"cli"}, {"cli"}) == []


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for m, targets in IMPORTS.items():
        graph.setdefault(_layer(m), set()).update(_layer(t) for t in targets if _layer(t) != _layer(m))
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of packages (first package repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_packages_import_each_other_without_a_circle():
    circle = _cycle(_package_graph())
    assert circle is None, " -> ".join(circle) + ": " + "; ".join(
        _edges({a}, {b})[0] for a, b in zip(circle, circle[1:]))


@pytest.mark.parametrize("graph,expected", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
    ({"x": {"a"}, "a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
])
def test_the_circle_check_finds_circles(graph, expected):
    assert _cycle(graph) == expected


def test_relative_and_package_imports_are_resolved():
    tree = ast.parse("from . import canonical\nfrom ..wire import topics\nfrom ioscale import wire, errors\n")
    found = [t for node in tree.body for t in _imported(node, "ioscale.services.registry.store", False)]
    assert found == ["ioscale.services.registry", "ioscale.services.wire", "ioscale.wire", "ioscale.errors"]


def test_the_report_package_renders_rows_without_data_access():
    # ioscale.report draws what the commands fetched: it never runs a query or reaches the stack itself.
    assert "report" in {_layer(m) for m in IMPORTS}
    assert _edges({"report"}, {_layer(m) for m in IMPORTS} - {"base", "report"}) == []
