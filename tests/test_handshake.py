"""The handshake (§3): what a budgeted host receives, at the seed, at ~23 entries and at the cap."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import StdioServerParameters

from biopb_kernel_docs.core.index import ENTRY_CAP, parse_index
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import IndexEntryView, IndexView
from biopb_kernel_docs.text.handshake import (
    COMPACT_RULES,
    COMPACT_TAIL_TITLES,
    HEADER,
    INLINED_TITLE,
    KNOWN_HOST_BUDGETS,
    RULES,
    Entry,
    budget_for,
    compose_instructions,
    entry_lines,
    handshake,
    hook_variants,
    index_entries,
    shorten_hooks,
    word_cuts,
)
from biopb_kernel_docs.text.render import NEW_TAIL_TITLE

from .bench_support import START_TIMEOUT, session_on
from .kernels import kernel_env

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "seed"
INDEX = "# Docs\n\n## References\n" + "".join(f"- doc-{n:03d}: what doc {n} is for\n" for n in range(100))
# The initialize request Claude Code 2.0.73 sends, as logged in cl-ai-project/cl-mcp issue #26.
CLAUDE_CODE_INITIALIZE = {
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {}},
        "clientInfo": {"name": "claude-code", "version": "2.0.73"},
    },
    "jsonrpc": "2.0",
    "id": 0,
}
# A seed-like index of 23 entries, as the seed will be once hooks are at most 90 characters with a
# first clause that stands alone and seven more procedures are filed (written here, not copied).
SYNTHETIC_SEED = {
    "## References": {
        "kernel": "before running code in the shared kernel; what it holds, where work runs, long jobs",
        "data": "before touching an image array; axis order, dtype, lazy pyramids, pixel size",
        "requirements": "a procedure needs a package the kernel lacks, or has at the wrong version",
        "authoring": "write down a procedure that worked, so the next session can re-run it",
    },
    "## Procedures": {
        "read-vendor-formats": "open a microscope file with its metadata; CZI, ND2, LIF, OME-TIFF",
        "flatfield": "my images are darker at the corners or on one side; correct the shading",
        "background-subtraction": "remove the haze or glow under my cells before measuring intensities",
        "stitch-tiles": "stitch overlapping tiles into one image; tile scans, grids and mosaics",
        "drift-correction": "the field slides across my time-lapse; register the frames",
        "deconvolution": "my widefield or confocal image is blurry; sharpen it with a PSF",
        "bleach-correction": "my signal fades over the time-lapse; correct the photobleaching",
        "spectral-unmixing": "my channels bleed into each other; unmix overlapping fluorophores",
        "segment-nuclei": "find and outline the nuclei in a DAPI or Hoechst image; count them",
        "segment-cells": "outline whole cells from a membrane or cytoplasm stain",
        "segment-3d": "segment objects in a 3-D stack as volumes, not slice by slice",
        "split-touching-objects": "separate touching nuclei or cells that came out as one object",
        "count-foci": "count the spots or foci in each nucleus or cell; γH2AX, 53BP1, FISH dots",
        "track-objects": "follow my cells through the time-lapse; tracks, speeds, lineages",
        "colocalization": "measure whether two channels colocalize in each cell; Pearson, Manders",
        "measure-physical-units": "measure sizes, shapes and intensities of objects in µm, µm², µm³",
        "segmentation-qc": "check whether a segmentation is good enough to measure from",
        "batch-process": "run the same analysis over a folder of files, one after another",
        "save-results": "save my results as tables, masks and images that others can open",
    },
}


def ship_index(shipped: Path, sections: dict[str, dict[str, str]], prose: str = "") -> None:
    """A shipped tier whose index lists ``sections`` (heading -> id -> hook), each doc a small file."""
    shipped.mkdir(parents=True)
    text = f"# biopb docs\n\n{prose}\n"
    for heading, entries in sections.items():
        text += f"\n{heading}\n" + "".join(f"- {doc_id}: {hook}\n" for doc_id, hook in entries.items())
        for doc_id in entries:
            path = shipped / f"{doc_id}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {doc_id}\n\nThe doc {doc_id}.\n", encoding="utf-8")
    (shipped / "index.md").write_text(text + "\nignored:\n", encoding="utf-8")


def cap_sections() -> dict[str, dict[str, str]]:
    hooks = {
        f"lab/protocol-{n:03d}": f"the lab's protocol {n} for one kind of sample, validated on the {n} set; "
        "with its caveats and the numbers it was checked on"
        for n in range(ENTRY_CAP)
    }
    return {"## Procedures": hooks}


def rendered(shipped: Path, local: Path) -> IndexView:
    return Docs(Store(shipped, local, "1")).index()


def view_of(text: str) -> IndexView:
    """An index file as the loader would see it with nothing missing and nothing new."""
    parsed = parse_index(text)
    entries = tuple(
        IndexEntryView(e.doc_id, e.hook, e.heading, e.line_number, None, e.doc_id.endswith("/"))
        for e in parsed.entries
    )
    return IndexView(
        text=text,
        sha256="",
        updated="",
        path="",
        tier="local",
        entries=entries,
        headings=tuple(line for _, line in parsed.headings),
        ignored=parsed.ignored_in_order,
        ignored_lines=parsed.ignored_line_numbers,
        new_shipped=(),
        stale=(),
        entry_cap=ENTRY_CAP,
        notices=(),
    )


def assert_every_entry_arrives(text: str, index: IndexView, budget: int) -> None:
    """Every entry of ``index`` (tails included) is in ``text`` with a hook form of its own, in order."""
    assert len(text) <= budget
    sent = {e.doc_id: e.hook for e in parse_index(text).entries}
    entries = index_entries(index)
    assert list(sent) == [e.doc_id for e in entries]
    for entry in entries:
        clauses = hook_variants(entry.hook)
        assert sent[entry.doc_id] in clauses + word_cuts(clauses[-1]), entry.doc_id
        assert len(sent[entry.doc_id].split()) >= 3, f"{entry.doc_id}'s hook no longer says when to read it"


# -- the full form -----------------------------------------------------------------------------------


def test_full_instructions_put_header_rules_then_the_index():
    text = compose_instructions(view_of(INDEX))
    assert text.split("\n")[: 1 + len(RULES)] == [HEADER, *RULES]
    assert text.endswith(INDEX.rstrip("\n"))


def test_the_ignored_line_is_sent_as_a_count_never_as_ids():
    index = view_of("# Docs\n\n## Procedures\n- kept: a listed doc\n\nignored: flatfield, stitch-tiles\n")
    for budget in (None, 2048, 300):
        text = compose_instructions(index, budget)
        assert "flatfield" not in text
        assert "stitch-tiles" not in text
    assert "ignored: 2 shipped docs, not listed here" in compose_instructions(index)
    assert compose_instructions(view_of("# Docs\n\nignored:\n")).endswith("\nignored:")


# -- the compact form ----------------------------------------------------------------------------------


def test_hooks_are_cut_at_clause_boundaries_outside_brackets():
    hook = "my images are darker at the corners; correct the shading (vignetting, falloff)"
    assert hook_variants(hook) == (
        hook,
        "my images are darker at the corners",
    )
    # A list comma is no clause boundary; a parenthetical goes once no clause is left to drop.
    assert hook_variants("find, count and outline the nuclei in a DNA stain (DAPI, Hoechst)") == (
        "find, count and outline the nuclei in a DNA stain (DAPI, Hoechst)",
        "find, count and outline the nuclei in a DNA stain",
    )
    assert hook_variants("fix the shading, fast (missing)") == (
        "fix the shading, fast (missing)",
        "fix the shading (missing)",
    )
    assert hook_variants('shipped text changed, read it — read_doc("x@diff")') == (
        'shipped text changed, read it — read_doc("x@diff")',
        'shipped text changed — read_doc("x@diff")',
    )


def test_hooks_are_cut_longest_first_and_room_left_by_a_cut_is_given_back_from_the_top():
    a = Entry("a", "alpha beta gamma delta epsilon zeta eta, theta", "## P")  # the longer line
    b = Entry("b", "one two three, four five six seven eight nine", "## P")  # the longer clause
    assert sum(len(line) + 1 for line in entry_lines([a, b])) == 108  # the heading line counts
    # 95: a's cut (7) is not enough, b's (31) is; then a's 7 fit again and it gets them back.
    assert [e.hook for e in shorten_hooks([a, b], 95)] == [a.hook, "one two three"]
    assert [e.hook for e in shorten_hooks([a, b], 105)] == ["alpha beta gamma delta epsilon zeta eta", b.hook]
    # Nothing fits 10: every clause is cut, then a's first clause between words, down to five.
    assert [e.hook for e in shorten_hooks([a, b], 10)] == ["alpha beta gamma delta epsilon…", "one two three"]


def test_a_cut_hook_is_given_back_when_the_total_then_equals_the_budget_exactly():
    a = Entry("a", "alpha beta gamma delta epsilon zeta eta, theta", "## P")
    b = Entry("b", "one two three, four five six seven eight nine", "## P")
    # 76 = 108 - b's cut (32): a is cut first (longest line), b's cut is needed, then a's 7 come
    # back and the lines total exactly the budget, which is still within it.
    kept = shorten_hooks([a, b], 76)
    assert [e.hook for e in kept] == [a.hook, "one two three"]
    assert sum(len(line) + 1 for line in entry_lines(kept)) == 76


def test_the_seed_as_shipped_reaches_a_2048_character_host_whole(tmp_path):
    index = rendered(SEED, tmp_path / "local")
    assert len(compose_instructions(index)) > 2048  # else this test pins nothing
    text = compose_instructions(index, 2048)
    assert_every_entry_arrives(text, index, 2048)
    assert text.split("\n")[: 1 + len(COMPACT_RULES)] == [HEADER, *COMPACT_RULES]
    assert "This copy is cut" not in text


# Words real requests used that a seed hook must still carry in the 2,048-character form.
SEED_DECISIVE_WORDS = {
    "flatfield": ("uneven illumination", "vignetting"),
    "background-subtraction": ("rolling ball",),
    "deconvolution": ("Richardson-Lucy",),
    "segment-nuclei": ("DAPI", "Hoechst"),
    "count-foci": ("γH2AX", "53BP1", "FISH"),
    "colocalization": ("Pearson", "Manders"),
    "segmentation-qc": ("IoU",),
    "read-vendor-formats": (".czi", ".nd2", ".lif"),
    "segment-cells": ("nuclei +",),  # what it needs: a nuclear and a second stain (issue 22)
    "segment-trained-model": ("Cellpose", "StarDist"),
    "dna-content": ("G1",),
    "bleach-correction": ("ΔF/F₀", "GCaMP"),
    "spectral-unmixing": ("bleed-through",),
    "bead-qc": ("PSF",),
    "compare-conditions": ("t-test", "Mann-Whitney"),
}


def test_the_seeds_hooks_reach_a_2048_character_host_cut_only_at_clauses_with_their_decisive_words(
    tmp_path,
):
    index = rendered(SEED, tmp_path / "local")
    sent = {e.doc_id: e.hook for e in parse_index(compose_instructions(index, 2048)).entries}
    for entry in index.entries:
        assert sent[entry.id] in hook_variants(entry.hook), f"{entry.id} is cut between words"
    for doc_id, words in SEED_DECISIVE_WORDS.items():
        for word in words:
            assert word in sent[doc_id], f"{doc_id}'s hook at 2,048 characters lost {word!r}"


def test_a_23_entry_seed_with_short_hooks_reaches_a_2048_character_host_whole(tmp_path):
    assert sum(map(len, SYNTHETIC_SEED.values())) == 23
    assert max(len(hook) for hooks in SYNTHETIC_SEED.values() for hook in hooks.values()) <= 90
    ship_index(tmp_path / "shipped", SYNTHETIC_SEED, prose="Read the reference docs before non-trivial work.")
    index = rendered(tmp_path / "shipped", tmp_path / "local")
    assert len(compose_instructions(index)) > 2048
    text = compose_instructions(index, 2048)
    assert_every_entry_arrives(text, index, 2048)
    assert "## References\n- kernel:" in text
    assert "## Procedures\n- read-vendor-formats:" in text


def test_a_hook_with_no_clause_left_to_cut_is_cut_between_words_and_marked():
    assert word_cuts("one two three four five six, seven") == (
        "one two three four five six…",
        "one two three four five…",
    )


def test_at_the_cap_the_cut_keeps_the_index_order_and_counts_what_it_left_out(tmp_path):
    ship_index(tmp_path / "shipped", cap_sections())
    index = rendered(tmp_path / "shipped", tmp_path / "local")
    text = compose_instructions(index, 2048)
    assert len(text) <= 2048
    lines = text.split("\n")
    sent = [e.doc_id for e in parse_index(text).entries]
    assert sent == [f"lab/protocol-{n:03d}" for n in range(len(sent))]
    assert 5 < len(sent) < ENTRY_CAP
    assert lines[:2] == [
        HEADER,
        f"This copy is cut to fit this host: {ENTRY_CAP - len(sent)} index entries are left out below; "
        'read_doc("index") has them all.',
    ]
    hooks = {e.id: e.hook for e in index.entries}
    for entry in parse_index(text).entries:
        assert entry.hook == word_cuts(hook_variants(hooks[entry.doc_id])[-1])[-1]


def test_a_budget_keeps_whole_lines_from_the_top_and_counts_what_it_left_out():
    text = compose_instructions(view_of(INDEX), budget=1500)
    assert len(text) <= 1500
    lines = text.split("\n")
    kept = sum(line.startswith("- doc-") for line in lines)
    assert lines[:2] == [
        HEADER,
        f"This copy is cut to fit this host: {100 - kept} index entries are left out below; "
        'read_doc("index") has them all.',
    ]
    assert all(line in INDEX.split("\n") for line in lines[3 + len(COMPACT_RULES) :])


def test_tails_keep_what_they_ask_in_the_compact_form():
    entries = [Entry("a", "first doc", "## Procedures"), Entry("new-one", "a new doc", NEW_TAIL_TITLE)]
    assert entry_lines(entries) == [
        "## Procedures",
        "- a: first doc",
        COMPACT_TAIL_TITLES[NEW_TAIL_TITLE],
        "- new-one: a new doc",
    ]
    assert "ignored:" in COMPACT_TAIL_TITLES[NEW_TAIL_TITLE]


def test_entries_know_their_heading_and_skip_code_blocks():
    index = "# T\n- top: before any section\n## A\n- a: one\n```\n- fake: in code\n```\n## B\n- b: two\n"
    assert index_entries(view_of(index)) == (
        Entry("top", "before any section", "# T"),
        Entry("a", "one", "## A"),
        Entry("b", "two", "## B"),
    )


def test_every_prefix_cut_still_starts_with_the_header_and_the_ask_first_rule():
    full = compose_instructions(view_of(INDEX), budget=2048)
    for cut in (200, 400, 800):
        assert full[:cut].startswith(HEADER)
    assert "Ask before deleting or overwriting data" in full[: len(HEADER) + 300]


def test_a_tiny_budget_keeps_the_header():
    assert compose_instructions(view_of(INDEX), budget=len(HEADER) + 5).startswith(HEADER)


def test_inlined_docs_follow_the_index_and_are_cut_first():
    bodies = [("kernel", "# Kernel\n\nWhat the kernel holds.\n"), ("data", "# Data\n\n" + "axes\n" * 400)]
    text = compose_instructions(view_of(INDEX), inlined=bodies)
    assert text.startswith(compose_instructions(view_of(INDEX)) + f"\n\n{INLINED_TITLE}\n\n")
    assert '### read_doc("kernel")\n# Kernel\n\nWhat the kernel holds.' in text
    assert text.endswith("axes")
    cut = compose_instructions(view_of(INDEX), 2048, inlined=bodies)
    assert cut == compose_instructions(view_of(INDEX), 2048)


def test_an_index_that_could_not_load_says_why_and_how_to_retry():
    text = compose_instructions(None, problem="the kernel did not start")
    assert (
        text.split("\n")[1]
        == 'The index could not be loaded (the kernel did not start). Call read_doc("index") to retry.'
    )


def test_budget_is_chosen_by_declared_client_name():
    budgets = {"claude-code": 2048}
    assert budget_for("claude-code", budgets) == 2048
    assert budget_for("Claude-Code", budgets) == 2048
    assert budget_for("cursor", budgets) is None
    assert budget_for(None, budgets) is None


# -- through the real server --------------------------------------------------------------------------


def server_argv(local: Path, shipped: Path) -> list[str]:
    return [
        sys.executable,
        *("-m", "biopb_kernel_docs", "mcp"),
        *("--docs-local-dir", str(local), "--shipped-dir", str(shipped)),
    ]


def _replay_once(argv: list[str], home: Path, request: dict, errlog) -> dict | None:
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog, env=kernel_env(home), text=True
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True)
    reader.start()
    reply = None
    try:
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        reply = json.loads(lines.get(timeout=START_TIMEOUT))
    except queue.Empty:
        process.kill()
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        reader.join(timeout=10)
        process.stdout.close()
    return reply


def replay_initialize(home: Path, argv: list[str], request: dict) -> dict:
    """Send one recorded initialize line to the server on stdin; its reply line, parsed."""
    home.mkdir(exist_ok=True)
    log = home / "server.log"
    with log.open("w") as errlog:
        reply = _replay_once(argv, home, request, errlog)
    if reply is None:
        raise AssertionError(f"no reply to initialize; the server's stderr:\n{log.read_text()[-2000:]}")
    assert reply["id"] == request["id"], reply
    return reply["result"]


def test_a_replayed_claude_code_initialize_gets_every_seed_entry(tmp_path):
    result = replay_initialize(
        tmp_path / "home", server_argv(tmp_path / "local", SEED), CLAUDE_CODE_INITIALIZE
    )
    index = rendered(SEED, tmp_path / "other")
    assert_every_entry_arrives(result["instructions"], index, 2048)


def test_a_replayed_claude_code_initialize_at_the_cap_is_cut_and_says_so(tmp_path):
    ship_index(tmp_path / "shipped", cap_sections())
    argv = server_argv(tmp_path / "local", tmp_path / "shipped")
    text = replay_initialize(tmp_path / "home", argv, CLAUDE_CODE_INITIALIZE)["instructions"]
    assert len(text) <= 2048
    sent = [e.doc_id for e in parse_index(text).entries]
    assert sent == [f"lab/protocol-{n:03d}" for n in range(len(sent))]
    assert text.split("\n")[1].startswith(f"This copy is cut to fit this host: {ENTRY_CAP - len(sent)} ")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_2026_discover_result_is_never_cached_past_an_index_edit(tmp_path):
    """SDK 2.3 marks server/discover and resources/read cacheable; the server leaves both at the
    default hint (ttl 0, private), so a client re-discovers and sees an edit at once."""
    (tmp_path / "home").mkdir()
    argv = server_argv(tmp_path / "local", SEED)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=kernel_env(tmp_path / "home"))
    async with session_on(params, tmp_path, modern=True) as (session, first):
        assert session.protocol_version == "2026-07-28"
        assert (first.ttl_ms, first.cache_scope) == (0, "private")
        resource = await session.read_resource("docs://index")
        assert (resource.ttl_ms, resource.cache_scope) == (0, "private")
        assert "- lab/fresh:" not in first.instructions
        await session.call_tool(
            "write_doc", {"id": "lab/fresh", "body": "# Fresh\n\nA doc filed just now.\n"}
        )
        with anyio.fail_after(30):
            again = await session.send_discover(session.protocol_version)  # on the wire, no memo
        assert (again["ttlMs"], again["cacheScope"]) == (0, "private")
        assert "- lab/fresh: A doc filed just now." in again["instructions"]


def test_the_handshake_value_names_the_entries_a_budgeted_host_misses_in_index_order(tmp_path):
    from biopb_kernel_docs.text.handshake import handshake

    ship_index(tmp_path / "shipped", cap_sections())
    index = rendered(tmp_path / "shipped", tmp_path / "local")
    cut = handshake(index, 2048)
    sent = [e.doc_id for e in parse_index(cut.text).entries]
    assert (cut.budget, cut.length) == (2048, len(cut.text))
    assert list(cut.left_out) == [f"lab/protocol-{n:03d}" for n in range(len(sent), 200)]
    assert handshake(index).left_out == ()


def test_claude_codes_budget_is_its_documented_2048_characters():
    assert KNOWN_HOST_BUDGETS == {"claude-code": 2048}
    assert budget_for("claude-code", KNOWN_HOST_BUDGETS) == 2048
    assert budget_for("claude-code/2.1", KNOWN_HOST_BUDGETS) == 2048


def test_a_budget_is_matched_on_the_whole_client_name_not_a_prefix_of_it():
    assert budget_for("Claude-Code", KNOWN_HOST_BUDGETS) == 2048
    assert budget_for("claude-codex", KNOWN_HOST_BUDGETS) is None
    assert budget_for("claude-code-beta", KNOWN_HOST_BUDGETS) is None


# -- shortening, pinned against a reference that recounts every line ------------------------------


def reference_shorten(entries: list[Entry], budget: int) -> list[str]:
    """The promise of ``shorten_hooks`` restated plainly, every total counted afresh from the lines:
    cut the longest line (the later on a tie) one clause at a time, then between words, while over
    ``budget``; then give back, from the top, every form that fits again."""
    forms = [list(hook_variants(entry.hook)) for entry in entries]
    step = [0] * len(entries)

    def total(steps: list[int]) -> int:
        shown = [replace(e, hook=forms[n][steps[n]]) for n, e in enumerate(entries)]
        return sum(len(line) + 1 for line in entry_lines(shown))

    def cut() -> None:
        while total(step) > budget:
            cuttable = [n for n in range(len(entries)) if step[n] < len(forms[n]) - 1]
            if not cuttable:
                return
            step[max(cuttable, key=lambda n: (len(entries[n].doc_id) + len(forms[n][step[n]]), n))] += 1

    cut()
    if total(step) > budget:
        for n in range(len(entries)):
            forms[n] += word_cuts(forms[n][-1])
        cut()
    for n in range(len(entries)):
        while step[n] > 0 and total([*step[:n], step[n] - 1, *step[n + 1 :]]) <= budget:
            step[n] -= 1
    return [forms[n][step[n]] for n in range(len(entries))]


_WORDS = st.sampled_from(["cells", "nuclei", "the", "stain", "µm", "DAPI", "count", "tiles", "a", "of"])
_PIECES = st.one_of(
    _WORDS,
    st.sampled_from([",", ";", ", ", "; ", "(", ")", "[", "]"]),
    st.builds(lambda a, b: f"({a}, {b})", _WORDS, _WORDS),
)
_HOOKS = st.builds(
    lambda pieces, marker: " ".join(" ".join(pieces).split()) + marker,
    st.lists(_PIECES, min_size=0, max_size=24),
    st.sampled_from(["", " (missing)", " (local copy)"]),
)
_ENTRIES = st.lists(
    st.builds(
        Entry,
        st.sampled_from(["a", "kernel", "segment-nuclei", "lab/x"]),
        _HOOKS,
        st.sampled_from(["", "## P", "## Q"]),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(_ENTRIES, st.integers(min_value=0, max_value=400))
def test_hooks_are_shortened_exactly_as_the_longest_line_first_rule_and_the_give_back_say(entries, budget):
    kept = shorten_hooks(entries, budget)
    assert [e.hook for e in kept] == reference_shorten(entries, budget)
    assert [(e.doc_id, e.heading) for e in kept] == [(e.doc_id, e.heading) for e in entries]
    shortest = [replace(e, hook=_forms(e.hook)[-1]) for e in entries]
    if sum(len(line) + 1 for line in entry_lines(shortest)) <= budget:
        assert sum(len(line) + 1 for line in entry_lines(kept)) <= budget


def test_an_entry_without_a_hook_does_not_stop_a_budgeted_handshake():
    index = "# Docs\n\n## A\n- bare:\n" + "".join(
        f"- doc-{n:03d}: what doc {n} is for when the request names it, and more words here\n"
        for n in range(40)
    )
    text = compose_instructions(view_of(index), 2048)
    assert len(text) <= 2048
    assert "\n## A\n- bare:\n- doc-000: what doc 0 is for" in text


def test_a_clause_boundary_after_a_closed_bracket_still_cuts_and_a_comma_needs_a_space_after_it():
    assert hook_variants("open a file (CZI or ND2) with its metadata, then read its axes [t, z]") == (
        "open a file (CZI or ND2) with its metadata, then read its axes [t, z]",
        "open a file (CZI or ND2) with its metadata",
        "open a file with its metadata",
    )
    assert hook_variants("sizes in px,µm for every object measured; with units") == (
        "sizes in px,µm for every object measured; with units",
        "sizes in px,µm for every object measured",
    )


def test_a_hook_cut_between_words_keeps_its_marker_and_its_diff_call():
    assert word_cuts("one two three four five six seven (missing)") == (
        "one two three four five six… (missing)",
        "one two three four five… (missing)",
    )
    assert word_cuts('one two three four five six — read_doc("x@diff")') == (
        'one two three four five… — read_doc("x@diff")',
    )


def test_an_entry_is_a_frozen_value():
    entry = Entry("a", "first doc", "## P")
    assert {entry, Entry("a", "first doc", "## P")} == {entry}
    with pytest.raises(FrozenInstanceError):
        entry.hook = "changed"  # type: ignore[misc]


def _forms(hook: str) -> tuple[str, ...]:
    clauses = hook_variants(hook)
    return clauses + word_cuts(clauses[-1])


def _note(left_out: int) -> str:
    return (
        f"This copy is cut to fit this host: {left_out} index entries are left out below; "
        'read_doc("index") has them all.'
    )


_SECTIONS = st.lists(
    st.tuples(
        st.sampled_from(["## References", "## Procedures", "## Lab"]),
        st.lists(_HOOKS, min_size=1, max_size=5),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(_SECTIONS, st.integers(min_value=0, max_value=1400))
def test_a_budgeted_handshake_sends_the_most_of_the_index_that_fits_and_names_the_rest(sections, budget):
    text, number = "# Docs\n", 0
    for heading, hooks in sections:
        text += f"\n{heading}\n"
        for hook in hooks:
            text += f"- doc-{number}: {hook}\n".replace(": \n", ":\n")
            number += 1
    view = view_of(text)
    entries, full = index_entries(view), compose_instructions(view)
    shake = handshake(view, budget)
    sent = {e.doc_id: e.hook for e in parse_index(shake.text).entries}
    kept = [replace(e, hook=sent[e.doc_id]) for e in entries[: len(sent)]]
    assert (shake.budget, shake.length) == (budget, len(shake.text))
    assert len(shake.text) <= budget
    if len(full) <= budget:
        assert (shake.text, shake.left_out) == (full, ())
        return
    assert list(sent) == [e.doc_id for e in entries[: len(sent)]]
    assert shake.left_out == tuple(e.doc_id for e in entries[len(sent) :])
    assert all(e.hook in _forms(entry.hook) for e, entry in zip(kept, entries, strict=False))
    if not shake.left_out:
        assert shake.text == "\n".join([HEADER, *COMPACT_RULES, "", *entry_lines(kept)])
        for e, entry in zip(kept, entries, strict=True):
            at = _forms(entry.hook).index(e.hook)  # no hook is cut further than the budget needs
            assert at == 0 or len(shake.text) + len(_forms(entry.hook)[at - 1]) - len(e.hook) > budget
        return
    left = len(shake.left_out)
    if len("\n".join([HEADER, _note(len(entries)), *COMPACT_RULES, ""])) > budget:
        assert "\n".join([HEADER, _note(len(entries)), *COMPACT_RULES]).startswith(shake.text)
        return
    assert shake.text == "\n".join([HEADER, _note(left), *COMPACT_RULES, "", *entry_lines(kept)])
    assert [e.hook for e in kept] == [_forms(entry.hook)[-1] for entry in entries[: len(sent)]]
    one_more = [*kept, replace(entries[len(sent)], hook=_forms(entries[len(sent)].hook)[-1])]
    assert len("\n".join([HEADER, _note(left - 1), *COMPACT_RULES, "", *entry_lines(one_more)])) > budget


def test_a_compact_form_that_fits_the_budget_to_the_character_keeps_its_hooks_whole():
    view = view_of("# Docs\n\n## P\n- a: find the nuclei in a DAPI image, then count them\n")
    compact = "\n".join(
        [HEADER, *COMPACT_RULES, "", "## P", "- a: find the nuclei in a DAPI image, then count them"]
    )
    assert len(compose_instructions(view)) > len(compact)  # else the full form is sent
    assert compose_instructions(view, len(compact)) == compact
    assert compose_instructions(view, len(compact) - 1) == compact.replace(", then count them", "")


def test_hooks_cut_before_a_bigger_cut_each_get_their_room_back_from_the_top():
    a = Entry("a", "alpha beta gamma delta epsilon zeta eta theta, iota", "")
    b = Entry("b", "one two three four five six seven eight nine, ten", "")
    c = Entry("c", "red green blue, cyan magenta yellow black white", "")
    # a and b (the longer lines) are cut first, then c's cut is needed and leaves room for both.
    assert [e.hook for e in shorten_hooks([a, b, c], 140)] == [a.hook, b.hook, "red green blue"]
    assert [e.hook for e in shorten_hooks([a, b, c], 127)] == [a.hook, b.hook[:-5], "red green blue"]
    # 5 left over: not a's 6, but b's 5 fit.
    assert [e.hook for e in shorten_hooks([a, b, c], 126)] == [a.hook[:-6], b.hook, "red green blue"]


SHORT_HOOKS = (
    "find the nuclei",
    "count the foci",
    "track the cells",
    "stitch the tiles",
    "correct the shading",
    "unmix the channels",
    "register the frames",
    "save the masks",
    "check the segmentation",
    "measure in µm",
)
SHORT_LINES = [f"- doc-{n}: {hook}" for n, hook in enumerate(SHORT_HOOKS)]
SHORT_INDEX = "# Docs\n\n## P\n" + "".join(f"{line}\n" for line in SHORT_LINES)


def compact_of_short(kept: int, left_out: int = 0) -> str:
    note = [_note(left_out)] if left_out else []
    return "\n".join([HEADER, *note, *COMPACT_RULES, "", "## P", *SHORT_LINES[:kept]])


def test_entries_are_left_out_only_when_they_do_not_fit_to_the_character():
    view = view_of(SHORT_INDEX)
    full = compose_instructions(view)
    assert (len(full), len(compact_of_short(10)), len(compact_of_short(6, 4))) == (993, 645, 640)
    assert (compose_instructions(view, 993), handshake(view, 993).left_out) == (full, ())
    assert compose_instructions(view, 992) == compact_of_short(10)
    assert (compose_instructions(view, 645), handshake(view, 645).left_out) == (compact_of_short(10), ())
    for budget in (644, 640):
        assert compose_instructions(view, budget) == compact_of_short(6, 4)
        assert handshake(view, budget).left_out == ("doc-6", "doc-7", "doc-8", "doc-9")
    assert compose_instructions(view, 639) == compact_of_short(5, 5)


def test_inlined_docs_are_sent_in_whole_lines_and_only_once_a_docs_read_doc_line_fits():
    view = view_of(SHORT_INDEX)
    bodies = [("kernel", "# Kernel\n\nWhat the kernel holds.\n")]
    index = compact_of_short(10)
    whole = [index, "", INLINED_TITLE, "", '### read_doc("kernel")', "# Kernel", "", "What the kernel holds."]
    prefixes = ["\n".join(whole[:n]).rstrip("\n") for n in range(5, len(whole) + 1)]
    assert len(prefixes[-1]) < 993  # the compact index is sent at every budget below
    for budget in range(len(index), len(prefixes[-1]) + 2):
        expected = max((p for p in prefixes if len(p) <= budget), key=len, default=index)
        assert compose_instructions(view, budget, inlined=bodies) == expected, budget


def test_an_index_that_could_not_load_is_cut_to_whole_lines_and_a_tiny_budget_to_the_header():
    problem = 'The index could not be loaded (the kernel did not start). Call read_doc("index") to retry.'
    lines = [HEADER, problem, *RULES]
    for n in range(2, len(lines) + 1):
        fits = "\n".join(lines[:n])
        assert compose_instructions(None, len(fits), problem="the kernel did not start") == fits
        assert compose_instructions(None, len(fits) - 1, problem="the kernel did not start") == "\n".join(
            lines[: n - 1]
        )
    assert compose_instructions(None, 20, problem="the kernel did not start") == HEADER[:20]
    assert compose_instructions(view_of(INDEX), 20) == HEADER[:20]
