"""The edit a create's result ends with, filing the new doc under a heading of the index's own
(issue 22, item 4; core/filing.py), checked by making it exactly as printed."""

from __future__ import annotations

import ast
import shutil
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from biopb_kernel_docs.core.filing import filing_move
from biopb_kernel_docs.core.index import file_entry, parse_index
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.text.render import text

ROOT = Path(__file__).resolve().parents[1]


def agent_call(printed: str) -> dict:
    """The keyword arguments of the write_doc call a result ends with, read as Python reads them."""
    call = ast.parse(printed.rstrip("\n").split("\n")[-1], mode="eval").body
    assert isinstance(call, ast.Call)
    assert call.func.id == "write_doc"
    assert [ast.literal_eval(a) for a in call.args] == ["index"]
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords}


def test_a_create_ends_with_the_edit_that_files_it_under_the_biggest_section(tiers, docs):
    docs.index()
    created = docs.write_doc("lab/cells", body="---\ndescription: mean GFP per cell\n---\n# Cells\n")
    assert created.move is not None
    assert created.move.heading == "## Procedures"
    assert created.move.removes_unfiled
    assert created.move.old == (
        "- stitch-tiles: assemble a grid of tiles\n\n## Unfiled\n- lab/cells: mean GFP per cell"
    )
    assert created.move.new == "- stitch-tiles: assemble a grid of tiles\n- lab/cells: mean GFP per cell"
    printed = text(created)
    assert printed.endswith(
        'make this edit, which also removes the ## Unfiled it leaves empty:\nwrite_doc("index", '
        'old="- stitch-tiles: assemble a grid of tiles\\n\\n## Unfiled\\n- lab/cells: mean GFP per cell", '
        'new="- stitch-tiles: assemble a grid of tiles\\n- lab/cells: mean GFP per cell")'
    )
    assert "## Unfiled" in tiers.local_text("index")  # §2: the store itself moved nothing

    moved = docs.write_doc("index", **agent_call(printed))
    assert moved.outcome == "updated"
    assert tiers.local_text("index") == (
        "# Test docs\n\n## References\n- data: how arrays are laid out\n\n## Procedures\n"
        "- flatfield: correct uneven illumination\n- stitch-tiles: assemble a grid of tiles\n"
        "- lab/cells: mean GFP per cell\n\nignored: old-method\n"
    )


def test_a_second_unfiled_entry_moves_alone_and_unfiled_stays(tiers, docs):
    docs.index()
    docs.write_doc("lab/a", body="# A\n\nFirst.\n")
    second = docs.write_doc("lab/b", body="# B\n\nSecond.\n")
    assert second.move is not None
    assert not second.move.removes_unfiled
    assert "which also removes" not in text(second)
    docs.write_doc("index", **agent_call(text(second)))
    index = tiers.local_text("index")
    assert "- stitch-tiles: assemble a grid of tiles\n- lab/b: Second.\n" in index
    assert "## Unfiled\n- lab/a: First.\n" in index


def test_the_heading_with_most_entries_wins_and_a_tie_goes_to_the_later_one(tiers, docs):
    tiers.put_local("index", "# D\n\n## Refs\n- a: a\n- b: b\n- c: c\n\n## Procs\n- d: d\n")
    assert docs.write_doc("lab/x", body="# X\n\nx.\n").move.heading == "## Refs"
    tiers.put_local("index", "# D\n\n## Refs\n- a: a\n\n## Procs\n- d: d\n")
    assert docs.write_doc("lab/y", body="# Y\n\ny.\n").move.heading == "## Procs"


def test_no_edit_is_proposed_without_a_heading_that_holds_entries(tiers, docs):
    tiers.put_local("index", "# Docs\n\nNothing filed yet.\n")
    created = docs.write_doc("lab/x", body="# X\n\nx.\n")
    assert created.filed_under == "## Unfiled"
    assert created.move is None
    assert text(created).endswith("+- lab/x: x.")  # the diff ends the result


def test_no_edit_is_proposed_for_a_doc_the_index_already_lists(tiers, docs):
    tiers.seed()
    tiers.put_local("index", tiers.local_text("index") + "- lab/planned: to write\n")
    assert docs.write_doc("lab/planned", body="# P\n\np.\n").move is None


def test_no_edit_is_proposed_for_a_doc_the_index_does_not_list():
    assert filing_move("# D\n\n## Procs\n- x: one\n", "lab/absent") is None


def test_the_shipped_seed_index_files_a_new_procedure_under_procedures(tmp_path):
    shipped = tmp_path / "shipped"
    shutil.copytree(ROOT / "seed", shipped)
    docs = Docs(Store(shipped, tmp_path / "local", "1.0"))
    docs.index()
    created = docs.write_doc("lab/per-cell", body="---\ndescription: mean intensity per cell\n---\n# P\n")
    assert created.move.heading == "## Procedures"
    docs.write_doc("index", **agent_call(text(created)))
    index = (tmp_path / "local" / "index.md").read_text()
    seeded = parse_index((shipped / "index.md").read_text())
    last = [e for e in seeded.entries if e.heading == "## Procedures"][-1]
    last_line = seeded.lines[last.line_number]
    assert f"{last_line}\n- lab/per-cell: mean intensity per cell\n\nignored:" in index
    assert "## Unfiled" not in index


def test_an_unfiled_heading_on_the_first_line_is_quoted_from_there():
    # The texts part at their first line, which the quote then has to start with.
    filed = file_entry(parse_index("## Unfiled\n\n## Procs\n- x: one\n- y: two\n"), "lab/new", "the new doc")
    assert filed == "## Unfiled\n- lab/new: the new doc\n\n## Procs\n- x: one\n- y: two\n"
    move = filing_move(filed, "lab/new")
    assert move is not None
    assert (move.heading, move.removes_unfiled) == ("## Procs", True)
    assert move.old == "## Unfiled\n- lab/new: the new doc\n\n## Procs\n- x: one\n- y: two"
    assert move.new == "## Procs\n- x: one\n- y: two\n- lab/new: the new doc"


def test_the_quote_starts_on_a_line_not_blank_on_both_sides():
    # An ## Unfiled above the heading the entry moves to: where the texts part, the old text has
    # the entry and the new one a blank line, so the quote starts a line earlier, in both.
    filed = file_entry(
        parse_index("# Docs\n\n## Unfiled\n- lab/a: first\n\n## Procs\n- x: one\n"), "lab/new", "new"
    )
    assert filed == "# Docs\n\n## Unfiled\n- lab/a: first\n- lab/new: new\n\n## Procs\n- x: one\n"
    move = filing_move(filed, "lab/new")
    assert move is not None
    assert (move.heading, move.removes_unfiled) == ("## Procs", False)
    assert move.old == "- lab/a: first\n- lab/new: new\n\n## Procs\n- x: one"
    assert move.new == "- lab/a: first\n\n## Procs\n- x: one\n- lab/new: new"


def test_a_line_of_spaces_closing_the_target_section_stays_below_the_entry():
    # A line of spaces ends the section the entry lands in, and an empty heading and an ignored:
    # line close the file: the quote spans from that section's last entry to the next heading.
    index = "# Index\n\n## Sub\n- b: y\n  \n## Unfiled\n\n## Procs\nignored: gone\n"
    filed = file_entry(parse_index(index), "lab/new", "new")
    assert filed == "# Index\n\n## Sub\n- b: y\n  \n## Unfiled\n- lab/new: new\n\n## Procs\nignored: gone\n"
    move = filing_move(filed, "lab/new")
    assert move is not None
    assert (move.heading, move.removes_unfiled) == ("## Sub", True)
    assert move.old == "- b: y\n  \n## Unfiled\n- lab/new: new\n\n## Procs"
    assert move.new == "- b: y\n- lab/new: new\n  \n## Procs"


def test_a_quote_that_occurs_twice_grows_upward_until_it_occurs_once():
    # An index that lists the new doc twice, each time after an ignored: line and before an
    # ## Unfiled: the shortest quote occurs twice, and takes in the line above it, not below.
    index = "## Procs\nignored: z\n- lab/new: new\n## Unfiled\nignored: z\n- lab/new: new\n## Unfiled\n"
    move = filing_move(index, "lab/new")
    assert move is not None
    assert (move.heading, move.removes_unfiled) == ("## Procs", True)
    assert move.old == "## Procs\nignored: z\n- lab/new: new\n## Unfiled"
    assert move.new == "## Procs\nignored: z\n- lab/new: new"
    assert index.count(move.old) == 1


def test_a_quote_that_reaches_the_first_line_and_still_occurs_twice_grows_downward_until_it_occurs_once():
    # The index quotes its own top in a code block: grown upward to line 1, the quote still occurs
    # twice, so it takes in the lines below it instead, until it occurs once.
    index = (
        "## Procs\n- x: one\n\n## Unfiled\n- lab/new: new\n\nThe layout, for example:\n"
        "```\n## Procs\n- x: one\n\n## Unfiled\n- lab/new: new\n```\n"
    )
    move = filing_move(index, "lab/new")
    assert move is not None
    assert (move.heading, move.removes_unfiled) == ("## Procs", False)
    assert move.old == "## Procs\n- x: one\n\n## Unfiled\n- lab/new: new\n\nThe layout, for example:"
    assert move.new == "## Procs\n- x: one\n- lab/new: new\n\n## Unfiled\n\nThe layout, for example:"
    assert index.count(move.old) == 1


# -- any index shape: the proposed edit lands and moves exactly the one line -----------------------

sections = st.lists(
    st.tuples(
        st.sampled_from(["## Refs", "## Procs", "### Sub", "# Top", "## Unfiled"]),
        st.lists(st.sampled_from(["- a: x", "- b: y", "prose line", "", "  ", "- c: z"]), max_size=4),
        st.booleans(),
    ),
    max_size=5,
)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(sections, st.booleans())
def test_the_proposed_edit_lands_on_any_index_and_moves_only_the_new_line(layout, ignored):
    lines = ["# Index", ""]
    for heading, body, blank_after in layout:
        lines += [heading, *body, *([""] if blank_after else [])]
    if ignored:
        lines.append("ignored: gone")
    before = parse_index("\n".join(lines) + "\n")
    filed = file_entry(before, "lab/new", "the new doc")
    move = filing_move(filed, "lab/new")
    counts = Counter(e.heading for e in before.entries if e.heading and e.heading != "## Unfiled")
    if not counts:
        assert move is None
        return
    assert move is not None
    # The busiest heading, a tie going to the later one (a repeated heading where its first entry is).
    ordered = dict.fromkeys(e.heading for e in before.entries)
    assert move.heading == [h for h in ordered if counts[h] == max(counts.values())][-1]
    assert filed.count(move.old) == 1
    after = filed.replace(move.old, move.new, 1)
    parsed = parse_index(after)
    (entry,) = [e for e in parsed.entries if e.doc_id == "lab/new"]
    assert entry.heading == move.heading
    new_line = "- lab/new: the new doc"
    dropped = {new_line, "## Unfiled", ""} if move.removes_unfiled else {new_line}
    kept_after = [line for line in after.split("\n") if line.strip() not in dropped]
    assert kept_after == [line for line in filed.split("\n") if line.strip() not in dropped]
    if move.removes_unfiled:  # exactly one ## Unfiled heading went, the one it was under
        assert after.count("## Unfiled") == filed.count("## Unfiled") - 1
    else:
        assert after.count("## Unfiled") == filed.count("## Unfiled")
    # The quote reaches from the entry's old place to the line it lands under, and vice versa.
    assert new_line in move.old.split("\n")
    landed = after.split("\n")
    under = landed[landed.index(new_line) - 1]
    assert f"{under}\n{new_line}" in move.new
    assert after.split("\n").count("- lab/new: the new doc") == 1
    for quoted in (move.old, move.new):  # a notebook cell keeps it whole
        assert quoted.split("\n")[0].strip()
        assert quoted.split("\n")[-1].strip()
