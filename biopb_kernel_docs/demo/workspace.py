"""The demo workspace ``./dev start`` opens: the getting-started notebook, and a first layout that
shows it beside the Kernel Docs panel.

JupyterLab restores its layout from a workspace; the first start of a demo workspace gets one
whose main area holds the notebook and whose left sidebar shows the panel. Its file is written
through JupyterLab's own workspace store (so the name is the one JupyterLab looks for), once:
the layout the user makes afterwards is theirs and is kept.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

NOTEBOOK = "getting-started.ipynb"
WORKSPACES = ".jupyterlab-workspaces"  # inside the demo workspace: hidden in the file browser
PANEL_RESTORE_NAME = "biopb-kernel-docs:panel"  # the name labextension/src/index.ts restores it by


def first_layout() -> dict:
    """The default workspace: the notebook open in the main area, the Kernel Docs panel shown."""
    notebook = f"notebook:{NOTEBOOK}"
    return {
        "data": {
            "layout-restorer:data": {
                "main": {
                    "dock": {"type": "tab-area", "currentIndex": 0, "widgets": [notebook]},
                    "current": notebook,
                },
                "left": {
                    "collapsed": False,
                    "visible": True,
                    "current": PANEL_RESTORE_NAME,
                    "widgets": [
                        "filebrowser",
                        "running-sessions",
                        "@jupyterlab/toc:plugin",
                        PANEL_RESTORE_NAME,
                    ],
                },
            },
            notebook: {"data": {"path": NOTEBOOK, "factory": "Notebook"}},
        },
        "metadata": {"id": "default"},
    }


def prepare(workspace: Path) -> Path:
    """Put the notebook and the first layout in ``workspace`` where they are missing; return the
    directory JupyterLab keeps the workspace's layouts in (``--LabApp.workspaces_dir``)."""
    from jupyterlab_server.workspaces_handler import WorkspacesManager

    workspace.mkdir(parents=True, exist_ok=True)
    if not (workspace / NOTEBOOK).exists():
        shutil.copyfile(Path(__file__).with_name(NOTEBOOK), workspace / NOTEBOOK)
    layouts = workspace / WORKSPACES
    layouts.mkdir(exist_ok=True)
    manager = WorkspacesManager(layouts)
    if not any(item["metadata"]["id"] == "default" for item in manager.list_workspaces()):
        manager.save("default", json.dumps(first_layout()))
    return layouts


if __name__ == "__main__":
    print(prepare(Path(sys.argv[1])))
