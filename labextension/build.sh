#!/usr/bin/env bash
# The panel for the development install: build it when its sources changed since the last build,
# and link the build into the environment, so JupyterLab serves it with no `jupyter lab build`.
# Quick when nothing changed (a few file checks). Wheels build it themselves (pyproject's hook).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
venv="${BIOPB_DOCS_VENV:-$root/.venv}"
out="$root/biopb_kernel_docs/labextension"
stamp="$out/static/style.js"
export PATH="$venv/bin:$PATH"

if ! command -v node >/dev/null 2>&1; then
  echo "Building the JupyterLab panel needs Node.js 20.19 or newer, which is not installed;" \
    "install it (Debian: apt-get install nodejs npm) and run $0 again." >&2
  exit 1
fi
installed="$here/node_modules/.biopb-kernel-docs-installed"
if [ ! -f "$installed" ] || [ "$here/yarn.lock" -nt "$installed" ] || [ "$here/package.json" -nt "$installed" ]; then
  (cd "$here" && jlpm install)
  touch "$installed"
fi
if [ ! -f "$stamp" ] || [ -n "$(find "$here/src" "$here/style" "$here/package.json" "$here/tsconfig.json" \
  -newer "$stamp" -print -quit)" ]; then
  (cd "$here" && jlpm build)
  touch "$stamp"
fi
# A link rather than the copy an editable install leaves, so a rebuild is served at once.
if [ ! -L "$venv/share/jupyter/labextensions/biopb-kernel-docs" ]; then
  jupyter-builder develop --overwrite "$root"
fi
