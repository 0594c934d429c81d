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
# quietly LOG WHAT COMMAND...: say what is happening, keep the output in LOG, show it only on failure
# (yarn prints warnings about peer dependencies on every install; they are not errors).
quietly() {
  local log="$1" what="$2" started=$SECONDS
  shift 2
  echo "./dev: $what..." >&2
  echo "== $what" >>"$log"
  if ! (cd "$here" && "$@") >>"$log" 2>&1; then
    echo "./dev: building the panel failed. The end of its log ($log):" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
  echo "./dev: done in $((SECONDS - started)) s." >&2
}

log="$venv/panel-build.log"
installed="$here/node_modules/.biopb-kernel-docs-installed"
if [ ! -f "$installed" ] || [ "$here/yarn.lock" -nt "$installed" ] || [ "$here/package.json" -nt "$installed" ]; then
  quietly "$log" "installing the panel's JavaScript packages (jlpm install; the first time takes a minute)" jlpm install
  touch "$installed"
fi
if [ ! -f "$stamp" ] || [ -n "$(find "$here/src" "$here/style" "$here/package.json" "$here/tsconfig.json" \
  -newer "$stamp" -print -quit)" ]; then
  quietly "$log" "building the Kernel Docs panel (jlpm build)" jlpm build
  touch "$stamp"
fi
# A link rather than the copy an editable install leaves, so a rebuild is served at once.
if [ ! -L "$venv/share/jupyter/labextensions/biopb-kernel-docs" ]; then
  quietly "$log" "linking the panel into $venv" jupyter-builder develop --overwrite "$root"
fi
