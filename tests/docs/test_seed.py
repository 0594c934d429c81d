"""§6 retrieval gates: the seed index and the shipped docs agree, links land, caps hold."""

from __future__ import annotations

import ast
import builtins
import re
import string
import symtable

import pytest

from biopb_kernel_docs.core.derived import Derived
from biopb_kernel_docs.core.edits import BODY_LINE_CAP, DOC_BYTE_CAP, INDEX_LINE_BYTE_CAP
from biopb_kernel_docs.core.errors import SectionNotFound
from biopb_kernel_docs.core.frontmatter import describe, parse_frontmatter
from biopb_kernel_docs.core.ids import is_banked, is_collection_id, is_valid_doc_id
from biopb_kernel_docs.core.index import ENTRY_CAP
from biopb_kernel_docs.core.sections import find_section

from .seed_docs import (
    PROCEDURES_HEADING,
    SEED_DIR,
    body_of,
    links,
    procedure_ids,
    python_blocks,
    reference_ids,
    runnable_ids,
    seed_ids,
    seed_index,
    seed_text,
)

PROCEDURE_SECTIONS = [
    "## When to use",
    "## When not to use",
    "## Inputs",
    "## Parameters",
    "## Steps",
    "## Failure modes",
    "## Next steps",
]
MACHINE_PATHS = re.compile(r"(/home/|/Users/|/root/|/tmp/|/mnt/|/Volumes/|\b[A-Za-z]:\\|\\\\[A-Za-z])")


def test_every_seed_file_is_a_valid_doc_id():
    names = [p.relative_to(SEED_DIR).as_posix() for p in SEED_DIR.rglob("*") if p.is_file()]
    assert names, "the seed is empty"
    for name in names:
        assert name.endswith(".md"), f"seed/{name} is not a markdown doc"
        assert is_valid_doc_id(name[:-3]), f"seed/{name} cannot be named by a doc id"


def test_every_listed_shipped_doc_is_an_entry_or_ignored():
    index = seed_index()
    for doc_id in seed_ids():
        if is_banked(doc_id):
            continue
        assert doc_id in index.entry_ids or doc_id in index.ignored, (
            f"seed/{doc_id}.md is in neither the seed index nor its ignored: line"
        )


def test_every_seed_entry_names_a_shipped_file():
    for entry in seed_index().entries:
        if not is_collection_id(entry.doc_id):
            assert entry.doc_id in seed_ids(), f"seed index lists {entry.doc_id!r} but seed/ has no such doc"


def test_the_ignored_line_names_only_shipped_docs():
    assert seed_index().ignored <= set(seed_ids())


def test_banked_docs_are_not_in_the_seed_index_and_at_least_two_ship():
    banked = [doc_id for doc_id in seed_ids() if is_banked(doc_id)]
    assert len(banked) >= 2
    for doc_id in banked:
        assert doc_id not in seed_index().entry_ids
        assert doc_id not in seed_index().ignored


def test_no_seed_entry_is_listed_twice():
    ids = [entry.doc_id for entry in seed_index().entries]
    assert len(ids) == len(set(ids))


def test_procedures_heading_is_present_with_entries():
    # §6: the bench switch moves every entry under this heading to the ignored: line.
    assert PROCEDURES_HEADING in seed_index().lines
    assert len(procedure_ids()) >= 12


def test_references_cover_the_kernel_data_authoring_and_requirements():
    assert {"kernel", "data", "authoring", "requirements"} <= set(reference_ids())


def test_hooks_carry_no_links_and_are_one_line_requests():
    for entry in seed_index().entries:
        assert "[[" not in entry.hook, f"hook of {entry.doc_id} carries a link"
        assert 10 <= len(entry.hook) <= 140, f"hook of {entry.doc_id} is {len(entry.hook)} characters"


def test_seed_hooks_match_the_docs_descriptions():
    # The tail shows a shipped doc's description; an entry filed from it should read the same.
    for entry in seed_index().entries:
        described = parse_frontmatter(seed_text(entry.doc_id)).text("description")
        assert entry.hook == described, f"seed hook of {entry.doc_id} differs from its description"


def link_problem(target: str) -> str | None:
    """Why ``[[target]]`` does not land in the seed (an id that does not ship, or a heading the
    doc does not have, resolved by read_doc's own rule), or None when it lands."""
    doc_id, has_section, section = target.partition("#")
    if doc_id not in seed_ids():
        return "which does not ship"
    if not has_section:
        return None
    outline = Derived(doc_id, b"", seed_text(doc_id)).outline
    try:
        find_section(doc_id, outline, section.strip())
    except SectionNotFound as err:
        return f"whose heading is not there: {err}"
    return None


@pytest.mark.parametrize("doc_id", seed_ids())
def test_every_link_lands_on_a_shipped_doc(doc_id):
    for target in links(seed_text(doc_id)):
        problem = link_problem(target)
        assert problem is None, f"{doc_id} links [[{target}]], {problem}"


def test_the_link_gate_checks_a_linked_heading_exists():
    assert link_problem("flatfield") is None
    assert link_problem("flatfield#steps") is None
    assert link_problem("flatfield#When not to use") is None
    assert link_problem("flatfield#No such heading").startswith("whose heading is not there")
    assert link_problem("no-such-doc#Steps") == "which does not ship"


@pytest.mark.parametrize("doc_id", seed_ids())
def test_nothing_is_over_a_cap(doc_id):
    lines = len(seed_text(doc_id).splitlines())
    assert lines <= BODY_LINE_CAP, f"{doc_id} is {lines} lines; the cap is {BODY_LINE_CAP}"
    size = len(seed_text(doc_id).encode("utf-8"))
    assert size <= DOC_BYTE_CAP, f"{doc_id} is {size:,} bytes; the cap is {DOC_BYTE_CAP:,}"


def test_seed_index_is_within_every_cap():
    assert len(seed_index().entries) <= ENTRY_CAP
    assert len(seed_index().lines) <= BODY_LINE_CAP
    for line in seed_index().lines:
        assert len(line.encode("utf-8")) <= INDEX_LINE_BYTE_CAP, line


@pytest.mark.parametrize("doc_id", [*seed_ids(), "index"])
def test_no_machine_specific_paths(doc_id):
    text = (SEED_DIR / f"{doc_id}.md").read_text(encoding="utf-8")
    found = MACHINE_PATHS.search(text)
    assert not found, f"{doc_id} mentions a machine-specific path: {found.group(0)!r}"


@pytest.mark.parametrize("doc_id", seed_ids())
def test_every_doc_has_a_title_and_a_frontmatter_description(doc_id):
    text = seed_text(doc_id)
    assert parse_frontmatter(text).text("description"), f"{doc_id} has no description: frontmatter"
    assert describe(doc_id, text).title != doc_id, f"{doc_id} has no '# Title'"


@pytest.mark.parametrize("doc_id", procedure_ids())
def test_procedure_has_the_sections_of_authoring_in_order(doc_id):
    headings = [line for line in body_of(doc_id).split("\n") if line.startswith("## ")]
    present = [heading for heading in headings if heading in PROCEDURE_SECTIONS]
    assert present == PROCEDURE_SECTIONS, f"{doc_id} sections are {headings}"


@pytest.mark.parametrize("doc_id", procedure_ids())
def test_procedure_has_a_confirm_input_and_an_asserted_gate(doc_id):
    body = body_of(doc_id)
    assert "**Checkpoint (confirm-input):**" in body
    assert "**Checkpoint (validate-and-gate):**" in body
    code = "\n".join(code for _, code in python_blocks(body))
    assert re.search(r"^\s*assert .+, ", code, re.M), f"{doc_id} has no assert with a message"


@pytest.mark.parametrize("doc_id", procedure_ids())
def test_procedure_hands_off_through_links(doc_id):
    next_steps = body_of(doc_id).split("## Next steps", 1)[1]
    assert links(next_steps), f"{doc_id} links nothing under ## Next steps"


# -- one shared namespace: procedures must not clobber each other or the user's data ------------------


def _section(body: str, heading: str) -> str:
    found = re.search(rf"^{re.escape(heading)}\n(.*?)(?=^## |\Z)", body, re.S | re.M)
    return found.group(1) if found else ""


def _code(doc_id: str) -> str:
    """The doc's python blocks as the one module they run as."""
    return "\n".join(code for _, code in python_blocks(body_of(doc_id)))


def _assigned_names(doc_id: str) -> set[str]:
    """Names the doc's code binds at module level: assignments, loop and ``with`` targets, imports,
    functions and classes, inside ``if``/``for``/``try`` bodies too (they share the module scope)."""
    table = symtable.symtable(_code(doc_id), doc_id, "exec")
    return {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}


def _imported_names(doc_id: str) -> set[str]:
    table = symtable.symtable(_code(doc_id), doc_id, "exec")
    return {s.get_name() for s in table.get_symbols() if s.is_imported()}


def _deleted_names(doc_id: str) -> set[str]:
    names: set[str] = set()
    pending = list(ast.parse(_code(doc_id)).body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue  # their own scope
        if isinstance(node, ast.Delete):
            names.update(n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name))
        pending.extend(ast.iter_child_nodes(node))
    return names


def _read_names(doc_id: str) -> set[str]:
    """Module-level names the code reads, at the top or from inside its functions."""
    found: set[str] = set()
    tables = [symtable.symtable(_code(doc_id), doc_id, "exec")]
    while tables:
        table = tables.pop()
        top = table.get_type() == "module"
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (top or symbol.is_global()):
                found.add(symbol.get_name())
        tables.extend(table.get_children())
    return found


def _input_names(doc_id: str) -> set[str]:
    """The names a bullet of ``## Inputs`` opens with: ``- `a`, `b`: ...`` names both."""
    heads = re.findall(r"^- ((?:`[A-Za-z_]\w*`(?:, | and )?)+)", _section(body_of(doc_id), "## Inputs"), re.M)
    return {name for head in heads for name in re.findall(r"`([A-Za-z_]\w*)`", head)}


def _output_names(doc_id: str) -> set[str]:
    """Names the first paragraph announces (in backticks) that the code produces."""
    body = body_of(doc_id)
    first_paragraph = body.split("\n# ", 1)[-1].split("\n\n", 2)[1]
    named = set(re.findall(r"`([A-Za-z_]\w*)`", first_paragraph))
    return named & (_assigned_names(doc_id) - _imported_names(doc_id))


def test_no_procedure_overwrites_an_input_of_any_procedure():
    # A documented output may be another procedure's input (a hand-off); a temporary may not.
    inputs = {name: doc_id for doc_id in procedure_ids() for name in _input_names(doc_id)}
    for doc_id in procedure_ids():
        temporaries = _assigned_names(doc_id) - _output_names(doc_id)
        clobbered = {name: inputs[name] for name in temporaries if name in inputs}
        assert not clobbered, f"{doc_id} assigns names that are inputs: {clobbered}"
        own = _assigned_names(doc_id) & _input_names(doc_id)
        assert not own, f"{doc_id} overwrites its own inputs: {sorted(own)}"


@pytest.mark.parametrize("doc_id", procedure_ids())
def test_procedure_names_its_outputs_and_no_other_procedure_reuses_them(doc_id):
    outputs = _output_names(doc_id)
    assert outputs, f"{doc_id}'s first paragraph names none of the variables it leaves behind"
    for other in procedure_ids():
        if other != doc_id:
            reused = outputs & _assigned_names(other)
            assert not reused, f"{other} assigns {sorted(reused)}, which {doc_id} leaves for the user"


# Names a user's own session is likely to hold: every single letter and the usual names for data,
# labels, tables and figures. A procedure runs in that session (kernel doc: never overwrite a
# variable you did not create), so it binds none of them at module level, nor deletes one.
COMMON_USER_NAMES = frozenset(string.ascii_letters) | frozenset(
    [
        "im",
        "img",
        "image",
        "images",
        "raw",
        "data",
        "df",
        "arr",
        "array",
        "stack",
        "movie",
        "video",
        "model",
        "lab",
        "label",
        "labels",
        "mask",
        "masks",
        "cell",
        "cells",
        "nucleus",
        "nuclei",
        "seg",
        "result",
        "results",
        "res",
        "out",
        "output",
        "table",
        "props",
        "frame",
        "frames",
        "fig",
        "ax",
        "axes",
        "spots",
        "points",
        "values",
        "counts",
        "background",
        "foreground",
        "threshold",
        "psf",
        "kernel",
        "channel",
        "channels",
        "roi",
        "rois",
        "path",
        "paths",
        "files",
        "ref",
        "tile",
        "tiles",
        "signal",
        "noise",
        "xx",
        "yy",
        "zz",
        "idx",
        "tmp",
        "temp",
        "viewer",
        "layer",
        "smooth",
        "smoothed",
        "blurred",
        "filtered",
        "binary",
        "peaks",
        "coords",
        "regions",
        "objects",
        "pieces",
        "ids",
        "index",
        "size",
        "shape",
        "level",
        "weights",
        "weight",
    ]
)


@pytest.mark.parametrize("doc_id", runnable_ids())
def test_no_doc_binds_or_deletes_a_common_user_name(doc_id):
    bound = sorted(_assigned_names(doc_id) & COMMON_USER_NAMES)
    assert not bound, (
        f"{doc_id} binds {bound} at module level, names a user may hold: prefix them with the "
        "procedure's own prefix, or keep them inside a function"
    )
    deleted = sorted(_deleted_names(doc_id) & COMMON_USER_NAMES)
    assert not deleted, f"{doc_id} deletes {deleted}, names a user may hold"


def test_the_user_name_gate_sees_loops_imports_and_del():
    code = "from skimage.measure import label\nfor t in range(3):\n    if t:\n        img = t\ndel x\n"
    table = symtable.symtable(code, "t", "exec")
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    assert {"label", "t", "img"} <= bound & COMMON_USER_NAMES


@pytest.mark.parametrize("doc_id", runnable_ids())
def test_every_name_a_doc_reads_is_an_input_or_bound_by_the_doc(doc_id):
    # A renamed temporary left behind in a branch the scene does not take would only fail on a
    # user's data: the code must bind, or name under ## Inputs, everything it reads.
    known = _assigned_names(doc_id) | _input_names(doc_id) | set(dir(builtins))
    unbound = sorted(_read_names(doc_id) - known)
    assert not unbound, f"{doc_id} reads {unbound}, which its code never binds and ## Inputs does not name"


# -- every name a doc binds in the shared kernel carries the doc's own prefix (issue 22) ------------


def top_level_bound(code: str) -> set[str]:
    """Names the code binds in the kernel's namespace when run at top level: assignment, augmented
    and annotated targets, loop targets, ``with ... as``, ``except ... as``, walrus targets (even
    inside a comprehension, PEP 572), ``match`` captures, function and class names; inside ``if``,
    ``for``, ``while``, ``try``, ``with`` and ``match`` bodies too. Imports aside; nothing inside a
    function, class or lambda body, and no comprehension's own loop variables."""
    bound: set[str] = set()

    def targets(node: ast.AST) -> None:
        for name in ast.walk(node):
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                bound.add(name.id)
            elif isinstance(name, ast.Starred | ast.MatchAs | ast.MatchStar) and getattr(name, "name", None):
                bound.add(name.name)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            return  # a body of its own scope; decorators and defaults cannot bind here
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            return
        if isinstance(node, ast.Assign):
            for target in node.targets:
                targets(target)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            targets(node.target)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    targets(item.optional_vars)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.NamedExpr):
            targets(node.target)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.comprehension):
                visit(child.iter)  # its target is the comprehension's own; a walrus in it is not
                for condition in child.ifs:
                    visit(condition)
                continue
            visit(child)

    visit(ast.parse(code))
    return bound


def prefix_of(doc_id: str) -> str | None:
    return parse_frontmatter(seed_text(doc_id)).text("prefix")


def stray_names(code: str, prefix: str, inputs: set[str]) -> list[str]:
    """Names ``code`` binds at top level that neither start with ``prefix`` nor are ``inputs``."""
    return sorted(n for n in top_level_bound(code) - inputs if not n.startswith(prefix))


@pytest.mark.parametrize("doc_id", runnable_ids())
def test_every_name_a_doc_binds_starts_with_its_own_prefix(doc_id):
    prefix = prefix_of(doc_id)
    assert re.fullmatch(r"[a-z][a-z0-9]*_", prefix or ""), (
        f"{doc_id} declares no frontmatter 'prefix:' (lower-case, ending in '_'), the start of every "
        "name its code binds in the user's kernel"
    )
    stray = stray_names(_code(doc_id), prefix, _input_names(doc_id))
    assert not stray, (
        f"{doc_id} binds {stray} in the shared kernel; start each with {prefix!r} (or keep it inside "
        "a function): a user's own 'blank' or 'step' must survive running the doc"
    )


def test_prefixes_are_distinct_and_none_starts_another():
    prefixes = {doc_id: prefix_of(doc_id) for doc_id in runnable_ids() if prefix_of(doc_id)}
    for doc_id, prefix in prefixes.items():
        for other, theirs in prefixes.items():
            assert other == doc_id or not theirs.startswith(prefix), (
                f"{other}'s prefix {theirs!r} starts with {doc_id}'s {prefix!r}: their names could collide"
            )


def test_the_prefix_gate_sees_a_planted_top_level_blank_and_every_binding_form():
    planted = (
        "flat_gain = 1\nfor flat_i in range(2):\n    flat_gain += images\n"
        "\nblank = 1\nfor step in range(2):\n    pass\nwith open('x') as handle:\n    pass\n"
        + "try:\n    pass\nexcept Exception as err:\n    pass\n[(hit := v) for v in range(3)]\n"
        + "def helper():\n    inner = 1\nclass Thing:\n    pass\nimport numpy as np_\n"
        + "total: int = 0\ntotal += 1\n"
    )
    stray = set(stray_names(planted, "flat_", {"images"}))
    assert stray == {"blank", "step", "handle", "err", "hit", "helper", "Thing", "total"}


@pytest.mark.parametrize("doc_id", reference_ids())
def test_a_reference_doc_links_only_reference_docs(doc_id):
    # An agent follows every link: a reference that links a procedure hands the bench's ablated
    # arm a procedure id (§6), and reading a reference never needs a procedure.
    outside = sorted(set(links(body_of(doc_id))) - set(reference_ids()))
    assert not outside, f"reference doc {doc_id} links {outside}, which are not reference docs"
