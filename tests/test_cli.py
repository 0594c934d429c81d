"""The command line, run as a real subprocess, and (where no subprocess is needed) as main(argv)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


def _run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "biopb_kernel_docs", *args],
        input=stdin,
        capture_output=True,
        text=isinstance(stdin, str | None),
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
        "ignore",
        "segment-nuclei",
        f"--DocStore.shipped_dir={tiers.shipped}",
        f"--DocStore.docs_local_dir={tiers.local}",
        "--DocStore.shipped_version=2.0",
        "--DocStore.history_max_versions=7",
    )
    assert done.returncode == 0, done.stderr
    assert (tiers.local / "index.md").is_file()
    assert '"version": "2.0"' in (tiers.local / ".shipped-manifest.json").read_text()
    assert (
        "at most 7 versions"
        in _run("read", "index@history", *_tier_args(tiers), "--DocStore.history_max_versions=7").stdout
    )


def test_refusal_prints_the_store_message_on_stderr_and_exits_1(tiers):
    done = _run("read", "flatfeld", *_tier_args(tiers))
    assert done.returncode == 1
    assert done.stdout == ""
    assert (
        done.stderr.strip()
        == "No doc 'flatfeld'. Did you mean 'flatfield'? biopb-kernel-docs index lists them all."
    )


def test_usage_mistakes_exit_2_with_usage(tiers):
    missing_id = _run("read", *_tier_args(tiers))
    assert missing_id.returncode == 2
    assert "usage: biopb-kernel-docs read" in missing_id.stderr
    no_subcommand = _run()
    assert no_subcommand.returncode == 2
    two_stdin = _run("write", "x", "--old-file", "-", "--new-file", "-", *_tier_args(tiers))
    assert two_stdin.returncode == 2


def test_two_text_options_reading_stdin_are_refused_and_nothing_is_written(tiers):
    done = _run(
        "write", "flatfield", "--old-file", "-", "--new-file", "-", *_tier_args(tiers), stdin="Step one."
    )
    assert done.returncode == 2
    assert "Only one of the --*-file options can be '-' (stdin)." in done.stderr
    assert not (tiers.local / "flatfield.md").exists()  # no local copy with "Step one." cut out


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


def test_an_argument_mistake_exits_2_in_the_command_lines_own_words(tiers):
    done = _run("write", "mine", *_tier_args(tiers))
    assert done.returncode == 2
    assert "pass --body-file to create or replace the doc, or --old-file and --new-file" in done.stderr
    assert "body=" not in done.stderr


def test_if_match_refuses_a_write_based_on_stale_text_and_changes_nothing(tiers):
    tiers.put_local("mine", "# Mine\n\nfirst\n")
    sha = _run("read", "mine", "--sha", *_tier_args(tiers)).stdout.strip()
    assert len(sha) == 64
    tiers.put_local("mine", "# Mine\n\nsomeone else's edit\n")
    done = _run("write", "mine", "--body-file", "-", "--if-match", sha, *_tier_args(tiers), stdin="# Mine\n")
    assert done.returncode == 1
    assert "has changed since the text this write was based on (--if-match" in done.stderr
    assert "biopb-kernel-docs read mine shows the current text" in done.stderr
    assert tiers.local_text("mine") == "# Mine\n\nsomeone else's edit\n"
    fresh = _run("read", "mine", "--sha", *_tier_args(tiers)).stdout.strip()
    done = _run(
        "write", "mine", "--body-file", "-", "--if-match", fresh, *_tier_args(tiers), stdin="# Mine\n"
    )
    assert done.returncode == 0, done.stderr
    assert tiers.local_text("mine") == "# Mine\n"


def test_json_output_is_the_value_itself(tiers):
    done = _run("read", "flatfield", "--json", *_tier_args(tiers))
    value = json.loads(done.stdout)
    assert (value["type"], value["id"], value["tier"], value["shadows_shipped"]) == (
        "DocView",
        "flatfield",
        "shipped",
        False,
    )
    assert value["frontmatter"] == [["description", "fix shading"], ["updated", "2026-01-02"]]


def test_config_reports_the_directories_and_where_each_came_from(tiers):
    done = _run("config", *_tier_args(tiers))
    assert done.returncode == 0, done.stderr
    settings = {line.split()[0]: line.split(None, 1)[1] for line in done.stdout.splitlines()[1:-1]}
    assert settings["docs_local_dir"] == f"{tiers.local}    (the command line)"
    assert settings["shipped_version"] == "0.1.0    (default)"
    assert settings["history_max_versions"] == "100    (default)"
    assert settings["history_max_bytes"] == "2097152    (default)"
    assert "biopb_kernel_docs_config.json" in done.stdout


def test_file_and_ignore_verbs_clear_the_new_docs_tail(tiers):
    _run("index", *_tier_args(tiers))
    assert _run("file", "segment-nuclei", "## Procedures", *_tier_args(tiers)).returncode == 0
    index = tiers.local_text("index")
    assert "- stitch-tiles: assemble a grid of tiles\n- segment-nuclei: find the nuclei\n" in index
    done = _run("ignore", "segment-nuclei", *_tier_args(tiers))
    assert done.returncode == 1
    assert "has an entry in the index" in done.stderr


def test_version_and_every_verbs_help_with_an_example():
    version = _run("--version")
    assert version.returncode == 0
    assert version.stdout.strip() == "biopb-kernel-docs 0.1.0"
    for verb in (
        "read",
        "write",
        "index",
        "file",
        "ignore",
        "config",
        "mcp",
        "restore",
        "diff",
        "retire",
        "drop",
    ):
        done = _run(verb, "--help")
        assert done.returncode == 0, verb
        assert f"examples:\n  biopb-kernel-docs {verb}" in done.stdout, verb


def test_every_option_of_a_verbs_help_says_what_it_is():
    help_text = _run("write", "--help").stdout
    for option in (
        "--body-file FILE      The whole new text of the doc. ('-': stdin)",
        "--body TEXT           the same, given inline",
        "--new TEXT            the same, given inline",
        "--if-match SHA        The sha256 of the text this write is based on",
        "--docs-local-dir DIR  the local tier, your docs and index.md (default:",
        "--shipped-dir DIR     the shipped tier, read-only (default: the seed inside",
    ):
        assert option in help_text, option
    assert "--shipped-version VERSION" in help_text
    assert "the version the shipped tier is taken as" in " ".join(help_text.split())


def test_a_lone_surrogate_or_undecodable_stdin_is_a_clear_refusal_not_a_traceback(tiers):
    bad_id = subprocess.run(
        [sys.executable, "-m", "biopb_kernel_docs", "read", "caf\udcff", *_tier_args(tiers)],
        capture_output=True,
        timeout=60,
    )
    assert bad_id.returncode == 2
    assert b"Traceback" not in bad_id.stderr
    assert b"Invalid doc id" in bad_id.stderr
    undecodable = _run("write", "mine", "--body-file", "-", *_tier_args(tiers), stdin=b"# caf\xe9\n")
    assert undecodable.returncode == 2
    assert b"stdin is not valid UTF-8 (byte 0xe9 at offset 5)" in undecodable.stderr
    assert not (tiers.local / "mine.md").exists()


SECTIONED = "# Steps doc\n\n## Steps\n\n### Confirm input\nShow the shape; raise KeyError if not.\n"


def test_read_takes_a_section_an_outline_and_a_collection(tiers):
    tiers.ship("lab/steps", SECTIONED)
    section = _run("read", "lab/steps#Steps/Confirm input", *_tier_args(tiers))
    assert section.returncode == 0, section.stderr
    assert section.stdout.startswith("[lab/steps#Confirm input · shipped")
    assert section.stdout.endswith("### Confirm input\nShow the shape; raise KeyError if not.\n")
    outline = _run("read", "lab/steps#", *_tier_args(tiers))
    assert (
        "- Confirm input (2 lines, 5–6): biopb-kernel-docs read 'lab/steps#Confirm input'" in outline.stdout
    )
    listing = _run("read", "lab/", *_tier_args(tiers))
    assert "- lab/steps: Show the shape; raise KeyError if not." in listing.stdout
    unknown = _run("read", "lab/steps#Nope", *_tier_args(tiers))
    assert unknown.returncode == 1
    assert "biopb-kernel-docs read lab/steps# lists all 3 sections" in unknown.stderr


def test_search_prints_grep_shaped_lines_and_refuses_bad_patterns(tiers):
    tiers.ship("lab/steps", SECTIONED)
    (tiers.local / "index.md").parent.mkdir(parents=True, exist_ok=True)
    (tiers.local / "index.md").write_text("# Docs\n\n- lab/: the lab's docs\n", encoding="utf-8")
    done = _run("search", "keyerror", *_tier_args(tiers))
    assert done.returncode == 0, done.stderr
    assert (
        "lab/steps (§ Steps › Confirm input) — biopb-kernel-docs read 'lab/steps#Confirm input'"
        in done.stdout
    )
    assert "  L6: Show the shape; raise KeyError if not." in done.stdout
    as_json = json.loads(_run("search", "--regex", r"raise \w+", "--json", *_tier_args(tiers)).stdout)
    assert as_json["type"] == "SearchResult"
    assert as_json["groups"][0]["lines"][0]["line"] == 6
    bad = _run("search", "--regex", "(a", *_tier_args(tiers))
    assert bad.returncode == 2  # a usage mistake
    assert "not a pattern RE2 accepts" in bad.stderr


def test_a_budget_that_is_not_plain_digits_is_a_usage_mistake_not_a_crash(tiers):
    for flags in (["--host-budget", "claude-code=²"], ["--host-budget", "x=" + "9" * 5000]):
        done = _run("mcp", "--in-process", *flags, *_tier_args(tiers))
        assert done.returncode == 2, done.stderr
        assert "--host-budget takes NAME=CHARS" in done.stderr
        assert "Traceback" not in done.stderr
    for budget in ("-5", "١٠", "1e3"):
        done = _run("mcp", "--in-process", f"--instructions-budget={budget}", *_tier_args(tiers))
        assert done.returncode == 2, done.stderr
        assert "must be a whole number of characters from 0 to 999,999,999" in done.stderr


def test_a_write_naming_a_folder_ending_in_md_is_refused_with_the_id_to_use(tiers):
    done = _run("write", "flatfield.md/y", "--body-file", "-", *_tier_args(tiers), stdin="# Y\n")
    assert done.returncode == 2
    assert "use 'flatfield/y'" in done.stderr
    assert not (tiers.local / "flatfield.md").exists()


def _shared_config(tiers) -> None:
    """Point every surface at the test tiers through the shared config file, so commands the
    store prints run as printed, with no flags added."""
    import os
    from pathlib import Path

    config = Path(os.environ["JUPYTER_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    settings = {"DocStore": {"docs_local_dir": str(tiers.local), "shipped_dir": str(tiers.shipped)}}
    (config / "biopb_kernel_docs_config.json").write_text(json.dumps(settings))


def test_a_create_ends_with_the_shell_command_that_files_it_and_it_runs_as_printed(tiers):
    import os
    from pathlib import Path

    from biopb_kernel_docs.core.index import parse_index

    _shared_config(tiers)
    done = _run("write", "lab/new-one", "--body-file", "-", stdin="# New\n\nThe user's $HOME procedure.\n")
    assert done.returncode == 0, done.stderr
    command = done.stdout[done.stdout.index("biopb-kernel-docs write index --old=") :]
    assert command.rstrip("\n").endswith(
        """- lab/new-one: The user'"'"'s $HOME procedure.'"""
    )  # shell-quoted
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    moved = subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env, timeout=60)
    assert moved.returncode == 0, moved.stderr
    index = tiers.local_text("index")
    (entry,) = [e for e in parse_index(index).entries if e.doc_id == "lab/new-one"]
    assert entry.heading == "## Procedures"
    assert "## Unfiled" not in index


def test_old_text_copied_from_the_printed_index_lands_without_its_marker(tiers):
    tiers.put_local("data", "# My data notes\n")
    shown = _run("index", *_tier_args(tiers)).stdout
    (line,) = [line for line in shown.split("\n") if line.startswith("- data:")]
    assert line == "- data: how arrays are laid out (local copy)"
    done = _run("write", "index", f"--old={line}", "--new=- data: arrays and axes", *_tier_args(tiers))
    assert done.returncode == 0, done.stderr
    assert "its (local copy) marker is added by the loader and is not in index.md" in done.stdout
    assert "- data: arrays and axes\n" in tiers.local_text("index")
    absent = _run("write", "index", "--old=- data: gone (local copy)", "--new=x", *_tier_args(tiers))
    assert absent.returncode == 1
    assert "was not found in 'index'" in absent.stderr


def test_history_restore_diff_retire_and_drop_from_the_command_line(tiers, tmp_path):
    for word in ("one", "two"):
        assert (
            _run(
                "write", "notes", "--body-file", "-", *_tier_args(tiers), stdin=f"# Notes\n\n{word}\n"
            ).returncode
            == 0
        )
    history = _run("read", "notes@history", *_tier_args(tiers))
    assert history.returncode == 0, history.stderr
    assert " · cli · +1 \u22121 lines · current" in history.stdout
    assert "biopb-kernel-docs restore notes 1 writes its text back" in history.stdout
    assert _run("read", "notes@v1", *_tier_args(tiers)).stdout.endswith("\n\n# Notes\n\none\n")
    diff = _run("diff", "notes", "1", *_tier_args(tiers))
    assert "-one\n+two" in diff.stdout
    restored = _run("restore", "notes", "v1", *_tier_args(tiers))
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.startswith("Restored 'notes' to the text of v1")
    assert tiers.local_text("notes") == "# Notes\n\none\n"
    assert _run("retire", "notes", *_tier_args(tiers)).returncode == 0
    assert "- notes:" not in tiers.local_text("index")
    (tmp_path / "old.txt").write_text("Step one.")
    (tmp_path / "new.txt").write_text("Step 1.")
    edit = ["--old-file", str(tmp_path / "old.txt"), "--new-file", str(tmp_path / "new.txt")]
    assert _run("write", "flatfield", *edit, *_tier_args(tiers)).returncode == 0
    refused = _run("drop", "flatfield", *_tier_args(tiers))
    assert refused.returncode == 1
    assert "differs from the shipped text" in refused.stderr
    assert "biopb-kernel-docs read flatfield@diff shows them" in refused.stderr
    assert _run("restore", "flatfield", "1", *_tier_args(tiers)).returncode == 0  # v1: the shipped text
    dropped = _run("drop", "flatfield", *_tier_args(tiers))
    assert dropped.returncode == 0, dropped.stderr
    assert not (tiers.local / "flatfield.md").exists()


def test_a_symlink_out_of_the_tier_is_a_refusal_with_its_own_message_not_a_usage_error(tiers, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n")
    tiers.local.mkdir(parents=True, exist_ok=True)
    (tiers.local / "leak.md").symlink_to(outside / "secret.md")
    for verb in (["read", "leak"], ["write", "leak", "--body-file", "-"]):
        done = _run(*verb, *_tier_args(tiers), stdin="# Mine\n")
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith("Doc id 'leak' leads through a symlink to ")
        assert "cannot be used until that link is removed or points inside" in done.stderr
        assert "usage:" not in done.stderr
        assert "An id is one or more names" not in done.stderr  # the id itself is fine
    assert (outside / "secret.md").read_text() == "# Secret\n"


def test_read_only_verbs_create_nothing(tiers):
    home = Path(os.environ["HOME"])
    before = sorted(home.rglob("*"))
    for verb in (
        ["index"],
        ["read", "flatfield"],
        ["read", "index"],
        ["read", "flatfield@history"],
        ["read", "flatfield#"],
        ["search", "step"],
        ["config"],
    ):
        done = _run(*verb, *_tier_args(tiers))
        assert done.returncode == 0, (verb, done.stderr)
        assert not tiers.local.exists(), f"{verb[0]} created the local docs directory"
    assert sorted(home.rglob("*")) == before


def test_skills_export_check_and_import_from_the_command_line(tiers, tmp_path):
    out = tmp_path / "skills"
    check = _run("skills", "export", str(out), "--check", *_tier_args(tiers))
    assert check.returncode == 1, check.stderr  # --check found something to change
    assert check.stdout.startswith("Nothing was written (--check). Exporting the docs the index lists")
    assert not out.exists()
    done = _run("skills", "export", str(out), *_tier_args(tiers))
    assert done.returncode == 0, done.stderr
    assert f"to {out}: 2 created.\n  created flatfield\n  created stitch-tiles\n" in done.stdout
    assert "--all exports them too" not in done.stdout  # no link leaves the procedures here
    assert _run("skills", "export", str(out), "--check", *_tier_args(tiers)).returncode == 0
    shipped_flatfield = (tiers.shipped / "flatfield.md").read_text()
    tiers.put_local("flatfield", shipped_flatfield + "\nOne more step.\n")
    updated = _run("skills", "export", str(out), "--check", *_tier_args(tiers))
    assert updated.returncode == 1, updated.stdout  # an export that would update a skill is a change too
    assert "would update 1, leave 1 unchanged" in updated.stdout
    (tiers.local / "flatfield.md").unlink()
    other = ["--shipped-dir", str(tiers.shipped), "--docs-local-dir", str(tmp_path / "other")]
    imported = _run("skills", "import", str(out), "--prefix", "lab/", "--heading", "## Lab", *other)
    assert imported.returncode == 0, imported.stderr
    assert "  created lab/flatfield from flatfield/\n" in imported.stdout
    history = _run("read", "lab/flatfield@history", *other)
    assert history.returncode == 0, history.stderr
    assert re.search(r"^v1 · [^·]+ · cli · \+7 ", history.stdout, re.M), history.stdout  # by this verb
    again = _run("skills", "import", str(out), "--prefix", "lab/", *other)
    assert "Import with --replace to replace it" in again.stdout
    as_json = json.loads(
        _run("skills", "import", str(out), "--prefix=lab/", "--json", "--replace", *other).stdout
    )
    assert as_json["type"] == "SkillImport"
    assert [s["outcome"] for s in as_json["imported"]] == ["unchanged", "unchanged"]


def test_skills_without_a_verb_says_which_verbs_there_are(tiers):
    done = _run("skills")
    assert done.returncode == 2
    assert "Give a verb: biopb-kernel-docs skills export or skills import" in done.stderr
    missing = _run("skills", "import", "/no/such/dir", *_tier_args(tiers))
    assert missing.returncode == 2  # the caller's mistake, said on stderr
    assert "No directory /no/such/dir" in missing.stderr


def test_doctor_runs_its_checks_with_the_given_options_and_prints_a_line_for_each(tiers):
    # Whether each check passes on this install is test_doctor's concern; here: the verb reaches them.
    done = _run("doctor", "--no-kernel", *_tier_args(tiers))
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    names = [line[5:].partition(":")[0] for line in lines[:-1]]  # --no-kernel: no kernel check
    assert names == ["kernel config", "server extension", "jupyterlab", "panel", "local docs", "shipped seed"]
    assert f"ok   local docs: {tiers.local} will be created at the first write" in done.stdout


@pytest.fixture
def cli(capsys, monkeypatch):
    """``main(argv)`` in this process (no interpreter start): its exit code, stdout and stderr."""
    from biopb_kernel_docs.surfaces.cli import main

    def run(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        try:
            main(list(argv))
            code = 0
        except SystemExit as exit_:
            code = exit_.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, out, err)

    return run


def test_no_verb_prints_the_usage_line_then_what_to_give(cli):
    done = cli()
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "usage: biopb-kernel-docs [-h] [--version] VERB ...\n"
        "Give a verb, e.g. `biopb-kernel-docs index`; `--help` lists them.\n"
    )


def test_an_unknown_traitlets_form_trait_is_refused_naming_the_traits_there_are(cli, tiers):
    done = cli("index", "--DocStore.docs_dir=/tmp/x", "--DocStore.zz=1", *_tier_args(tiers))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.endswith(
        "\nDocStore has no trait 'docs_dir'; it has docs_local_dir, shipped_dir, shipped_version, "
        "history_max_versions, history_max_bytes.\n"
    )
    assert done.stderr.startswith("usage: biopb-kernel-docs [-h]")
    assert not tiers.local.exists()


def test_the_deprecated_skills_local_dir_still_works_and_warns_on_stderr(cli, tiers):
    done = cli(
        "write",
        "mine",
        "--body",
        "# Mine\n",
        f"--DocStore.skills_local_dir={tiers.local}",
        "--shipped-dir",
        str(tiers.shipped),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "DocStore.skills_local_dir is deprecated and will be removed in the next release; use "
        "DocStore.docs_local_dir (it wins when both are set).\n"
    )
    assert tiers.local_text("mine") == "# Mine\n"


def test_reading_index_prints_its_header_where_the_index_verb_prints_the_file(cli, tiers):
    read = cli("read", "index", *_tier_args(tiers))
    assert read.returncode == 0, read.stderr
    assert read.stdout.startswith("[index · local · updated ")
    assert "\n\n# Test docs\n" in read.stdout
    index = cli("index", *_tier_args(tiers))
    assert index.stdout.startswith("# Test docs\n")


def test_json_output_is_indented_one_space_and_keeps_non_ascii_text(cli, tiers):
    tiers.put_local("cafe", "# Café — 2 µm\n")
    done = cli("read", "cafe", "--json", *_tier_args(tiers))
    assert done.returncode == 0, done.stderr
    value = json.loads(done.stdout)
    assert value["text"] == "# Café — 2 µm\n"
    assert done.stdout == json.dumps(value, indent=1, ensure_ascii=False) + "\n"
    assert '\n "text": "# Café — 2 µm\\n",\n' in done.stdout


def test_mcp_takes_each_option_as_given():
    from biopb_kernel_docs.surfaces.cli import build_parser

    namespace = build_parser().parse_args(
        [
            "mcp",
            "--kernel-name",
            "ir",
            "--instructions-budget",
            "0",
            "--host-budget",
            "my-host=7",
            "--timeout",
            "2.5",
            "--poll-interval",
            "3600",
            "--in-process",
            "--inline-docs",
            "flatfield, data",
            "--ignored-as-count",
        ]
    )
    assert (namespace.kernel_name, namespace.instructions_budget, namespace.host_budget) == (
        "ir",
        0,
        ["my-host=7"],
    )
    assert (namespace.timeout, namespace.poll_interval) == (2.5, 3600.0)
    assert (namespace.in_process, namespace.inline_docs, namespace.ignored_as_count) == (
        True,
        "flatfield, data",
        True,
    )
    assert build_parser().parse_args(["mcp", "--instructions-budget", "999999999"]).instructions_budget == (
        999_999_999
    )


def test_host_budgets_add_to_the_built_in_ones_and_may_be_one_digit():
    from biopb_kernel_docs.surfaces.cli import _host_budgets

    assert _host_budgets(["my-host=7", "claude-code=4096", "other=0"]) == {
        "claude-code": 4096,
        "my-host": 7,
        "other": 0,
    }
    assert _host_budgets([]) == {"claude-code": 2048}


def test_bench_hands_the_rest_of_the_command_line_to_the_bench(cli):
    from biopb_kernel_docs.bench.cli import BenchApp

    try:
        done = cli("bench")
    finally:
        BenchApp.clear_instance()
    assert done.returncode == 2
    assert done.stdout.startswith("Subcommands\n===========\n")
    assert "\nscore\n    Score a log of reads" in done.stdout
    assert done.stderr == "Give a subcommand, e.g. `biopb-kernel-docs bench setup --bench-docs=false DIR`.\n"


def test_bench_help_shows_its_verbs_and_examples(cli):
    done = cli("bench", "--help")
    assert done.returncode == 0, done.stderr
    assert "(its own verbs: setup, run, score, relay; each has --help)" in done.stdout
    assert "examples:\n  biopb-kernel-docs bench setup --bench-docs=false /tmp/ablated\n" in done.stdout
