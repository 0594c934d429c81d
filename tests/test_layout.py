"""The package's floors: the core imports nothing from Jupyter, IPython or MCP, and nothing above it.

``core/`` is what a caller does to the store; ``text/`` turns its values into words; ``surfaces/``
are the thin adapters (command line, magics, MCP, REST). Importing the whole core in a fresh
interpreter must load none of the heavy frameworks, which is what keeps the command line's start
small and the core testable without a kernel.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "biopb_kernel_docs"
FRAMEWORKS = ("IPython", "ipykernel", "jupyter_server", "jupyter_client", "jupyter_core", "mcp", "traitlets")


def _core_modules() -> list[str]:
    return sorted(f"biopb_kernel_docs.core.{path.stem}" for path in (PACKAGE / "core").glob("[!_]*.py"))


def test_importing_the_whole_core_loads_no_jupyter_ipython_or_mcp():
    code = (
        "import importlib, json, sys\n"
        f"for name in {_core_modules()!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = set(
        json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout)
    )
    assert not loaded & set(FRAMEWORKS), f"the core loads {sorted(loaded & set(FRAMEWORKS))}"


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(level, module)`` of every import in the file, lazy ones inside functions included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or ""))
        elif isinstance(node, ast.Import):
            found += [(0, alias.name) for alias in node.names]
    return found


def test_core_modules_import_neither_text_nor_surfaces_nor_frameworks_even_lazily():
    offending = []
    for path in sorted((PACKAGE / "core").glob("*.py")):
        for level, module in _imports(path):
            top = module.split(".")[0]
            upward = level >= 2 and top in ("text", "surfaces", "bridge", "bench")
            if upward or (level == 0 and top in FRAMEWORKS):
                offending.append(f"{path.name}: {'.' * level}{module}")
    assert not offending, f"core modules reach above the core: {offending}"


def test_text_modules_import_no_surface_and_no_framework():
    offending = []
    for path in sorted((PACKAGE / "text").glob("*.py")):
        for level, module in _imports(path):
            top = module.split(".")[0]
            if (level >= 2 and top in ("surfaces", "bridge", "bench")) or (level == 0 and top in FRAMEWORKS):
                offending.append(f"{path.name}: {'.' * level}{module}")
    assert not offending, f"text modules reach into the surfaces: {offending}"
