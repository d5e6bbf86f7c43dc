"""Checks that a test oracle (a generator or reference script under devtools/) was written without ioscale."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType


def ioscale_imports(module: ModuleType) -> set[str]:
    """The ioscale modules ``module``'s source imports (absolute imports; empty for an independent oracle)."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    return {name for name in imported if name.startswith("ioscale")}
