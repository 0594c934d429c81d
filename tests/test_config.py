from __future__ import annotations

import logging
from pathlib import Path

from traitlets.config import Config

from biopb_kernel_docs import __version__
from biopb_kernel_docs.config import DocStore, default_shipped_dir


def _store(**traits) -> DocStore:
    config = Config()
    for name, value in traits.items():
        setattr(config.DocStore, name, value)
    return DocStore(config=config)


def test_default_local_dir_is_under_the_config_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert _store().local_dir == tmp_path / "cfg" / "biopb" / "docs"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _store().local_dir == tmp_path / ".config" / "biopb" / "docs"


def test_docs_local_dir_moves_the_local_tier_and_expands_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _store(docs_local_dir="~/lab-docs").local_dir == tmp_path / "lab-docs"


def test_skills_local_dir_is_read_as_an_alias_and_warns(tmp_path, caplog):
    with caplog.at_level(logging.WARNING):
        store = _store(skills_local_dir=str(tmp_path / "old"))
    assert store.local_dir == tmp_path / "old"
    assert "skills_local_dir is deprecated" in caplog.text
    assert "docs_local_dir" in caplog.text


def test_new_key_wins_when_both_are_set(tmp_path):
    store = _store(skills_local_dir=str(tmp_path / "old"), docs_local_dir=str(tmp_path / "new"))
    assert store.local_dir == tmp_path / "new"
    store = _store(docs_local_dir=str(tmp_path / "new"), skills_local_dir=str(tmp_path / "old"))
    assert store.local_dir == tmp_path / "new"


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
