from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from traitlets.config import Config

import biopb_kernel_docs
from biopb_kernel_docs import __version__
from biopb_kernel_docs.core.errors import StoreUnavailable
from biopb_kernel_docs.surfaces.config import DocStore
from biopb_kernel_docs.surfaces.settings import CONFIG_NAME, default_shipped_dir, resolve


def _store(**traits) -> DocStore:
    config = Config()
    for name, value in traits.items():
        setattr(config.DocStore, name, value)
    return DocStore(config=config)


def test_default_local_dir_is_under_the_config_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert _store().resolve().local_dir == tmp_path / "cfg" / "biopb" / "docs"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _store().resolve().local_dir == tmp_path / ".config" / "biopb" / "docs"


def test_docs_local_dir_moves_the_local_tier_and_expands_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _store(docs_local_dir="~/lab-docs").resolve().local_dir == tmp_path / "lab-docs"


def test_skills_local_dir_is_read_as_an_alias_and_warns(tmp_path, caplog):
    with caplog.at_level(logging.WARNING):
        store = _store(skills_local_dir=str(tmp_path / "old"))
    assert store.resolve().local_dir == tmp_path / "old"
    assert "skills_local_dir is deprecated" in caplog.text
    assert "docs_local_dir" in caplog.text


def test_new_key_wins_when_both_are_set(tmp_path):
    store = _store(skills_local_dir=str(tmp_path / "old"), docs_local_dir=str(tmp_path / "new"))
    assert store.resolve().local_dir == tmp_path / "new"
    store = _store(docs_local_dir=str(tmp_path / "new"), skills_local_dir=str(tmp_path / "old"))
    assert store.resolve().local_dir == tmp_path / "new"


def test_shipped_tier_defaults_to_the_packaged_seed_and_the_package_version(tmp_path):
    opened = _store(docs_local_dir=str(tmp_path / "local")).open_store()
    assert opened.shipped_dir == default_shipped_dir().resolve()
    assert (opened.shipped_dir / "index.md").is_file()
    assert opened.shipped_version == __version__


def test_shipped_dir_and_version_can_be_overridden(tiers):
    opened = _store(
        docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped), shipped_version="7.7"
    ).open_store()
    assert (opened.shipped_dir, opened.shipped_version) == (Path(tiers.shipped).resolve(), "7.7")


def test_each_docs_call_is_a_new_caller(tiers):
    store = _store(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    assert store.docs() is not store.docs()


def test_a_named_callers_writes_follow_a_changed_local_dir(tiers, tmp_path):
    store = _store(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    store.docs_for("user").write_doc("notes", body="# Notes\n")
    moved = tmp_path / "moved-docs"
    store.docs_local_dir = str(moved)  # %config DocStore.docs_local_dir = ... in the kernel
    store.docs_for("user").write_doc("later", body="# Later\n")
    assert (moved / "later.md").read_text() == "# Later\n"
    assert not (tiers.local / "later.md").exists()


def _shared_file(home: Path, text: str, suffix: str = ".json") -> Path:
    """The one shared config file, in the user's Jupyter config directory."""
    path = home / ".jupyter" / f"{CONFIG_NAME}{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_shared_file_sets_the_local_dir_for_every_process(tmp_path):
    home = Path(os.environ["HOME"])
    path = _shared_file(home, json.dumps({"DocStore": {"docs_local_dir": str(tmp_path / "lab")}}))
    assert _store().resolve().local_dir == tmp_path / "lab"
    resolved = resolve({}, "the command line")
    assert resolved.local_dir == tmp_path / "lab"
    source = {s.name: s.source for s in resolved.view.settings}
    assert source == {
        "docs_local_dir": str(path),
        "shipped_dir": "default",
        "shipped_version": "default",
        "history_max_versions": "default",
        "history_max_bytes": "default",
    }
    assert resolved.view.config_files == (str(path),)


def test_the_history_bounds_default_to_100_versions_and_2_mib():
    resolved = resolve({}, "the command line")
    assert (resolved.history.max_versions, resolved.history.max_bytes) == (100, 2 * 1024 * 1024)
    assert _store().open_store().history_limits == resolved.history


def test_the_history_bounds_come_from_the_shared_file_and_reach_the_store(tmp_path):
    home = Path(os.environ["HOME"])
    bounds = {"history_max_versions": 7, "history_max_bytes": 65536}
    path = _shared_file(home, json.dumps({"DocStore": {"docs_local_dir": str(tmp_path), **bounds}}))
    resolved = resolve({}, "the command line")
    assert (resolved.history.max_versions, resolved.history.max_bytes) == (7, 65536)
    assert {s.name: s.source for s in resolved.view.settings}["history_max_versions"] == str(path)
    store = _store(history_max_versions=3).open_store()
    assert (store.history_limits.max_versions, store.history_limits.max_bytes) == (3, 65536)


def test_a_kernels_or_servers_own_history_max_bytes_reaches_the_store(tmp_path):
    # c.DocStore.history_max_bytes = 65536 in ipython_kernel_config.py or jupyter_server_config.py
    store = _store(docs_local_dir=str(tmp_path), history_max_bytes=65536)
    assert store.open_store().history_limits.max_bytes == 65536
    source = {s.name: s.source for s in store.resolve().view.settings}
    assert source["history_max_bytes"] == "this process's configuration"


def test_zero_versions_turns_the_history_off(tmp_path):
    store = _store(docs_local_dir=str(tmp_path), history_max_versions=0).open_store()
    assert store.history is None


def test_a_bound_that_is_not_a_whole_number_names_the_setting_and_where_it_came_from():
    with pytest.raises(StoreUnavailable, match=r"history_max_bytes must be a whole number.*the command line"):
        resolve({"history_max_bytes": "2MB"}, "the command line")


def test_a_python_shared_file_is_read_through_traitlets(tmp_path):
    home = Path(os.environ["HOME"])
    _shared_file(home, f"c.DocStore.docs_local_dir = {str(tmp_path / 'py')!r}\n", suffix=".py")
    assert resolve({}, "the command line").local_dir == tmp_path / "py"


def test_the_process_own_setting_wins_over_the_shared_file_and_says_so(tmp_path):
    _shared_file(
        Path(os.environ["HOME"]), json.dumps({"DocStore": {"docs_local_dir": str(tmp_path / "lab")}})
    )
    resolved = _store(docs_local_dir=str(tmp_path / "mine")).resolve()
    assert resolved.local_dir == tmp_path / "mine"
    assert resolved.view.settings[0].source == "this process's configuration"


def test_the_new_key_in_the_shared_file_wins_over_the_alias_on_the_command_line(tmp_path):
    _shared_file(
        Path(os.environ["HOME"]), json.dumps({"DocStore": {"docs_local_dir": str(tmp_path / "new")}})
    )
    resolved = resolve({"skills_local_dir": str(tmp_path / "old")}, "the command line")
    assert resolved.local_dir == tmp_path / "new"
    assert resolved.warnings


def test_a_broken_shared_file_is_a_store_error_naming_the_file():
    path = _shared_file(Path(os.environ["HOME"]), "{not json")
    with pytest.raises(StoreUnavailable) as caught:
        resolve({}, "the command line")
    assert str(path) in str(caught.value)
    assert "Fix the file" in str(caught.value)


def test_the_users_config_file_wins_over_a_system_wide_one(tmp_path, monkeypatch):
    import jupyter_core.paths

    system = tmp_path / "etc-jupyter"
    system.mkdir()
    (system / f"{CONFIG_NAME}.json").write_text(
        json.dumps({"DocStore": {"docs_local_dir": str(tmp_path / "site"), "shipped_version": "9.9"}})
    )
    monkeypatch.setattr(jupyter_core.paths, "SYSTEM_CONFIG_PATH", [str(system)])
    user = _shared_file(
        Path(os.environ["HOME"]), json.dumps({"DocStore": {"docs_local_dir": str(tmp_path / "mine")}})
    )
    resolved = resolve({}, "the command line")
    assert resolved.view.config_files == (str(user), str(system / f"{CONFIG_NAME}.json"))
    assert resolved.local_dir == tmp_path / "mine"
    assert resolved.shipped_version == "9.9"  # what the user's file leaves unset comes from below
    source = {s.name: s.source for s in resolved.view.settings}
    assert source["docs_local_dir"] == str(user)


def test_the_deprecated_alias_warns_once_whether_the_shared_file_or_the_process_sets_it(tmp_path, caplog):
    def deprecations() -> int:
        return sum("skills_local_dir is deprecated" in r.getMessage() for r in caplog.records)

    _shared_file(
        Path(os.environ["HOME"]), json.dumps({"DocStore": {"skills_local_dir": str(tmp_path / "old")}})
    )
    with caplog.at_level(logging.WARNING):
        assert _store().resolve().local_dir == tmp_path / "old"
    assert deprecations() == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert _store(skills_local_dir=str(tmp_path / "mine")).resolve().local_dir == tmp_path / "mine"
    assert deprecations() == 1


def test_a_null_or_unknown_key_in_the_shared_file_leaves_every_setting_at_its_default(tmp_path):
    home = Path(os.environ["HOME"])
    _shared_file(
        home,
        json.dumps(
            {
                "DocStore": {
                    "docs_local_dir": None,
                    "shipped_version": None,
                    "history_max_bytes": None,
                    "colour": "red",
                }
            }
        ),
    )
    resolved = resolve({}, "the command line")
    assert resolved.local_dir == home / ".config" / "biopb" / "docs"
    assert resolved.shipped_version == __version__
    assert resolved.history.max_bytes == 2 * 1024 * 1024
    assert {s.name: s.source for s in resolved.view.settings} == {
        "docs_local_dir": "default",
        "shipped_dir": "default",
        "shipped_version": "default",
        "history_max_versions": "default",
        "history_max_bytes": "default",
    }


def test_a_resolution_shared_by_a_processs_callers_cannot_be_changed_by_one_of_them(tmp_path):
    resolved = _store(docs_local_dir=str(tmp_path / "lab")).resolve()
    with pytest.raises(dataclasses.FrozenInstanceError):
        resolved.local_dir = tmp_path / "elsewhere"
    assert resolved.local_dir == tmp_path / "lab"


def _default_shipped_dir_of_a_copy(package_parent: Path) -> Path:
    """``default_shipped_dir()`` as a copy of the package placed under ``package_parent`` finds it."""
    shutil.copytree(
        Path(biopb_kernel_docs.__file__).parent,
        package_parent / "biopb_kernel_docs",
        ignore=shutil.ignore_patterns("__pycache__", "labextension", "seed"),
        dirs_exist_ok=True,
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from biopb_kernel_docs.surfaces.settings import default_shipped_dir as d; print(d())",
        ],
        capture_output=True,
        text=True,
        cwd=package_parent,
        env={**os.environ, "PYTHONPATH": str(package_parent)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


def test_the_shipped_tier_is_the_seed_inside_the_package_else_the_source_checkouts(tmp_path):
    tmp_path = tmp_path.resolve()  # the package finds itself through resolved paths
    # installed from the wheel (the seed is carried inside the package)
    installed = tmp_path / "site-packages"
    (installed / "biopb_kernel_docs" / "seed").mkdir(parents=True)
    assert _default_shipped_dir_of_a_copy(installed) == installed / "biopb_kernel_docs" / "seed"

    # installed (pip install --target) into a project that has a pyproject.toml and a seed/ of its own
    project = tmp_path / "project"
    (project / "biopb_kernel_docs" / "seed").mkdir(parents=True)
    (project / "seed").mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'analysis'\n")
    assert _default_shipped_dir_of_a_copy(project) == project / "biopb_kernel_docs" / "seed"

    # a source checkout: the package holds no seed, the checkout's seed/ is the shipped tier
    checkout = tmp_path / "checkout"
    (checkout / "seed").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("[project]\nname = 'biopb-kernel-docs'\n")
    assert _default_shipped_dir_of_a_copy(checkout) == checkout / "seed"
