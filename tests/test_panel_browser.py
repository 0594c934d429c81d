"""The JupyterLab panel end to end: a real ``jupyter lab`` on loopback, Debian's chromium driven by
Playwright, an agent's writes made through the real MCP server.

One lab and one browser page serve the whole module (starting them is most of the cost); each
test plants what it checks and reads the truth from disk. Screenshots go to ``test-artifacts/``
for a person to look at.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from playwright.sync_api import expect

from .kernels import kernel_env, mcp_server
from .panel_support import (
    PANEL,
    PUSH_BOUND_S,
    SHIPPED,
    VISIBLE_VIEWER,
    Agent,
    Lab,
    allow_errors,
    assert_no_errors,
    close_all_tabs,
    index_entry,
    launch_browser,
    new_item,
    open_lab,
    open_lab_page,
    record_latency,
    review_item,
    run_command,
    screenshot,
    set_theme,
    start_lab,
    stop_lab,
    tidy_for_a_picture,
    wait_ready,
    watch_errors,
)

# Each payload sets window.__biopbPwned if it ever runs.
HOSTILE = """\
# Hostile

<script>window.__biopbPwned = "script";</script>

<img src="does-not-exist.png" onerror="window.__biopbPwned = 'onerror'">

<a href="javascript:window.__biopbPwned = 'href'">a javascript: link</a>

<div onmouseover="window.__biopbPwned = 'mouseover'">hover me</div>

The text after the payloads.
"""


# tests/test_handlers.py loads pytest-jupyter for the whole session, and two of its autouse
# fixtures would break this module: one takes the current event loop (here the one Playwright's
# sync API keeps running) and closes it after each test, the other runs a server cleanup on that
# loop. This module starts no pytest-jupyter server, so both stand down here.
@pytest.fixture(autouse=True)
def jp_asyncio_loop():
    return None


@pytest.fixture(autouse=True)
def jp_server_cleanup():
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with launch_browser() as launched:
        yield launched


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[Lab]:
    started = start_lab(tmp_path_factory.mktemp("lab"))
    try:
        wait_ready(started)
        yield started
    finally:
        stop_lab(started)


@pytest.fixture(scope="module")
def page(browser, lab):
    opened = open_lab(browser, lab)
    watch_errors(opened)
    yield opened
    opened.context.close()


@pytest.fixture(autouse=True)
def no_page_errors(request):
    """Every test on the shared page fails on a page error, a console error or a blanked panel."""
    yield
    if "page" in request.fixturenames:
        assert_no_errors(request.getfixturevalue("page"))


# -- the panel ---------------------------------------------------------------------------------


def test_panel_shows_the_index_entries_the_cap_and_a_new_shipped_item(page, lab):
    for doc_id, heading in (
        ("data", "References"),
        ("flatfield", "Procedures"),
        ("stitch-tiles", "Procedures"),
    ):
        entry = index_entry(page, doc_id)
        entry.wait_for()
        group = entry.locator("xpath=ancestor::div[contains(@class, 'jp-biopbDocs-Group')]")
        assert group.locator(".jp-biopbDocs-Heading").inner_text() == heading
    hook = index_entry(page, "flatfield").locator(".jp-biopbDocs-Hook").inner_text()
    assert hook == "my images are darker at the corners"
    assert "3 of 200 entries" in page.locator(f"{PANEL} .jp-biopbDocs-Capacity").inner_text()
    item = new_item(page, "segment-nuclei")
    assert "find the nuclei in a DAPI image" in item.inner_text()
    assert new_item(page, "count-foci").count() == 1
    screenshot(page, "panel-first-look.png")


CONTROLS = "button:not([disabled]), select:not([disabled]), input:not([disabled]), summary"


def test_every_control_of_the_panel_is_reached_with_tab_in_order_and_works_with_the_keyboard(page, lab):
    count = page.evaluate(
        """([panel, controls]) => {
            const all = [...document.querySelector(panel).querySelectorAll(controls)];
            window.__biopbControls = all.filter(node => node.offsetParent !== null);
            return window.__biopbControls.length;
        }""",
        [PANEL, CONTROLS],
    )
    assert count >= 12  # two actions, the handshake, four section toggles, entries, two tail items
    page.evaluate("() => window.__biopbControls[0].focus()")
    for n in range(1, count):
        page.keyboard.press("Tab")
        reached = page.evaluate(f"() => document.activeElement === window.__biopbControls[{n}]")
        label = page.evaluate(f"() => window.__biopbControls[{n}].textContent.trim()")
        assert reached, f"Tab did not reach control {n} ({label!r}) next"
    # a section folds and unfolds from the keyboard
    toggle = page.locator(f"{PANEL} .jp-biopbDocs-Section-index .jp-biopbDocs-SectionToggle")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(index_entry(page, "flatfield")).to_be_hidden()
    page.keyboard.press("Space")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    # an entry opens from the keyboard, and so does the connect dialog (which says what it needs)
    index_entry(page, "data").get_by_role("button", name="data").focus()
    page.keyboard.press("Enter")
    expect(page.locator(VISIBLE_VIEWER)).to_contain_text("Arrays are laid out (t, c, z, y, x).")
    page.locator(PANEL).get_by_role("button", name="Connect an agent").focus()
    page.keyboard.press("Enter")
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Open a notebook (or click into one) first")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def test_a_refusal_replaced_by_the_next_and_dismissed_never_blanks_the_panel(page, lab):
    # Rough edge 1: the refusal's effect returned scrollIntoView's Promise, which React called as
    # its cleanup when a second refusal replaced the first, or on Dismiss: the panel went blank.
    index = lab.local / "index.md"
    before = index.read_bytes() if index.exists() else None
    item = new_item(page, "count-foci")
    item.get_by_label("Heading to file count-foci under").select_option(label="New heading…")
    refusal = page.locator(f"{PANEL} .jp-biopbDocs-Refusal")
    for length in (1_100, 1_300):  # each heading over the 1 KiB cap of an index line
        item.get_by_label("Name of the new heading").fill("x" * length)
        item.get_by_role("button", name=re.compile("^File under")).click()
        expect(refusal).to_contain_text(f"a line of {length:,} bytes in the index")
        expect(refusal).to_contain_text("Nothing was written. Choose a shorter heading.")
        assert_no_errors(page)  # the first refusal, then its replacement
    refusal.get_by_role("button", name="Dismiss").click()
    expect(refusal).to_have_count(0)
    assert_no_errors(page)
    expect(item).to_be_visible()  # the panel is whole: the item waits to be filed or ignored
    assert (index.read_bytes() if index.exists() else None) == before  # nothing was written
    item.get_by_label("Heading to file count-foci under").select_option(label="Procedures")
    for close in page.locator(".Toastify__close-button").all():
        close.click()


def test_ignore_puts_the_doc_on_the_ignored_line_and_the_item_leaves_the_tail(page, lab):
    item = new_item(page, "count-foci")
    item.get_by_role("button", name="Ignore").click()
    item.wait_for(state="detached")
    index = lab.local_text("index")
    assert re.search(r"^ignored:.*\bcount-foci\b", index, re.MULTILINE), index
    assert "- count-foci:" not in index
    ignored = page.locator(f"{PANEL} .jp-biopbDocs-Ignored")
    assert ignored.get_by_role("button", name="count-foci").count() == 1


def test_file_under_a_chosen_heading_adds_its_entry_there(page, lab):
    item = new_item(page, "segment-nuclei")
    item.get_by_label("Heading to file segment-nuclei under").select_option(label="References")
    item.get_by_role("button", name="File under References").click()
    item.wait_for(state="detached")
    entry = index_entry(page, "segment-nuclei")
    entry.wait_for()
    group = entry.locator("xpath=ancestor::div[contains(@class, 'jp-biopbDocs-Group')]")
    assert group.locator(".jp-biopbDocs-Heading").inner_text() == "References"
    lines = lab.local_text("index").split("\n")
    filed = lines.index("- segment-nuclei: find the nuclei in a DAPI image")
    assert lines.index("## References") < filed < lines.index("## Procedures")


def test_an_empty_tail_says_why_it_is_empty(page, lab):
    for item in page.locator(f"{PANEL} .jp-biopbDocs-Section-new [data-doc-id]").all():
        item.get_by_role("button", name="Ignore").click()
        item.wait_for(state="detached")
    section = page.locator(f"{PANEL} .jp-biopbDocs-Section-new")
    expect(section).to_contain_text("every shipped doc is either filed in the index or on its ignored: line")
    stale = page.locator(f"{PANEL} .jp-biopbDocs-Section-stale")
    expect(stale).to_contain_text("no local copy shadows a shipped doc that this release changed")


# -- what the agent changed ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def agent(lab) -> Iterator[Agent]:
    params = mcp_server(lab.home, "--docs-local-dir", str(lab.local), "--shipped-dir", str(lab.shipped))
    session = Agent(params)
    yield session
    session.close()


def _reviewed_docs(lab):
    from biopb_kernel_docs import __version__
    from biopb_kernel_docs.core.review import ReviewedDocs
    from biopb_kernel_docs.core.store import Store

    return ReviewedDocs(Store(lab.shipped, lab.local, __version__))


def _review_diff(page):
    return page.locator(".jp-biopbDocs-ReviewDiff:visible")


def test_an_agents_change_shows_who_made_it_and_is_reverted_side_by_side_then_the_copy_dropped(
    page, lab, agent
):
    _, returned = agent.call(
        "write_doc",
        id="stitch-tiles",
        old="Place the tiles on one canvas.",
        new="Place the tiles on a 10 % overlap grid.",
    )
    item = review_item(page, "stitch-tiles")
    item.wait_for(timeout=10_000)
    latency = record_latency("agent write (MCP) to review item shown", returned)
    assert latency < PUSH_BOUND_S, f"the agent's write took {latency:.3f} s to show in the panel"
    assert "a local copy, against the shipped text" in item.inner_text()
    # who and when, from the history: the MCP client as it declared itself, via MCP
    who = item.locator(".jp-biopbDocs-ReviewWho")
    expect(who).to_have_text(re.compile(r"^1 change \(\+1 \u22121 lines\) by .+ via MCP, just now \(v2\)$"))

    item.get_by_role("button", name="Show changes").click()
    diff = _review_diff(page)
    expect(diff.locator(".jp-biopbDocs-MergeLabel-before")).to_have_text("The shipped text")
    expect(diff.locator(".cm-merge-a .cm-content")).to_contain_text("Place the tiles on one canvas.")
    expect(diff.locator(".cm-merge-b .cm-content")).to_contain_text("Place the tiles on a 10 % overlap grid.")
    assert "10 % overlap" not in diff.locator(".cm-merge-a .cm-content").inner_text()
    bar = diff.locator('.jp-biopbDocs-HunkBar-before[data-hunk="0"]')
    expect(bar).to_have_text(re.compile(r"^Change 1 of 1, by .+ via MCP, just now \(v2\)$"))
    diff.get_by_role("button", name="Revert change 1").click()
    expect(diff.locator(".jp-biopbDocs-HunkBar")).to_have_count(0)
    assert lab.local_text("stitch-tiles") == SHIPPED["stitch-tiles"]
    # The copy now equals the shipped text: nothing to revert, a copy to drop.
    expect(diff).to_contain_text("has the shipped text again")
    expect(item).to_contain_text("has the shipped text again")
    diff.get_by_role("button", name="Drop the local copy").click()
    item.wait_for(state="detached")
    expect(diff.locator(".jp-biopbDocs-ReviewDone")).to_have_text("Nothing left to review in stitch-tiles.")
    assert not (lab.local / "stitch-tiles.md").exists()
    expect(index_entry(page, "stitch-tiles").locator(".jp-biopbDocs-Marker")).to_have_count(0)


def test_a_doc_the_agent_created_is_retired_and_the_index_change_kept(page, lab, agent):
    _, returned = agent.call(
        "write_doc", id="my-lab/nuclei", body="# Nuclei, the lab's way\n\nOtsu, then watershed.\n"
    )
    created = review_item(page, "my-lab/nuclei")
    created.wait_for(timeout=10_000)
    record_latency("agent creates a doc (MCP) to review item shown", returned)
    assert created.inner_text().count("a new doc") == 1
    expect(created.locator(".jp-biopbDocs-ReviewWho")).to_contain_text("via MCP, just now (v1)")
    expect(created.get_by_role("button", name="Revert")).to_have_count(0)  # a new doc is retired instead

    review_item(page, "index").get_by_role("button", name="Show changes").click()
    diff = _review_diff(page)
    expect(diff.locator(".cm-merge-b .cm-content")).to_contain_text("- my-lab/nuclei: Otsu, then watershed.")
    # the hunk that filed it, as the store numbers it (the panel's Keep names that number)
    (index,) = (item for item in _reviewed_docs(lab).review().items if item.id == "index")
    (n,) = (h.index for h in index.hunks if "+- my-lab/nuclei: Otsu, then watershed." in h.lines)
    expect(diff.locator(f'.jp-biopbDocs-HunkBar-before[data-hunk="{n}"]')).to_contain_text("via MCP")
    diff.get_by_role("button", name=f"Keep change {n + 1}").click()
    expect(diff.locator(".jp-biopbDocs-HunkBar-after")).to_have_count(len(index.hunks) - 1)
    reviewed = (lab.local / ".review" / "index.md").read_text(encoding="utf-8")
    assert "- my-lab/nuclei: Otsu, then watershed." in reviewed
    assert "- my-lab/nuclei: Otsu, then watershed." in lab.local_text("index")  # Keep writes no doc

    created.get_by_role("button", name="Retire").click()
    index_entry(page, "my-lab/nuclei").wait_for(state="detached")
    assert "my-lab/nuclei" not in lab.local_text("index")
    assert lab.local_text("my-lab/nuclei") == "# Nuclei, the lab's way\n\nOtsu, then watershed.\n"


# -- docs in the main area ----------------------------------------------------------------------


def test_clicking_an_entry_renders_the_doc_and_its_link_opens_the_linked_doc(page, lab):
    index_entry(page, "flatfield").get_by_role("button", name="flatfield").click()
    viewer = page.locator(VISIBLE_VIEWER)
    rendered = viewer.locator(".jp-RenderedMarkdown")
    expect(rendered.get_by_role("heading", level=1)).to_have_accessible_name("Flatfield")
    expect(rendered.get_by_role("heading", level=2)).to_have_accessible_name("Steps")
    assert viewer.locator(".jp-RenderedMarkdown ol li").all_inner_texts() == [
        "Estimate the flat field from the image.",
        "Divide by it.",
    ]
    # the frontmatter is folded away, not rendered as prose
    assert "description:" not in viewer.locator(".jp-RenderedMarkdown").inner_text()
    # a [[link]] in code stays text; the one in prose is a button
    assert "[[not-a-link]]" in viewer.locator(".jp-RenderedMarkdown pre").inner_text()
    assert viewer.locator(".jp-biopbDocs-DocLink").count() == 1
    viewer.locator('.jp-biopbDocs-DocLink[data-doc-id="stitch-tiles"]').click()
    linked = page.locator(VISIBLE_VIEWER)
    expect(linked.locator(".jp-RenderedMarkdown").get_by_role("heading", level=1)).to_have_accessible_name(
        "Stitch tiles"
    )
    assert "Place the tiles on one canvas." in linked.inner_text()


def test_editing_a_shipped_doc_says_it_makes_a_local_copy_and_saving_makes_one(page, lab):
    # filed by an earlier test or still in the new-shipped tail: a shipped doc with no local copy
    assert not (lab.local / "segment-nuclei.md").exists()
    run_command(page, "biopb-docs:open-doc", {"id": "segment-nuclei"})
    viewer = page.locator(VISIBLE_VIEWER)
    viewer.get_by_role("button", name="Edit (makes a local copy)").click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Editing it creates a local copy in your docs directory when you save")
    dialog.get_by_role("button", name="Edit a local copy").click()
    editor = page.locator(".jp-biopbDocs-Editor:visible")
    expect(editor).to_contain_text("This is a shipped doc.")
    expect(editor.locator(".cm-content")).to_contain_text("Otsu.")
    editor.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("Check the outlines at full resolution.\n")
    editor.get_by_role("button", name="Save", exact=True).click()
    expect(editor.get_by_role("button", name="Saved", exact=True)).to_be_visible()
    assert (
        lab.local_text("segment-nuclei")
        == SHIPPED["segment-nuclei"] + "Check the outlines at full resolution.\n"
    )
    assert (lab.shipped / "segment-nuclei.md").read_text(encoding="utf-8") == SHIPPED["segment-nuclei"]
    expect(editor).to_contain_text("Editing your local doc")  # the next save updates the copy
    page.locator(".lm-TabBar-tab", has_text="segment-nuclei: Segment nuclei").first.click()
    expect(viewer).to_contain_text("your local copy, shadowing the shipped doc")  # pushed to the viewer
    expect(viewer).to_contain_text("Check the outlines at full resolution.")


def test_a_docs_script_and_event_handlers_never_run(page, lab):
    (lab.local / "hostile.md").write_text(HOSTILE, encoding="utf-8")
    run_command(page, "biopb-docs:open-doc", {"id": "hostile"})
    viewer = page.locator(VISIBLE_VIEWER)
    expect(viewer).to_contain_text("The text after the payloads.")
    rendered = viewer.locator(".jp-RenderedMarkdown")
    # The image is kept (without its handler); wait until its load has failed, so onerror had its chance.
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-biopbDocs-Viewer img')].some(i => i.complete)"
    )
    rendered.get_by_text("hover me").hover()
    rendered.get_by_text("a javascript: link").click()
    assert page.evaluate("() => window.__biopbPwned === undefined")
    assert rendered.locator("script, [onerror], [onmouseover]").count() == 0
    allow_errors(page, "does-not-exist.png")  # the image's own 404, which the payload needs
    # The check can fail: the same payload, put in the page without the sanitizer, runs.
    page.evaluate(
        """() => {
            const probe = document.createElement('div');
            probe.innerHTML = '<img src="does-not-exist.png" onerror="window.__biopbControl = 1">';
            document.body.appendChild(probe);
        }"""
    )
    page.wait_for_function("() => window.__biopbControl === 1")


def test_a_doc_changed_on_disk_shows_in_the_panel_and_its_viewer_within_a_second(page, lab):
    index_entry(page, "data").get_by_role("button", name="data").click()
    viewer = page.locator(VISIBLE_VIEWER)
    expect(viewer).to_contain_text("Arrays are laid out (t, c, z, y, x).")
    started = time.monotonic()
    (lab.local / "data.md").write_text("# Data\n\nChanged on disk by an editor.\n", encoding="utf-8")
    expect(viewer).to_contain_text("Changed on disk by an editor.", timeout=10_000)
    latency = record_latency("doc file written on disk to viewer updated", started)
    assert latency < PUSH_BOUND_S, f"the viewer took {latency:.3f} s to show the change"
    expect(index_entry(page, "data").locator(".jp-biopbDocs-Marker")).to_have_text("(local copy)")

    index = lab.local_text("index")
    started = time.monotonic()
    (lab.local / "index.md").write_text(
        index.replace("## References\n", "## References\n- disk-note: an entry added in a text editor\n"),
        encoding="utf-8",
    )
    index_entry(page, "disk-note").wait_for(timeout=10_000)
    latency = record_latency("index.md written on disk to panel entry shown", started)
    assert latency < PUSH_BOUND_S, f"the panel took {latency:.3f} s to show the new entry"
    expect(index_entry(page, "disk-note").locator(".jp-biopbDocs-Marker")).to_have_text("(missing)")


# -- search, and a doc opened at a section --------------------------------------------------------

LONG_READ = "# Long read\n\nWhy this doc is long.\n\n" + "".join(
    f"## Part {n}\n\n"
    + ("The quokka token lives here.\n\n" if n == 7 else "")
    + "".join(f"Line {k} of part {n}.\n\n" for k in range(30 if n == 8 else 6))  # room to scroll to Part 7
    for n in range(1, 9)
)


def _assert_scrolled_to(viewer, heading) -> None:
    """The heading is the one marked, at the top of the viewer, which scrolled to bring it there."""
    expect(heading).to_have_class(re.compile(r"\bjp-biopbDocs-mod-target\b"))
    assert viewer.locator(".jp-biopbDocs-mod-target").count() == 1
    assert viewer.evaluate("node => node.scrollTop") > 0
    top = heading.bounding_box()["y"] - viewer.bounding_box()["y"]
    assert 0 <= top < 60, f"the heading is {top:.0f} px below the viewer's top"


def test_search_finds_a_line_and_opens_the_doc_at_its_section_from_the_keyboard(page, lab, agent):
    agent.call("write_doc", id="long-read", body=LONG_READ)
    index_entry(page, "long-read").wait_for()
    box = page.locator(PANEL).get_by_role("searchbox", name="Search the docs")
    box.focus()
    page.keyboard.type("quokka")
    page.keyboard.press("Enter")
    group = page.locator(f"{PANEL} .jp-biopbDocs-SearchGroup")
    expect(group).to_have_count(1)
    expect(group).to_have_attribute("data-doc-id", "long-read")
    expect(group.locator(".jp-biopbDocs-SearchTarget")).to_have_text(
        "long-read\u00a7 Long read \u203a Part 7"
    )
    line = LONG_READ.split("\n").index("The quokka token lives here.") + 1
    expect(group.locator(".jp-biopbDocs-SearchLine")).to_have_text(f"L{line}The quokka token lives here.")
    expect(group.locator("mark")).to_have_text("quokka")
    expect(page.locator(f"{PANEL} .jp-biopbDocs-SearchSummary")).to_contain_text(
        "1 matching line in 1 doc of"
    )
    for _ in range(6):  # Tab from the box reaches the result
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.classList.contains('jp-biopbDocs-SearchTarget')"):
            break
    else:
        pytest.fail("Tab never reached the search result")
    page.keyboard.press("Enter")
    viewer = page.locator(VISIBLE_VIEWER)
    expect(viewer.locator(".jp-biopbDocs-SectionNote")).to_have_text(
        "Opened at \u00a7 8 of 9: Long read \u203a Part 7"
    )
    _assert_scrolled_to(viewer, viewer.locator(".jp-RenderedMarkdown h2", has_text="Part 7"))

    # a pattern RE2 refuses is said under the box; Escape in the box clears the search
    page.locator(PANEL).get_by_label("regex").check()
    box.fill("(quokka")
    box.press("Enter")
    expect(page.locator(f"{PANEL} .jp-biopbDocs-Search .jp-biopbDocs-Error")).to_contain_text(
        "not a pattern RE2 accepts"
    )
    box.press("Escape")
    expect(page.locator(f"{PANEL} .jp-biopbDocs-Search .jp-biopbDocs-Error")).to_have_count(0)
    expect(box).to_have_value("")
    page.locator(PANEL).get_by_label("regex").uncheck()


def test_a_section_link_and_a_section_id_open_the_doc_at_that_section(page, lab, agent):
    agent.call("write_doc", id="reading-list", body="# Reading list\n\nSee [[long-read#Part 3]] first.\n")
    run_command(page, "biopb-docs:open-doc", {"id": "reading-list"})
    link = page.locator(VISIBLE_VIEWER).locator('.jp-biopbDocs-DocLink[data-doc-id="long-read#Part 3"]')
    link.click()
    viewer = page.locator(VISIBLE_VIEWER)
    note = viewer.locator(".jp-biopbDocs-SectionNote")
    expect(note).to_have_text("Opened at \u00a7 4 of 9: Long read \u203a Part 3")
    _assert_scrolled_to(viewer, viewer.locator(".jp-RenderedMarkdown h2", has_text="Part 3"))

    run_command(page, "biopb-docs:open-doc", {"id": "long-read#part 5"})  # matching ignores case
    _assert_scrolled_to(viewer, viewer.locator(".jp-RenderedMarkdown h2", has_text="Part 5"))
    run_command(page, "biopb-docs:open-doc", {"id": "long-read#Part 99"})
    expect(note).to_contain_text("No section 'Part 99' in 'long-read'")
    assert viewer.locator(".jp-biopbDocs-mod-target").count() == 0


# -- a doc's history ------------------------------------------------------------------------------


def test_a_docs_history_says_who_changed_it_compares_two_versions_and_restores_one(page, lab, agent):
    agent.call("write_doc", id="lab-notes", body="# Lab notes\n\nUse the 20x objective.\n")
    agent.call("write_doc", id="lab-notes", old="20x", new="40x")
    run_command(page, "biopb-docs:show-history", {"id": "lab-notes"})
    history = page.locator(".jp-biopbDocs-History:visible")
    rows = history.locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(history).to_contain_text("at most 100 versions and 2 MiB per doc are kept")
    newest, first = rows.nth(0), rows.nth(1)
    expect(newest).to_contain_text(re.compile(r"^v2just now.+ via MCP\+1 \u22121 linescurrent$"))
    expect(first).to_contain_text(re.compile(r"^v1just now.+ via MCP3 lines"))  # its first text

    first.get_by_role("button", name="Compare v1 with now").click()
    versions = page.locator(".jp-biopbDocs-ReviewDiff:visible")
    expect(versions.locator(".jp-biopbDocs-MergeLabel-before")).to_have_text(
        re.compile(r"^v1 · just now · .+ via MCP$")
    )
    expect(versions.locator(".jp-biopbDocs-MergeLabel-after")).to_have_text("Now (the current text)")
    expect(versions.locator(".cm-merge-a .cm-content")).to_contain_text("Use the 20x objective.")
    expect(versions.locator(".cm-merge-b .cm-content")).to_contain_text("Use the 40x objective.")

    page.locator(".lm-TabBar-tab", has_text="lab-notes: history").click()
    sha = hashlib.sha256((lab.local / "lab-notes.md").read_bytes()).hexdigest()
    with page.expect_request(lambda r: urlparse(r.url).path.endswith("/api/ops/restore_doc")) as sent:
        first.get_by_role("button", name="Restore v1").click()
        dialog = page.locator(".jp-Dialog")
        expect(dialog).to_contain_text("Restore v1 of lab-notes?")
        dialog.get_by_role("button", name="Restore").click()
    assert json.loads(sent.value.post_data) == {"id": "lab-notes", "version": 1, "if_match": sha}
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text(re.compile(r"^v3just nowpanel as .+restored v1current$"))
    assert lab.local_text("lab-notes") == "# Lab notes\n\nUse the 20x objective.\n"


# -- editing through the store ------------------------------------------------------------------


def _editor_text(editor) -> str:
    return "\n".join(editor.locator(".cm-line").all_inner_texts())


def test_edit_index_saves_through_the_store_and_a_stale_save_loses_nothing(page, lab):
    page.locator(PANEL).get_by_role("button", name="Edit index").click()
    editor = page.locator(".jp-biopbDocs-Editor:visible")
    content = editor.locator(".cm-content")
    expect(content).to_contain_text("# Lab docs")
    content.click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("## Typed\n- typed-entry: typed in the editor\n")
    page.keyboard.press("Control+s")
    expect(editor.get_by_role("button", name="Saved", exact=True)).to_be_visible()
    assert lab.local_text("index").endswith("## Typed\n- typed-entry: typed in the editor\n")
    index_entry(page, "typed-entry").wait_for()

    page.keyboard.insert_text("- second-entry: typed later\n")
    on_disk = lab.local_text("index").replace(
        "## References\n", "## References\n- from-disk: another writer\n"
    )
    (lab.local / "index.md").write_text(on_disk, encoding="utf-8")
    expect(editor).to_contain_text("changed on disk since you opened it")
    page.keyboard.press("Control+s")
    # Said once, in the editor's words: one banner, starting with a capital, naming no hash.
    warning = editor.locator(".jp-biopbDocs-Warning")
    expect(warning).to_contain_text("Not saved: index.md changed on disk since you opened it")
    expect(editor.get_by_role("button", name="Save", exact=True)).to_be_enabled()
    assert lab.local_text("index") == on_disk  # the other writer's text stands
    assert "- second-entry: typed later" in _editor_text(editor)
    said = warning.inner_text()
    assert said[0].isupper(), said
    assert not re.search(r"[0-9a-f]{8,}", said), said
    assert editor.locator(".jp-biopbDocs-Error").count() == 0
    assert page.locator(".Toastify__toast", has_text="not saved").count() == 0

    editor.get_by_role("button", name="Show what changed").click()
    changes = page.locator(".jp-biopbDocs-ChangedOnDisk:visible")
    expect(changes.locator(".jp-biopbDocs-MergeLabel-after")).to_have_text("On disk now")
    expect(changes.locator(".cm-merge-b .cm-content")).to_contain_text("- from-disk: another writer")
    assert "from-disk" not in changes.locator(".cm-merge-a .cm-content").inner_text()
    assert "second-entry" not in changes.inner_text()  # what changed on disk, not the user's edit

    page.locator(".lm-TabBar-tab", has_text="index.md").first.click()
    editor.get_by_role("button", name="Reload (your edits are set aside)").click()
    aside = page.locator(".jp-biopbDocs-Aside:visible")
    expect(aside).to_contain_text("- second-entry: typed later")
    page.locator(".lm-TabBar-tab", has_text="index.md").first.click()
    expect(editor.locator(".cm-content")).to_contain_text("- from-disk: another writer")
    assert "second-entry" not in _editor_text(editor)


def test_typing_while_the_editor_reloads_the_doc_loses_nothing(page, lab):
    # The doc changes on disk and the user reloads; the reload's answer is held here until the user
    # has typed, as a slow server would hold it. What was typed stays, and its save is refused.
    lab.local.mkdir(parents=True, exist_ok=True)
    (lab.local / "draft-notes.md").write_text("# Draft\n\nFirst.\n", encoding="utf-8")
    run_command(page, "biopb-docs:edit-doc", {"id": "draft-notes"})
    editor = page.locator(".jp-biopbDocs-Editor:visible")
    content = editor.locator(".cm-content")
    expect(content).to_contain_text("First.")
    held = []

    def draft(url: str) -> bool:
        return urlparse(url).path.endswith("/biopb-kernel-docs/api/docs/draft-notes")

    page.route(draft, lambda route: held.append(route) if route.request.method == "GET" else route.fallback())
    try:
        (lab.local / "draft-notes.md").write_text("# Draft\n\nFirst.\nFrom disk.\n", encoding="utf-8")
        editor.get_by_role("button", name="Reload", exact=True).click()
        deadline = time.monotonic() + 30
        while not held and time.monotonic() < deadline:
            page.wait_for_timeout(50)  # the route's handler runs while the page waits
        assert held, "the reload never asked for the doc"
        content.click()
        page.keyboard.press("Control+End")
        page.keyboard.insert_text("Typed while it loaded.\n")
        for route in held:
            route.continue_()
        expect(editor).to_contain_text("changed on disk since you opened it")
        assert "Typed while it loaded." in _editor_text(editor)
        page.keyboard.press("Control+s")
        expect(editor.locator(".jp-biopbDocs-Warning")).to_contain_text("Not saved: draft-notes.md changed")
        expect(editor.get_by_role("button", name="Save", exact=True)).to_be_enabled()
        assert lab.local_text("draft-notes") == "# Draft\n\nFirst.\nFrom disk.\n"
        assert "Typed while it loaded." in _editor_text(editor)
    finally:
        page.unroute(draft)
    editor.get_by_role("button", name="Reload (your edits are set aside)").click()
    expect(page.locator(".jp-biopbDocs-Aside:visible")).to_contain_text("Typed while it loaded.")
    page.locator(".lm-TabBar-tab", has_text="draft-notes.md").first.click()
    expect(editor.locator(".cm-content")).to_contain_text("From disk.")  # clean again: closes freely


def test_two_tabs_of_one_user_never_overwrite_each_others_saves(page, lab):
    # One user's tabs are one caller to the store, whose memory of what it read cannot tell them
    # apart: each editor sends the sha256 of the text it loaded as if_match, always.
    lab.local.mkdir(parents=True, exist_ok=True)
    (lab.local / "shared-notes.md").write_text("# Shared notes\n\nFirst line.\n", encoding="utf-8")
    loaded = hashlib.sha256((lab.local / "shared-notes.md").read_bytes()).hexdigest()
    other = open_lab_page(page.context, lab)
    watch_errors(other)
    sent: list[dict] = []
    editors = []
    for tab in (page, other):
        tab.on(
            "request",
            lambda request: (
                sent.append(json.loads(request.post_data))
                if request.method == "PUT" and urlparse(request.url).path.endswith("/api/docs/shared-notes")
                else None
            ),
        )
        run_command(tab, "biopb-docs:edit-doc", {"id": "shared-notes"})
        editor = tab.locator(".jp-biopbDocs-Editor:visible")
        expect(editor.locator(".cm-content")).to_contain_text("First line.")
        editors.append(editor)
    for tab, editor, line in (
        (page, editors[0], "From the first tab."),
        (other, editors[1], "From the second."),
    ):
        editor.locator(".cm-content").click()
        tab.keyboard.press("Control+End")
        tab.keyboard.insert_text(f"{line}\n")
    page.keyboard.press("Control+s")
    expect(editors[0].get_by_role("button", name="Saved", exact=True)).to_be_visible()
    other.keyboard.press("Control+s")
    expect(editors[1].locator(".jp-biopbDocs-Warning")).to_contain_text(
        "Not saved: shared-notes.md changed on disk since you opened it"
    )
    assert lab.local_text("shared-notes") == "# Shared notes\n\nFirst line.\nFrom the first tab.\n"
    assert [body.get("if_match") for body in sent] == [loaded, loaded]
    assert "From the second." in _editor_text(editors[1])  # nothing typed is lost
    assert_no_errors(other)
    other.close()


# -- the handshake cut, the empty states, the themes --------------------------------------------


def test_where_a_2048_character_host_cuts_the_index_is_marked(page, lab):
    from biopb_kernel_docs import __version__
    from biopb_kernel_docs.core.ops import Docs
    from biopb_kernel_docs.core.store import Store
    from biopb_kernel_docs.surfaces import operations

    hooks = "\n".join(
        f"- long-{n:02d}: a hook long enough that a small host runs out of room, number {n}"
        for n in range(40)
    )
    text = lab.local_text("index").replace("## Procedures\n", f"## Procedures\n{hooks}\n")
    (lab.local / "index.md").write_text(text, encoding="utf-8")
    index_entry(page, "long-39").wait_for()
    docs = Docs(Store(lab.shipped, lab.local, __version__))
    truth = operations.run(docs, "handshake", {"budget": 2048})
    assert truth.left_out, "the planted index should not fit in 2,048 characters"
    cut = page.locator(f"{PANEL} .jp-biopbDocs-Entry.jp-biopbDocs-mod-cut")
    assert cut.evaluate_all("nodes => nodes.map(n => n.dataset.docId)") == list(truth.left_out)
    first = page.locator(f'{PANEL} .jp-biopbDocs-Entry[data-doc-id="{truth.left_out[0]}"]')
    separator = first.locator("xpath=preceding-sibling::li[1]")
    assert separator.get_attribute("role") == "separator"
    assert "a 2,048-character handshake stops here" in separator.inner_text()
    count = len(docs.index().entries)
    summary = page.locator(f"{PANEL} .jp-biopbDocs-Handshake summary").inner_text()
    assert f"receives {count - len(truth.left_out)} of {count} entries" in summary
    tidy_for_a_picture(page)
    separator.scroll_into_view_if_needed()
    screenshot(page, "panel-handshake-cut.png")
    (lab.local / "index.md").write_text(text.replace(f"{hooks}\n", ""), encoding="utf-8")
    index_entry(page, "long-39").wait_for(state="detached")


def test_light_and_dark_screenshots(page, lab):
    close_all_tabs(page)
    index_entry(page, "flatfield").get_by_role("button", name="flatfield").click()
    expect(page.locator(VISIBLE_VIEWER)).to_contain_text("Correct uneven illumination first")
    page.locator(f"{PANEL} .jp-biopbDocs-Handshake summary").click()  # what a small host receives
    page.set_viewport_size({"width": 1440, "height": 1500})  # room for more of the panel
    for name, picture in (("JupyterLab Light", "panel-light.png"), ("JupyterLab Dark", "panel-dark.png")):
        set_theme(page, name)
        tidy_for_a_picture(page)
        screenshot(page, picture)
    page.set_viewport_size({"width": 1440, "height": 900})
    set_theme(page, "JupyterLab Light")
    page.locator(f"{PANEL} .jp-biopbDocs-Handshake summary").click()


def test_an_empty_index_is_explained(page, lab):
    before = lab.local_text("index")
    (lab.local / "index.md").write_text("# Lab docs\n\nNothing listed yet.\n\nignored:\n", encoding="utf-8")
    index = page.locator(f"{PANEL} .jp-biopbDocs-Section-index")
    expect(index).to_contain_text("The index lists no docs, so the agent is told of none.")
    assert "0 of 200 entries" in page.locator(f"{PANEL} .jp-biopbDocs-Capacity").inner_text()
    # every shipped doc is new again: neither listed nor ignored
    new = page.locator(f"{PANEL} .jp-biopbDocs-Section-new [data-doc-id]")
    expect(new).to_have_count(len(SHIPPED))
    (lab.local / "index.md").write_text(before, encoding="utf-8")
    index_entry(page, "flatfield").wait_for()


# -- a notebook with the magics, and connecting an agent to its kernel ---------------------------

NOTEBOOK = "magics.ipynb"


def _code(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}


def _open_notebook(page, lab) -> None:
    cells = [
        _code("%read_doc flatfield"),
        _code("%read_doc index"),
        # the control: Markdown output with a heading, which the table of contents does list
        _code('from IPython.display import Markdown\nMarkdown("# A heading the contents list")'),
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (lab.root_dir / NOTEBOOK).write_text(json.dumps(notebook), encoding="utf-8")
    run_command(page, "docmanager:open", {"path": NOTEBOOK})
    page.wait_for_function(
        """() => {
            const kernel = window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel;
            return kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
        }""",
        timeout=60_000,
    )


def test_the_magics_render_in_a_notebook_and_add_nothing_to_the_table_of_contents(page, lab):
    close_all_tabs(page)
    _open_notebook(page, lab)
    run_command(page, "notebook:run-all-cells")
    outputs = page.locator(".jp-Notebook .jp-OutputArea-output.jp-RenderedMarkdown")
    expect(outputs).to_have_count(3, timeout=60_000)
    doc, index, control = outputs.nth(0), outputs.nth(1), outputs.nth(2)
    expect(doc).to_contain_text("Correct uneven illumination first, then stitch")
    expect(index).to_contain_text("flatfield")
    for output in (doc, index):
        assert output.locator("h1, h2, h3, h4, h5, h6").count() == 0
    assert "Steps" in doc.locator("strong").all_inner_texts()  # the doc's heading, as a bold line
    assert control.locator("h1").count() == 1

    run_command(page, "toc:show-panel")
    toc = page.locator(".jp-TableOfContents-tree")
    expect(toc).to_contain_text("A heading the contents list")
    assert toc.locator(".jp-tocItem").all_inner_texts() == ["A heading the contents list"]

    run_command(page, "biopb-docs:open-panel")
    page.set_viewport_size({"width": 1440, "height": 1500})
    page.locator(".jp-Notebook .jp-Cell").first.scroll_into_view_if_needed()
    tidy_for_a_picture(page)
    screenshot(page, "notebook-magics-light.png")
    page.set_viewport_size({"width": 1440, "height": 900})


def test_connect_an_agent_gives_the_command_for_the_active_notebooks_kernel(page, lab):
    if not page.locator(".jp-Notebook:visible").count():
        _open_notebook(page, lab)
    kernel_id = page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id")
    page.locator(PANEL).get_by_role("button", name="Connect an agent").click()
    dialog = page.locator(".jp-Dialog")
    claude = dialog.locator(".jp-biopbDocs-CopyBlock-claude pre").inner_text()
    connection_file = lab.home / ".local/share/jupyter/runtime" / f"kernel-{kernel_id}.json"
    assert connection_file.is_file()
    assert claude.startswith("claude mcp add biopb-docs -- ")
    assert claude.endswith(f" mcp --existing {connection_file}")
    config = json.loads(dialog.locator(".jp-biopbDocs-CopyBlock-json pre").inner_text())
    server = config["mcpServers"]["biopb-docs"]
    assert server["args"][-3:] == ["mcp", "--existing", str(connection_file)]

    dialog.get_by_role("button", name="Copy Claude Code: run in a terminal").click()
    expect(dialog.get_by_role("button", name="Copy Claude Code: run in a terminal")).to_have_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == claude
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)

    # The JSON config works: an MCP client started from it reads the docs in that very kernel.
    page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.requestExecute("
        "{code: 'kernel_marker = 41 + 1'}).done"
    )
    params = StdioServerParameters(command=server["command"], args=server["args"], env=kernel_env(lab.home))

    async def read_index() -> str:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("read_doc", {"id": "flatfield"})
            return "".join(getattr(block, "text", "") for block in result.content)

    answer: list[str] = []
    reader = threading.Thread(target=lambda: answer.append(asyncio.run(read_index())))
    reader.start()
    reader.join(120)
    assert answer, "the MCP server from the copied config did not answer"
    assert "Correct uneven illumination first" in answer[0]


# -- every button, in both themes (last: it leaves the store as its clicks made it) -----------------


# What each kind of button the panel shows is called: where it sits, and what it says (ids,
# counts and headings taken out, so one kind is one behaviour).
BUTTON_KIND = """button => {
    const section = button.closest('.jp-biopbDocs-Section');
    const where = section
        ? [...section.classList].find(c => c.startsWith('jp-biopbDocs-Section-')).slice(21)
        : button.closest('.jp-biopbDocs-Search') ? 'search'
        : button.closest('.jp-biopbDocs-Refusal') ? 'refusal'
        : button.closest('.jp-biopbDocs-Header') ? 'header' : 'panel';
    const text = button.textContent.trim();
    const what = button.classList.contains('jp-biopbDocs-SectionToggle') ? 'toggle'
        : button.classList.contains('jp-biopbDocs-Link') && text !== 'Clear' ? 'open'
        : text.startsWith('File under') ? 'File under' : text.replace(/[0-9]+/g, 'N');
    return `${where}: ${what}`;
}"""
# Changes that take their button away are clicked after the rest, so the rest is still there; in
# this order, so one does not take another's last button with it (a Keep before a Retire would).
TAKES_ITSELF_AWAY = (
    "Dismiss",
    "Clear",
    "Drop the local copy",
    "Retire",
    "File under",
    "Ignore",
    "Keep all N",
    "Keep",
)
EVERY_KIND = {
    "header: Edit index",
    "header: Connect an agent",
    "search: Search",
    "search: open",
    "search: Clear",
    "refusal: Dismiss",
    "review: toggle",
    "review: open",
    "review: Show changes",
    "review: Keep",
    "review: Keep all N",
    "review: Retire",
    "review: Drop the local copy",
    "index: toggle",
    "index: open",
    "new: toggle",
    "new: open",
    "new: File under",
    "new: Ignore",
    "stale: toggle",
}


def _click_order(kind: str) -> int:
    what = kind.split(": ")[1]
    return TAKES_ITSELF_AWAY.index(what) + 1 if what in TAKES_ITSELF_AWAY else 0


def _click_every_button(page) -> set[str]:
    """Click each kind of button the panel shows, once; after each click the page has met no
    error and the panel is whole. Returns the kinds clicked."""
    buttons = page.locator(f"{PANEL} button:visible:enabled")
    clicked: set[str] = set()
    for _ in range(60):
        kinds = buttons.evaluate_all(f"nodes => nodes.map({BUTTON_KIND})")
        waiting = [(n, kind) for n, kind in enumerate(kinds) if kind not in clicked]
        if not waiting:
            return clicked
        n, kind = min(waiting, key=lambda pair: _click_order(pair[1]))  # the first in the page on a tie
        button = buttons.nth(n)
        button.click()
        clicked.add(kind)
        if kind.endswith(": toggle") and button.get_attribute("aria-expanded") == "false":
            button.click()  # open the section again: its buttons are next
        if page.locator(".jp-Dialog").count():
            page.keyboard.press("Escape")
            expect(page.locator(".jp-Dialog")).to_have_count(0)
        expect(page.locator(f"{PANEL} .jp-biopbDocs-Content")).not_to_have_attribute("aria-busy", "true")
        assert_no_errors(page)
    pytest.fail(f"the panel kept showing new kinds of buttons; clicked {sorted(clicked)}")


def _plant_every_kind_of_button(page, lab, agent, name: str, shipped_id: str, edits) -> None:
    """A review with a shipped doc changed in two places, two new docs, a copy equal to the shipped
    text and the index; a new shipped doc, a refusal, and search results."""
    agent.call("write_doc", id=f"{name}-steps", body="# Steps\n\nOne.\n\nTwo.\n")  # to retire
    agent.call("write_doc", id=f"{name}-notes", body="# Notes\n\nKeep me.\n")  # to keep
    for old, new in edits:
        agent.call("write_doc", id=shipped_id, old=old, new=new)
    (lab.local / "data.md").write_text(SHIPPED["data"], encoding="utf-8")
    (lab.shipped / f"{name}-shipped.md").write_text(f"# {name}\n\nNew in this release.\n", encoding="utf-8")
    run_command(page, "biopb-docs:refresh")
    item = new_item(page, f"{name}-shipped")
    item.get_by_label(f"Heading to file {name}-shipped under").select_option(label="New heading…")
    item.get_by_label("Name of the new heading").fill("x" * 1_100)
    item.get_by_role("button", name=re.compile("^File under")).click()
    expect(page.locator(f"{PANEL} .jp-biopbDocs-Refusal")).to_be_visible()
    box = page.locator(PANEL).get_by_role("searchbox", name="Search the docs")
    box.fill("One")
    box.press("Enter")
    page.locator(f"{PANEL} .jp-biopbDocs-SearchGroup").first.wait_for()
    for doc_id in (f"{name}-steps", shipped_id, "data", "index"):
        review_item(page, doc_id).wait_for()


def test_every_button_of_the_panel_works_in_both_themes_and_the_views_look_right(page, lab, agent):
    close_all_tabs(page)
    page.set_viewport_size({"width": 1440, "height": 1100})
    for theme_name, name, shipped_id, edits in (
        (
            "JupyterLab Light",
            "light",
            "flatfield",
            (
                ("Correct uneven illumination first", "Correct the shading first"),
                ("Divide by it.", "Divide."),
            ),
        ),
        (
            "JupyterLab Dark",
            "dark",
            "stitch-tiles",
            (("one canvas", "a 10 % overlap grid"), ("Blend the seams.", "Blend the seams linearly.")),
        ),
    ):
        set_theme(page, theme_name)
        _plant_every_kind_of_button(page, lab, agent, name, shipped_id, edits)
        tidy_for_a_picture(page)
        screenshot(page, f"panel-review-{name}.png")
        review_item(page, shipped_id).get_by_role("button", name="Show changes").click()
        expect(_review_diff(page).locator(".jp-biopbDocs-HunkBar-after")).to_have_count(2)
        tidy_for_a_picture(page)
        screenshot(page, f"review-diff-{name}.png")
        run_command(page, "biopb-docs:show-history", {"id": shipped_id})
        newest = page.locator(".jp-biopbDocs-History:visible tbody tr").first
        expect(newest).to_contain_text(re.compile(r"via MCP\+1 \u22121 linescurrent$"))
        tidy_for_a_picture(page)
        screenshot(page, f"history-{name}.png")
        close_all_tabs(page)

        clicked = _click_every_button(page)
        assert not EVERY_KIND - clicked, f"never shown: {sorted(EVERY_KIND - clicked)}"
        close_all_tabs(page)
    set_theme(page, "JupyterLab Light")
    page.set_viewport_size({"width": 1440, "height": 900})


# -- states a user can meet before anything works ------------------------------------------------


def test_a_missing_server_extension_and_an_unusable_local_dir_are_explained(browser, tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a regular file where the docs directory's parent should be\n")
    missing = start_lab(tmp_path / "no-extension", "--ServerApp.jpserver_extensions=biopb_kernel_docs=False")
    unusable = start_lab(tmp_path / "unusable", local=blocker / "docs")
    try:
        wait_ready(missing)
        wait_ready(unusable)
        page = open_lab(browser, missing)
        error = page.locator(f"{PANEL} .jp-biopbDocs-Error")
        expect(error).to_contain_text("The server extension is missing")
        expect(error).to_contain_text("jupyter server extension list")
        page.context.close()

        page = open_lab(browser, unusable)
        warning = page.locator(f"{PANEL} .jp-biopbDocs-Warning").first
        expect(warning).to_contain_text("cannot be used")
        expect(page.locator(f"{PANEL} .jp-biopbDocs-Warning").nth(1)).to_contain_text(str(blocker))
        index_entry(page, "flatfield").wait_for()  # the shipped index, read-only
        expect(page.locator(PANEL).get_by_role("button", name="Edit index")).to_be_disabled()
        item = new_item(page, "segment-nuclei")
        expect(item.get_by_role("button", name="Ignore")).to_be_disabled()
        screenshot(page, "panel-unusable-local-dir.png")
        page.context.close()
    finally:
        stop_lab(missing)
        stop_lab(unusable)
