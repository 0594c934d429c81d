"""The command line, run as a real subprocess."""

from __future__ import annotations

import subprocess
import sys


def _run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "biopb_kernel_docs", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _tier_args(tiers):
    return ["--shipped-dir", str(tiers.shipped), "--docs-local-dir", str(tiers.local)]


def test_index_prints_the_rendered_index(tiers):
    done = _run("index", *_tier_args(tiers))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Test docs\n")
    assert "## New shipped docs" in done.stdout


def test_read_prints_the_doc_under_its_header(tiers):
    done = _run("read", "flatfield", *_tier_args(tiers))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[flatfield · shipped · updated 2026-01-02]\n\n---\n")


def test_write_body_from_stdin_prints_the_diff(tiers):
    done = _run("write", "mine", "--body-file", "-", *_tier_args(tiers), stdin="# Mine\n\nNotes.\n")
    assert done.returncode == 0, done.stderr
    assert "+++ b/mine.md (local)" in done.stdout
    assert (tiers.local / "mine.md").read_text() == "# Mine\n\nNotes.\n"


def test_write_old_new_from_files_then_read_the_diff_view(tiers, tmp_path):
    (tmp_path / "old.txt").write_text("Step one.")
    (tmp_path / "new.txt").write_text("Step one, done my way.")
    done = _run(
        "write",
        "flatfield",
        "--old-file",
        str(tmp_path / "old.txt"),
        "--new-file",
        str(tmp_path / "new.txt"),
        *_tier_args(tiers),
    )
    assert done.returncode == 0, done.stderr
    diff = _run("read", "flatfield@diff", *_tier_args(tiers))
    assert "+Step one, done my way." in diff.stdout


def test_traitlets_form_sets_the_same_traits(tiers):
    done = _run(
        "index",
        f"--DocStore.shipped_dir={tiers.shipped}",
        f"--DocStore.docs_local_dir={tiers.local}",
        "--DocStore.shipped_version=2.0",
    )
    assert done.returncode == 0, done.stderr
    assert (tiers.local / "index.md").is_file()
    assert '"version": "2.0"' in (tiers.local / ".shipped-manifest.json").read_text()


def test_refusal_prints_the_store_message_on_stderr_and_exits_1(tiers):
    done = _run("read", "flatfeld", *_tier_args(tiers))
    assert done.returncode == 1
    assert done.stdout == ""
    assert (
        done.stderr.strip()
        == "No doc 'flatfeld'. Did you mean 'flatfield'? read_doc('index') lists them all."
    )


def test_usage_mistakes_exit_2_with_usage(tiers):
    missing_id = _run("read", *_tier_args(tiers))
    assert missing_id.returncode == 2
    assert "Usage: biopb-kernel-docs read ID" in missing_id.stderr
    no_subcommand = _run()
    assert no_subcommand.returncode == 2
    two_stdin = _run("write", "x", "--old-file", "-", "--new-file", "-", *_tier_args(tiers))
    assert two_stdin.returncode == 2


def test_console_script_is_installed(tiers):
    done = subprocess.run(
        [
            str(__import__("pathlib").Path(sys.executable).with_name("biopb-kernel-docs")),
            "index",
            *_tier_args(tiers),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
