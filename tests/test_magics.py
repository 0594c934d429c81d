"""The magics, in a real ipykernel started by jupyter_client (and in an in-process IPython shell where
no kernel is needed: help, usage, argument parsing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .kernels import Kernel, write_profile_config

REPLACE_CELL = (
    "%%write_doc flatfield --replace\n<<<<<<< old\nStep one.\n=======\nStep one, with a dark frame.\n"
)


@pytest.fixture(scope="module")
def module_tiers(tmp_path_factory):
    from .conftest import build_tiers

    return build_tiers(tmp_path_factory.mktemp("magic-tiers"))


@pytest.fixture(scope="module")
def kernel(module_tiers, tmp_path_factory):
    home = tmp_path_factory.mktemp("kernel-home")
    write_profile_config(
        home,
        f"c.DocStore.docs_local_dir = {str(module_tiers.local)!r}\n"
        f"c.DocStore.shipped_dir = {str(module_tiers.shipped)!r}\n",
    )
    started = Kernel(home)
    yield started
    started.shutdown()


def test_extension_loads_by_itself_in_the_environments_kernels(kernel):
    result = kernel.run("print('read_doc' in get_ipython().magics_manager.magics['line'])")
    assert result.stdout.strip() == "True"


def _headings(markdown: str) -> list[str]:
    """Markdown headings outside code: what a notebook's table of contents would pick up."""
    from biopb_kernel_docs.core.frontmatter import prose_lines

    return [line for _, line in prose_lines(markdown.split("\n")) if line.lstrip().startswith("#")]


def test_read_doc_index_shows_sections_entries_and_tails_without_agent_prose(kernel, module_tiers):
    module_tiers.put_local("data", "# My data notes\n")  # a shadow: marked (local copy)
    result = kernel.run("%read_doc index")
    assert result.error is None
    (markdown,) = result.data("text/markdown")
    (plain,) = result.data("text/plain")
    assert markdown.startswith("**Doc index**: 3 of 200 entries")
    assert "**References**\n\n- **data**: how arrays are laid out *(local copy)*" in markdown
    assert "- **segment-nuclei**: find the nuclei" in markdown
    assert "`%file_doc ID '## Heading'`" in markdown
    assert "[index ·" not in markdown  # the agent's header
    assert _headings(markdown) == []
    assert plain.startswith("[index · local")
    assert "%read_doc" in plain or "## New shipped docs" in plain


def test_read_doc_adds_no_headings_tucks_frontmatter_away_and_makes_links_readable(kernel, module_tiers):
    module_tiers.put_local(
        "lab/linked", "---\ndescription: a linked note\n---\n# Linked\n\n## Steps\nSee [[flatfield]] first.\n"
    )
    (markdown,) = kernel.run("%read_doc lab/linked").data("text/markdown")
    assert markdown.startswith("*lab/linked · local · updated")
    assert "<details><summary>frontmatter</summary>" in markdown
    assert "**Linked**" in markdown
    assert "**Steps**" in markdown
    assert "See **flatfield** first." in markdown
    assert markdown.endswith("Linked docs: `%read_doc flatfield`")
    assert _headings(markdown) == []


def test_write_doc_cell_creates_a_doc_and_shows_the_diff(kernel, module_tiers):
    result = kernel.run("%%write_doc lab/notes\n# Lab notes\n\nWhat worked on the confocal.\n")
    assert result.error is None
    (markdown,) = result.data("text/markdown")
    assert markdown.startswith("Created local doc 'lab/notes' and filed it under ## Unfiled")
    assert markdown.count("Created local doc") == 1
    assert "```diff\n--- /dev/null" in markdown
    assert module_tiers.local_text("lab/notes") == "# Lab notes\n\nWhat worked on the confocal.\n"


def test_write_doc_replace_form_shadows_a_shipped_doc_and_diff_view_shows_it(kernel, module_tiers):
    assert kernel.run(REPLACE_CELL).error is None
    assert "Step one, with a dark frame." in module_tiers.local_text("flatfield")
    (markdown,) = kernel.run("%read_doc flatfield@diff").data("text/markdown")
    assert "```diff" in markdown
    assert "+Step one, with a dark frame." in markdown


def test_a_version_holding_a_code_block_stays_inside_its_own_fence(kernel, module_tiers):
    cell = "%%write_doc lab/fenced\n# Fenced\n\n```python\nprint('hi')\n```\n\nAfter the block.\n"
    assert kernel.run(cell).error is None
    result = kernel.run("%read_doc lab/fenced@v1")
    assert result.error is None, result.error
    (markdown,) = result.data("text/markdown")
    body = markdown.split("\n\n", 1)[1]
    assert body == "````markdown\n# Fenced\n\n```python\nprint('hi')\n```\n\nAfter the block.\n````"


def test_sections_outlines_and_search_in_the_notebooks_words(kernel, module_tiers):
    module_tiers.ship("lab/steps", "# Steps doc\n\n## Steps\n\n### Confirm input\nShow it; raise KeyError.\n")
    module_tiers.ship("lab/other", "# Other\n\nNothing here.\n")
    section = kernel.run("%read_doc lab/steps#Steps/Confirm input")  # spaces, unquoted
    assert section.error is None, section.error
    (markdown,) = section.data("text/markdown")
    assert "§ 3 of 3: Steps doc › Steps › Confirm input" in markdown
    assert "**Confirm input**" in markdown  # headings as bold lines, as in a whole read
    (outline,) = kernel.run("%read_doc lab/steps#").data("text/markdown")
    assert "- Confirm input (2 lines) `%read_doc 'lab/steps#Confirm input'`" in outline
    (listing,) = kernel.run("%read_doc lab/").data("text/markdown")
    assert "- **lab/steps**: Show it; raise KeyError." in listing
    assert "Not in the index" in listing
    seeded = module_tiers.local_text("index")  # the module's later tests read the seeded index
    module_tiers.put_local("index", "# Docs\n\n- lab/: the lab's docs\n")
    try:
        found = kernel.run(r"%search_docs --regex raise \w+Error")  # the pattern verbatim, backslash kept
        assert found.error is None, found.error
        (plain,) = found.data("text/plain")
        assert "lab/steps (§ Steps › Confirm input) — %read_doc 'lab/steps#Confirm input'" in plain
        assert "  L6: Show it; raise KeyError." in plain
        refused = kernel.run("%search_docs")
        assert refused.error["ename"] == "UsageError"
        assert "is empty" in refused.error["evalue"]
    finally:
        module_tiers.put_local("index", seeded)
    missing = kernel.run("%read_doc lab/steps#Nope")
    assert "%read_doc lab/steps# lists all 3 sections" in missing.error["evalue"]


def test_a_search_query_loses_its_quotes_only_when_they_are_a_matching_pair(kernel):
    paired = kernel.run('%search_docs "uneven illumination"')
    assert paired.error is None, paired.error
    (plain,) = paired.data("text/plain")
    assert "for 'uneven illumination' (literal, case-insensitive)" in plain
    unpaired = kernel.run("%search_docs \"uneven illumination'")
    assert unpaired.error is None, unpaired.error
    (plain,) = unpaired.data("text/plain")
    assert plain.startswith("No line matches '\"uneven illumination\\'' (literal, case-insensitive)")
    emptied = kernel.run('%search_docs ""')  # a pair of quotes around nothing is an empty query
    assert emptied.error is not None, emptied.data("text/plain")
    assert emptied.error["ename"] == "UsageError", emptied.error
    assert emptied.error["evalue"].startswith("query is empty. Give the text to find")


def test_if_match_without_a_sha_is_a_usage_error_not_a_crash(kernel, module_tiers):
    for code in ("%%write_doc lab/guarded --if-match\n# Guarded\n", "%restore_doc flatfield 1 --if-match"):
        result = kernel.run(code)
        assert result.error["ename"] == "UsageError", result.error
        assert "--if-match needs the sha256 of the text the write is based on." in result.error["evalue"]
    assert not (module_tiers.local / "lab" / "guarded.md").exists()


def test_a_write_with_if_match_lands_when_the_sha_is_current_and_is_refused_when_stale(kernel, module_tiers):
    module_tiers.put_local("lab/guarded", "# Guarded\n")
    for place in ("after", "before"):
        current = module_tiers.docs().read_doc("lab/guarded").sha256
        guard = f"--if-match {current}"
        line = f"lab/guarded {guard}" if place == "after" else f"{guard} lab/guarded"
        text = f"# Guarded\n\n--if-match {place} the id.\n"
        result = kernel.run(f"%%write_doc {line}\n{text}")
        assert result.error is None, (place, result.error)
        assert module_tiers.local_text("lab/guarded") == text
    stale = kernel.run(f"%%write_doc lab/guarded --if-match {'0' * 64}\n# Lost\n")
    assert stale.error["ename"] == "UsageError", stale.error
    assert "Nothing was written" in stale.error["evalue"]
    assert module_tiers.local_text("lab/guarded") == "# Guarded\n\n--if-match before the id.\n"


def test_an_option_without_its_value_is_a_usage_error_not_a_crash(kernel):
    for code, option in (
        ("%diff_versions flatfield 1 --newer", "--newer"),
        ("%docs_skills import /tmp/skills --prefix", "--prefix"),
    ):
        result = kernel.run(code)
        assert result.error is not None, code
        assert result.error["ename"] == "UsageError", (code, result.error)
        assert result.error["evalue"].startswith(f"{option} needs a value: "), result.error["evalue"]


def test_refusal_is_a_usage_error_one_liner_with_the_store_message(kernel):
    result = kernel.run("%read_doc flatfeld")
    assert result.error["ename"] == "UsageError"
    assert (
        result.error["evalue"]
        == "No doc 'flatfeld'. Did you mean 'flatfield'? %read_doc index lists them all."
    )


def test_an_argument_mistake_is_phrased_for_the_notebook(kernel):
    result = kernel.run("%%write_doc flatfield --replace\n<<<<<<< old\n=======\nnew text\n")
    assert result.error["ename"] == "UsageError"
    assert result.error["evalue"].startswith("the old text (between '<<<<<<< old' and '=======') is empty.")


def test_a_body_cell_over_a_doc_changed_since_the_user_read_it_is_refused(kernel, module_tiers):
    module_tiers.put_local("lab/guarded", "# Guarded\n\nfirst\n")
    assert kernel.run("%read_doc lab/guarded").error is None
    module_tiers.put_local("lab/guarded", "# Guarded\n\nan edit made elsewhere\n")
    result = kernel.run("%%write_doc lab/guarded\n# Guarded\n\nfrom the stale reading\n")
    assert result.error["ename"] == "UsageError"
    assert "changed on disk since you last read it" in result.error["evalue"]
    assert "%read_doc lab/guarded shows the current text" in result.error["evalue"]
    assert module_tiers.local_text("lab/guarded") == "# Guarded\n\nan edit made elsewhere\n"


def test_the_history_names_this_kernel_and_restore_diff_drop_are_magics(kernel, module_tiers):
    for word in ("one", "two"):
        assert kernel.run(f"%%write_doc lab/history\n# History\n\n{word}\n").error is None
    kernel_id = Path(kernel.connection_file).name.removeprefix("kernel-").removesuffix(".json")
    result = kernel.run("%read_doc lab/history@history")
    (markdown,) = result.data("text/markdown")
    assert "- v2 · " in markdown
    assert f" · magic in kernel {kernel_id[:8]} · +1 \u22121 lines · current" in markdown
    assert "%restore_doc lab/history 1 writes its text back" in markdown
    (diff,) = kernel.run("%diff_versions lab/history 1 --newer 2").data("text/markdown")
    assert "-one\n+two" in diff
    assert kernel.run("%restore_doc lab/history v1").error is None
    assert module_tiers.local_text("lab/history") == "# History\n\none\n"
    shipped = (module_tiers.shipped / "stitch-tiles.md").read_text()
    assert kernel.run(f"%%write_doc stitch-tiles\n{shipped}A note.\n").error is None
    assert kernel.run(f"%%write_doc stitch-tiles\n{shipped}").error is None
    assert kernel.run("%drop_local_copy stitch-tiles").error is None
    assert not (module_tiers.local / "stitch-tiles.md").exists()


def test_docs_config_reports_the_kernels_tiers_and_their_source(kernel, module_tiers):
    result = kernel.run("%docs_config")
    assert result.error is None
    (markdown,) = result.data("text/markdown")
    assert f"| docs_local_dir | `{module_tiers.local}` | the kernel's configuration |" in markdown


def test_malformed_replace_cell_says_how_to_write_it(kernel):
    result = kernel.run("%%write_doc flatfield --replace\njust some text\n")
    assert result.error["ename"] == "UsageError"
    assert "<<<<<<< old" in result.error["evalue"]


def test_help_comes_from_the_operation_list(kernel):
    result = kernel.run("print(get_ipython().find_line_magic('read_doc').__doc__)")
    assert "'ID@diff' diffs a local copy" in result.stdout
    assert "%read_doc ID" in result.stdout
    result = kernel.run("print(get_ipython().find_cell_magic('write_doc').__doc__)")
    assert "--replace" in result.stdout


def test_help_on_a_magic_function_names_it_by_its_magic_name(kernel):
    # Not config: that is IPython's own, unrelated %config.
    result = kernel.run(
        "import pydoc\nprint(pydoc.render_doc(get_ipython().find_line_magic('docs_config')).splitlines()[0])"
    )
    assert result.stdout.strip() == (
        "Python Library Documentation: function docs_config in module biopb_kernel_docs.surfaces.magics"
    )
    result = kernel.run(
        "m = get_ipython().magics_manager.magics\n"
        "print(m['line']['read_doc'].__name__, m['line']['docs_skills'].__name__,"
        " m['cell']['write_doc'].__name__, m['line']['docs_connect'].__name__)"
    )
    assert result.stdout.split() == ["read_doc", "docs_skills", "write_doc", "docs_connect"]


def test_docs_connect_prints_the_command_for_this_kernel(kernel):
    result = kernel.run("%docs_connect")
    assert f"mcp --existing {kernel.connection_file}" in result.stdout
    assert '"mcpServers"' in result.stdout


def test_turned_off_autoload_leaves_load_ext_as_the_fallback(tmp_path, tiers):
    write_profile_config(
        tmp_path,
        "c.InteractiveShellApp.extra_extensions = []\n"
        f"c.DocStore.docs_local_dir = {str(tiers.local)!r}\n"
        f"c.DocStore.shipped_dir = {str(tiers.shipped)!r}\n",
    )
    kernel = Kernel(tmp_path)
    try:
        assert kernel.run("%read_doc index").error["ename"] == "UsageError"  # Line magic function not found
        assert kernel.run("%load_ext biopb_kernel_docs").error is None
        assert kernel.run("%read_doc index").error is None
    finally:
        kernel.shutdown()


def test_kernel_config_alias_key_is_honoured(tmp_path, tiers):
    write_profile_config(
        tmp_path,
        f"c.DocStore.skills_local_dir = {str(tiers.local)!r}\n"
        f"c.DocStore.shipped_dir = {str(tiers.shipped)!r}\n",
    )
    kernel = Kernel(tmp_path)
    try:
        assert kernel.run("%%write_doc via-alias\n# Via the old key\n").error is None
        assert tiers.local_text("via-alias") == "# Via the old key\n"
    finally:
        kernel.shutdown()


def test_replace_cell_tolerates_a_git_style_closing_line_as_ipython_leaves_it():
    from biopb_kernel_docs.surfaces.magics import split_replacement

    assert split_replacement("<<<<<<< old\na\n=======\nb\n>>>> new\n") == ("a", "b")
    assert split_replacement("<<<<<<< old\na\n\n=======\nb\nc") == ("a\n", "b\nc")


def test_a_created_docs_result_ends_with_the_cell_that_files_it_and_that_cell_runs(kernel, module_tiers):
    from biopb_kernel_docs.core.index import parse_index

    result = kernel.run("%%write_doc lab/filed-by-cell\n# Filed\n\nA procedure the user asked to keep.\n")
    assert result.error is None
    (plain,) = result.data("text/plain")
    (markdown,) = result.data("text/markdown")
    cell = plain[plain.index("%%write_doc index --replace\n<<<<<<< old\n") :]
    assert "\n- lab/filed-by-cell: A procedure the user asked to keep.\n=======\n" in cell
    assert markdown.endswith(f"```\n{cell}\n```")
    assert kernel.run(cell).error is None
    (entry,) = [
        e for e in parse_index(module_tiers.local_text("index")).entries if e.doc_id == "lab/filed-by-cell"
    ]
    assert entry.heading not in (None, "## Unfiled")


def test_a_replace_cell_copied_from_the_rendered_index_lands_without_the_marker(kernel, module_tiers):
    module_tiers.put_local("stitch-tiles", "# My stitching\n")  # a shadow: marked (local copy)
    (plain,) = kernel.run("%read_doc index").data("text/plain")
    (line,) = [line for line in plain.split("\n") if line.startswith("- stitch-tiles:")]
    assert line.endswith(" (local copy)")
    new = "- stitch-tiles: one canvas (local copy)"
    result = kernel.run(f"%%write_doc index --replace\n<<<<<<< old\n{line}\n=======\n{new}\n")
    assert result.error is None, result.error
    (markdown,) = result.data("text/markdown")
    assert "its (local copy) marker is added by the loader and is not in index.md" in markdown
    assert "- stitch-tiles: one canvas\n" in module_tiers.local_text("index")
    assert "(local copy)" not in module_tiers.local_text("index")
    missing = kernel.run(
        "%%write_doc index --replace\n<<<<<<< old\n- nowhere: at all (missing)\n=======\nx\n"
    )
    assert missing.error is not None
    assert "was not found in 'index'" in missing.error["evalue"]


def test_a_replace_cell_with_two_separator_lines_is_refused_and_says_why():
    from IPython.core.error import UsageError

    from biopb_kernel_docs.surfaces.magics import split_replacement

    with pytest.raises(UsageError, match="needs exactly one '=======' line between old and new; found 2"):
        split_replacement("<<<<<<< old\na\n=======\nb\n=======\nc\n")


def test_a_replace_cell_keeps_the_trailing_indentation_of_old_and_new():
    from biopb_kernel_docs.surfaces.magics import split_replacement

    cell = "<<<<<<< old\n    first()\n    \n=======\n    second()\n    \n"
    assert split_replacement(cell) == ("    first()\n    ", "    second()\n    ")


def test_docs_skills_exports_and_imports_in_the_notebooks_words(kernel, module_tiers, tmp_path):
    out = tmp_path / "skill dir"  # a space: the magic takes the rest of the line as the one path
    check = kernel.run(f"%docs_skills export {out} --all --check")
    assert check.error is None
    (markdown,) = check.data("text/markdown")
    assert markdown.startswith("**Nothing was written (--check). Exporting every listed doc to")
    assert not out.exists()
    assert kernel.run(f"%docs_skills export {out}").error is None
    assert (out / "flatfield" / "SKILL.md").is_file()
    result = kernel.run(f"%docs_skills import '{out}' --prefix nb/ --heading '## From skills'")
    assert result.error is None
    (markdown,) = result.data("text/markdown")
    assert "- created nb/flatfield from flatfield/" in markdown
    assert markdown.endswith("\n\nRead one with %read_doc nb/flatfield.")
    assert "## From skills\n- nb/flatfield: correct uneven illumination\n" in module_tiers.local_text("index")
    kernel_id = Path(kernel.connection_file).name.removeprefix("kernel-").removesuffix(".json")
    (history,) = kernel.run("%read_doc nb/flatfield@history").data("text/markdown")
    assert "- v1 · " in history
    assert f" · magic in kernel {kernel_id[:8]} · +" in history  # the import this magic ran
    (again,) = kernel.run(f"%docs_skills import '{out}' --prefix nb/").data("text/markdown")
    assert "Import with --replace to replace it" in again
    usage = kernel.run("%docs_skills publish x")
    assert usage.error["ename"] == "UsageError"
    assert usage.error["evalue"].startswith(
        "%docs_skills takes export or import first. Usage: %docs_skills export DIR"
    )
    help_text = kernel.run("print(get_ipython().find_line_magic('docs_skills').__doc__)").stdout
    assert "%docs_skills import DIR [--replace] [--prefix PREFIX] [--heading HEADING]" in help_text


@pytest.fixture
def shell(tiers):
    """A plain in-process IPython shell with the magics registered over ``tiers`` (no kernel)."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.magics import register

    config = Config()
    config.HistoryManager.enabled = False  # no history thread or sqlite file per test
    made = InteractiveShell(config=config)
    register(made, DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped)))
    return made


def test_each_magics_help_gives_its_usage_line(shell):
    usages = {}
    for kind, magics in shell.magics_manager.magics.items():
        for name, function in magics.items():
            if getattr(function, "__module__", "") == "biopb_kernel_docs.surfaces.magics":
                lines = (function.__doc__ or "").split("\n")
                usages[(kind, name)] = [line.strip() for line in lines if line.startswith("  %")]
    assert usages == {
        ("line", "read_doc"): ["%read_doc ID"],
        ("cell", "write_doc"): ["%%write_doc ID [--replace] [--if-match SHA]"],
        ("line", "search_docs"): ["%search_docs [--regex] QUERY"],
        ("line", "restore_doc"): ["%restore_doc ID VERSION [--if-match SHA]"],
        ("line", "diff_versions"): ["%diff_versions ID OLDER [--newer NEWER]"],
        ("line", "retire_doc"): ["%retire_doc ID [--if-match SHA]"],
        ("line", "drop_local_copy"): ["%drop_local_copy ID [--if-match SHA]"],
        ("line", "file_doc"): ["%file_doc ID HEADING [--if-match SHA]"],
        ("line", "ignore_doc"): ["%ignore_doc ID [--if-match SHA]"],
        ("line", "docs_skills"): [
            "%docs_skills export DIR [--all] [--check]",
            "%docs_skills import DIR [--replace] [--prefix PREFIX] [--heading HEADING]",
        ],
        ("line", "docs_config"): ["%docs_config"],
        ("line", "docs_connect"): [],
    }


def test_a_magic_missing_an_argument_answers_with_its_usage_and_an_example(shell):
    from IPython.core.error import UsageError

    for name, line, usage in (
        ("read_doc", "", "Usage: %read_doc ID (for example %read_doc flatfield)."),
        (
            "restore_doc",
            "flatfield",
            "Usage: %restore_doc ID VERSION [--if-match SHA] "
            "(for example %restore_doc flatfield VERSION [--if-match SHA]).",
        ),
        (
            "file_doc",
            "flatfield '## Procedures' extra",
            "Usage: %file_doc ID HEADING [--if-match SHA] "
            "(for example %file_doc flatfield HEADING [--if-match SHA]).",
        ),
    ):
        with pytest.raises(UsageError) as refused:
            shell.run_line_magic(name, line)
        assert str(refused.value) == usage


def test_a_search_for_an_option_like_word_finds_it_as_text(shell, tiers, capsys):
    tiers.ship("flatfield", "# Flatfield\n\nRun it with --dark-frame set.\n")
    shell.run_line_magic("search_docs", "--dark-frame")
    shown = capsys.readouterr().out  # a shell outside a kernel prints what it displays
    assert "1 matching line in 1 doc for '--dark-frame' (literal, case-insensitive)" in shown
    assert "flatfield — %read_doc flatfield" in shown
    assert "L3: Run it with --dark-frame set." in shown


def test_docs_connect_gives_the_same_server_command_as_a_claude_line_and_as_json():
    import shlex

    from biopb_kernel_docs.surfaces.magics import connect_instructions

    path = "/run/user/1000/jupyter/kernel-1 (copy).json"
    text = connect_instructions(path)
    claude_line = next(line.strip() for line in text.split("\n") if line.strip().startswith("claude mcp add"))
    argv = shlex.split(claude_line)
    assert argv[:5] == ["claude", "mcp", "add", "biopb-docs", "--"]
    assert argv[-3:] == ["mcp", "--existing", path]
    configuration = text[text.index("{") :]
    server = json.loads(configuration)["mcpServers"]["biopb-docs"]
    assert [server["command"], *server["args"]] == argv[5:]
    assert configuration == json.dumps({"mcpServers": {"biopb-docs": server}}, indent=2) + "\n"
