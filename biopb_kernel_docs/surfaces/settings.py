"""Where the tiers are: one resolution rule for every process (kernel, MCP server, CLI, Jupyter Server).

A setting comes from, highest first: the process's own configuration (command-line flags,
``--DocStore.<trait>=``, a kernel's or server's traitlets config), then the one shared file,
``biopb_kernel_docs_config.json`` (or ``.py``) in a Jupyter config directory (``jupyter
--paths`` lists them; the user's ``~/.jupyter`` first), then the default. The shared file is
what makes one setting reach every surface. ``skills_local_dir`` is the pre-redesign key, read
for one release when no layer sets ``docs_local_dir``.

Only a ``.py`` config file needs traitlets; a process that is never configured that way (the
command line's ``read`` and ``index``) does not import it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .._version import __version__
from ..core.errors import StoreUnavailable
from ..core.values import ConfigView, Setting
from ..core.version_folders import HistoryLimits

CONFIG_NAME = "biopb_kernel_docs_config"
SECTION = "DocStore"
HISTORY_TRAITS = ("history_max_versions", "history_max_bytes")
TRAITS = ("docs_local_dir", "skills_local_dir", "shipped_dir", "shipped_version", *HISTORY_TRAITS)
PACKAGE_DIR = Path(__file__).resolve().parents[1]
ALIAS_WARNING = (
    "DocStore.skills_local_dir is deprecated and will be removed in the next release; use "
    "DocStore.docs_local_dir (it wins when both are set)."
)


def default_local_dir() -> Path:
    """``~/.config/biopb/docs`` (under ``$XDG_CONFIG_HOME`` when that is set)."""
    config_home = os.environ.get("XDG_CONFIG_HOME")
    return (Path(config_home) if config_home else Path.home() / ".config") / "biopb" / "docs"


def default_shipped_dir() -> Path:
    """The seed inside the installed package (§1); in a source checkout, the checkout's ``seed/``."""
    inside = PACKAGE_DIR / "seed"
    checkout = PACKAGE_DIR.parent / "seed"
    if not inside.is_dir() and (PACKAGE_DIR.parent / "pyproject.toml").is_file() and checkout.is_dir():
        return checkout
    return inside


def expand(path: str) -> Path:
    return Path(os.path.expandvars(path)).expanduser()


def user_config_file() -> Path:
    """The shared file in the user's Jupyter config directory (``jupyter --config-dir``)."""
    from jupyter_core.paths import jupyter_config_dir

    return Path(jupyter_config_dir()) / f"{CONFIG_NAME}.json"


def config_files() -> list[Path]:
    """The shared config files to consult, highest precedence first (only those that exist)."""
    from jupyter_core.paths import jupyter_config_path

    found = []
    for directory in jupyter_config_path():
        for suffix in (".py", ".json"):  # traitlets' own order: in one directory, .py wins
            candidate = Path(directory) / f"{CONFIG_NAME}{suffix}"
            if candidate.is_file():
                found.append(candidate)
    return found


def _load(path: Path) -> dict[str, str]:
    """The DocStore section of one config file, as strings."""
    try:
        if path.suffix == ".json":
            section = json.loads(path.read_text(encoding="utf-8")).get(SECTION, {})
        else:
            from traitlets.config.loader import PyFileConfigLoader

            section = PyFileConfigLoader(path.name, str(path.parent)).load_config().get(SECTION, {})
    except Exception as err:  # a broken file must say so, whatever broke in it
        raise StoreUnavailable(
            f"Cannot read the docs configuration {path}: {err}. Fix the file (it holds "
            f'{{"{SECTION}": {{"docs_local_dir": "..."}}}} in JSON, or c.{SECTION}.docs_local_dir = "..." in '
            "Python), or remove it."
        ) from None
    if not isinstance(section, Mapping):
        raise StoreUnavailable(f"{path}: the {SECTION} section must be a mapping of trait names to values.")
    return {name: str(value) for name, value in section.items() if name in TRAITS and value is not None}


@dataclass(frozen=True)
class Resolved:
    """The tiers a process opens, and where each setting came from."""

    local_dir: Path
    shipped_dir: Path
    shipped_version: str
    view: ConfigView
    warnings: tuple[str, ...]
    history: HistoryLimits


def _whole_number(name: str, chosen: Mapping[str, tuple[str, str]], default: int) -> int:
    if name not in chosen:
        return default
    value, source = chosen[name]
    try:
        number = int(str(value).strip())
    except ValueError:
        number = -1
    if number < 0:
        raise StoreUnavailable(
            f"DocStore.{name} must be a whole number (0 or more), not {value!r} (from {source}). Fix it "
            "there; biopb-kernel-docs config shows every setting and where it came from."
        )
    return number


def resolve(overrides: Mapping[str, str | None], origin: str) -> Resolved:
    """Apply the layers: ``overrides`` (this process's own, labelled ``origin``), files, defaults."""
    files = config_files()
    chosen: dict[str, tuple[str, str]] = {}
    for path in reversed(files):  # lowest precedence first; higher layers overwrite
        for name, value in _load(path).items():
            chosen[name] = (value, str(path))
    for name, value in overrides.items():
        if name in TRAITS and value is not None:
            chosen[name] = (value, origin)
    warnings: tuple[str, ...] = ()
    if "docs_local_dir" not in chosen and "skills_local_dir" in chosen:
        chosen["docs_local_dir"] = chosen["skills_local_dir"]
        warnings = (ALIAS_WARNING,)
    elif "skills_local_dir" in chosen:
        warnings = (ALIAS_WARNING,)
    local = expand(chosen["docs_local_dir"][0]) if "docs_local_dir" in chosen else default_local_dir()
    shipped = expand(chosen["shipped_dir"][0]) if "shipped_dir" in chosen else default_shipped_dir()
    version = chosen["shipped_version"][0] if "shipped_version" in chosen else __version__
    defaults = HistoryLimits()
    history = HistoryLimits(
        _whole_number("history_max_versions", chosen, defaults.max_versions),
        _whole_number("history_max_bytes", chosen, defaults.max_bytes),
    )
    values = {
        "docs_local_dir": str(local),
        "shipped_dir": str(shipped),
        "shipped_version": version,
        "history_max_versions": str(history.max_versions),
        "history_max_bytes": str(history.max_bytes),
    }
    settings = tuple(
        Setting(name, value, chosen[name][1] if name in chosen else "default")
        for name, value in values.items()
    )
    found = tuple(str(f) for f in files)
    view = ConfigView(
        str(local), str(shipped), version, __version__, settings, found, str(user_config_file())
    )
    return Resolved(local, shipped, version, view, warnings, history)
