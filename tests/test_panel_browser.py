"""The JupyterLab panel end to end: a real ``jupyter lab`` on loopback, Debian's chromium driven by
Playwright, an agent's writes made through the real MCP server.

One lab and one browser page serve the whole module (starting them is most of the cost); each
test plants what it checks and reads the truth from disk. Screenshots go to ``test-artifacts/``
for a person to look at.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from playwright.sync_api import expect, sync_playwright

from .kernels import kernel_env, mcp_server

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PANEL = "#biopb-kernel-docs-panel"
TOKEN = "biopb-panel-test"
VISIBLE_VIEWER = ".jp-biopbDocs-Viewer:visible"
PUSH_BOUND_S = 1.0  # the target: an agent's write shows in the panel in under a second

SHIPPED_INDEX = """\
# Lab docs

## References
- data: before touching an image array

## Procedures
- flatfield: my images are darker at the corners
- stitch-tiles: stitch overlapping tiles into one image

ignored:
"""

SHIPPED = {
    "data": "---\ndescription: axes, dtypes and units\n---\n# Data\n\nArrays are laid out (t, c, z, y, x).\n",
    "flatfield": (
        "---\ndescription: correct uneven illumination\n---\n# Flatfield\n\n"
        "Correct uneven illumination first, then stitch: see [[stitch-tiles]].\n\n"
        "## Steps\n\n1. Estimate the flat field from the image.\n2. Divide by it.\n\n"
        "```python\nflat = estimate(image)  # [[not-a-link]] inside code stays text\n```\n"
    ),
    "stitch-tiles": "# Stitch tiles\n\nPlace the tiles on one canvas.\n\nBlend the seams.\n",
    "segment-nuclei": "---\ndescription: find the nuclei in a DAPI image\n---\n# Segment nuclei\n\nOtsu.\n",
    "count-foci": "---\ndescription: count the foci in each nucleus\n---\n# Count foci\n\nPeaks.\n",
}

# Each payload sets window.__biopbPwned if it ever runs.
HOSTILE = """\
# Hostile

<script>window.__biopbPwned = "script";</script>

<img src="does-not-exist.png" onerror="window.__biopbPwned = 'onerror'">

<a href="javascript:window.__biopbPwned = 'href'">a javascript: link</a>

<div onmouseover="window.__biopbPwned = 'mouseover'">hover me</div>

The text after the payloads.
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Lab:
    """A ``jupyter lab`` process with its own config, data and runtime dirs and docs tiers."""

    home: Path
    root_dir: Path
    shipped: Path
    local: Path
    url: str
    process: subprocess.Popen
    log: Path

    def lab_url(self, path: str = "lab") -> str:
        return f"{self.url}{path}?token={TOKEN}"

    def local_text(self, doc_id: str) -> str:
        return (self.local / f"{doc_id}.md").read_text(encoding="utf-8")


def _plant_shipped(shipped: Path) -> None:
    shipped.mkdir(parents=True)
    (shipped / "index.md").write_text(SHIPPED_INDEX, encoding="utf-8")
    for doc_id, text in SHIPPED.items():
        (shipped / f"{doc_id}.md").write_text(text, encoding="utf-8")


def _start_lab(base: Path, *extra: str, local: Path | None = None) -> Lab:
    home = base / "home"
    shipped, local = base / "shipped", local or base / "local"
    root_dir = base / "notebooks"
    for made in (home, root_dir):
        made.mkdir(parents=True)
    _plant_shipped(shipped)
    env = kernel_env(home)
    config_dir = Path(env["JUPYTER_CONFIG_DIR"])
    (config_dir / "labconfig").mkdir(parents=True)
    # The shared settings file: the server, every kernel it starts and the CLI read the same tiers.
    (config_dir / "biopb_kernel_docs_config.json").write_text(
        json.dumps({"DocStore": {"docs_local_dir": str(local), "shipped_dir": str(shipped)}})
    )
    # No "receive Jupyter news?" toast over the panel in screenshots (the page asks no server).
    (config_dir / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}})
    )
    port = _free_port()
    log = base / "lab.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter",
                "lab",
                "--no-browser",
                "--allow-root",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={TOKEN}",
                f"--ServerApp.root_dir={root_dir}",
                "--LabApp.news_url=",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                "--LabApp.expose_app_in_browser=True",
                *extra,
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=root_dir,
        )
    return Lab(home, root_dir, shipped, local, f"http://127.0.0.1:{port}/", process, log)


def _wait_ready(lab: Lab, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lab.process.poll() is not None:
            pytest.fail(f"jupyter lab exited with {lab.process.returncode}:\n{lab.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{lab.url}api/status?token={TOKEN}", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    pytest.fail(f"jupyter lab did not answer within {timeout} s:\n{lab.log.read_text()[-3000:]}")


def _stop(lab: Lab) -> None:
    lab.process.terminate()
    try:
        lab.process.wait(20)
    except subprocess.TimeoutExpired:
        lab.process.kill()
        lab.process.wait(10)


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
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is not installed: apt-get install chromium (.ci/run does this).")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[Lab]:
    started = _start_lab(tmp_path_factory.mktemp("lab"))
    try:
        _wait_ready(started)
        yield started
    finally:
        _stop(started)


def _command(page, command: str, args: dict | None = None) -> None:
    """Run a JupyterLab command in the page (the app is exposed as window.jupyterapp)."""
    page.evaluate(
        "async ([command, args]) => { await window.jupyterapp.commands.execute(command, args); }",
        [command, args or {}],
    )


def _open_lab(browser, lab: Lab):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.url.rstrip("/"))
    page = context.new_page()
    page.goto(lab.lab_url())
    tab = page.locator('li.lm-TabBar-tab[data-id="biopb-kernel-docs-panel"]')
    tab.wait_for(state="visible", timeout=60_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=30_000)
    # the layout restored and the launcher up: nothing at startup moves the focus after this
    page.evaluate("async () => { await window.jupyterapp.restored; }")
    page.locator(".jp-Launcher").first.wait_for()
    _command(page, "biopb-docs:open-panel")
    page.locator(PANEL).wait_for(state="visible")
    return page


@pytest.fixture(scope="module")
def page(browser, lab):
    opened = _open_lab(browser, lab)
    yield opened
    opened.context.close()


def _entry(page, doc_id: str):
    return page.locator(f'{PANEL} .jp-biopbDocs-Section-index [data-doc-id="{doc_id}"]')


def _new_item(page, doc_id: str):
    return page.locator(f'{PANEL} .jp-biopbDocs-Section-new [data-doc-id="{doc_id}"]')


def _shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    return path


# -- the panel ---------------------------------------------------------------------------------


def test_panel_shows_the_index_entries_the_cap_and_a_new_shipped_item(page, lab):
    for doc_id, heading in (
        ("data", "References"),
        ("flatfield", "Procedures"),
        ("stitch-tiles", "Procedures"),
    ):
        entry = _entry(page, doc_id)
        entry.wait_for()
        group = entry.locator("xpath=ancestor::div[contains(@class, 'jp-biopbDocs-Group')]")
        assert group.locator(".jp-biopbDocs-Heading").inner_text() == heading
    hook = _entry(page, "flatfield").locator(".jp-biopbDocs-Hook").inner_text()
    assert hook == "my images are darker at the corners"
    assert "3 of 200 entries" in page.locator(f"{PANEL} .jp-biopbDocs-Capacity").inner_text()
    item = _new_item(page, "segment-nuclei")
    assert "find the nuclei in a DAPI image" in item.inner_text()
    assert _new_item(page, "count-foci").count() == 1
    _shot(page, "panel-first-look.png")


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
    expect(_entry(page, "flatfield")).to_be_hidden()
    page.keyboard.press("Space")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    # an entry opens from the keyboard, and so does the connect dialog (which says what it needs)
    _entry(page, "data").get_by_role("button", name="data").focus()
    page.keyboard.press("Enter")
    expect(page.locator(VISIBLE_VIEWER)).to_contain_text("Arrays are laid out (t, c, z, y, x).")
    page.locator(PANEL).get_by_role("button", name="Connect an agent").focus()
    page.keyboard.press("Enter")
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Open a notebook (or click into one) first")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def test_ignore_puts_the_doc_on_the_ignored_line_and_the_item_leaves_the_tail(page, lab):
    item = _new_item(page, "count-foci")
    item.get_by_role("button", name="Ignore").click()
    item.wait_for(state="detached")
    index = lab.local_text("index")
    assert re.search(r"^ignored:.*\bcount-foci\b", index, re.MULTILINE), index
    assert "- count-foci:" not in index
    ignored = page.locator(f"{PANEL} .jp-biopbDocs-Ignored")
    assert ignored.get_by_role("button", name="count-foci").count() == 1


def test_file_under_a_chosen_heading_adds_its_entry_there(page, lab):
    item = _new_item(page, "segment-nuclei")
    item.get_by_label("Heading to file segment-nuclei under").select_option(label="References")
    item.get_by_role("button", name="File under References").click()
    item.wait_for(state="detached")
    entry = _entry(page, "segment-nuclei")
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


class Agent:
    """One MCP session with ``python -m biopb_kernel_docs mcp`` over stdio, on a thread of its own.

    The session lives in one task (anyio's scopes must close where they opened); calls reach it
    through a queue, and each returns the tool's result and the moment it came back.
    """

    def __init__(self, params: StdioServerParameters) -> None:
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._serve(params),))
        self._thread.start()
        if not self._ready.wait(120) or self._failed:
            raise RuntimeError(f"the MCP server did not start: {self._failed!r}")

    async def _serve(self, params: StdioServerParameters) -> None:
        self._queue: asyncio.Queue = asyncio.Queue()
        try:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                self._ready.set()
                while (request := await self._queue.get()) is not None:
                    name, arguments, answer = request
                    try:
                        result = await session.call_tool(name, arguments)
                        answer.set_result((result, time.monotonic()))
                    except BaseException as err:
                        answer.set_exception(err)
        except BaseException as err:
            self._failed = err
            self._ready.set()

    def call(self, name: str, **arguments: str) -> tuple[str, float]:
        """The tool's text and the monotonic time its answer arrived; a tool error fails the test."""
        answer: concurrent.futures.Future = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (name, arguments, answer))
        result, returned = answer.result(timeout=120)
        text = "".join(getattr(block, "text", "") for block in result.content)
        assert not result.is_error, text
        return text, returned

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._queue.put_nowait, None)
        self._thread.join(60)
        self._loop.close()


@pytest.fixture(scope="module")
def agent(lab) -> Iterator[Agent]:
    params = mcp_server(lab.home, "--docs-local-dir", str(lab.local), "--shipped-dir", str(lab.shipped))
    session = Agent(params)
    yield session
    session.close()


LATENCIES: dict[str, float] = {}


def _record_latency(name: str, started: float) -> float:
    latency = time.monotonic() - started
    LATENCIES[name] = round(latency, 3)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "push-latency.json").write_text(json.dumps(LATENCIES, indent=2) + "\n")
    return latency


def _review_item(page, doc_id: str):
    return page.locator(
        f'{PANEL} .jp-biopbDocs-Section-review .jp-biopbDocs-ReviewItem[data-doc-id="{doc_id}"]'
    )


def test_an_agents_change_is_reviewed_and_reverted_hunk_by_hunk(page, lab, agent):
    _, returned = agent.call(
        "write_doc",
        id="stitch-tiles",
        old="Place the tiles on one canvas.",
        new="Place the tiles on a 10 % overlap grid.",
    )
    item = _review_item(page, "stitch-tiles")
    item.wait_for(timeout=10_000)
    latency = _record_latency("agent write (MCP) to review item shown", returned)
    assert latency < PUSH_BOUND_S, f"the agent's write took {latency:.3f} s to show in the panel"
    assert "a local copy, against the shipped text" in item.inner_text()
    hunk = item.locator(".jp-biopbDocs-Hunk")
    assert hunk.count() == 1
    lines = hunk.locator(".jp-biopbDocs-DiffLine").all_inner_texts()
    assert "-Place the tiles on one canvas." in lines
    assert "+Place the tiles on a 10 % overlap grid." in lines

    hunk.get_by_role("button", name="Revert this change").click()
    hunk.wait_for(state="detached")
    assert lab.local_text("stitch-tiles") == SHIPPED["stitch-tiles"]
    # The copy now equals the shipped text: the review keeps it, with nothing to revert, as a copy
    # to drop (the panel's Drop button is the panel's to add; the REST item says "drop").
    expect(item.locator(".jp-biopbDocs-Hunk")).to_have_count(0)

    _, returned = agent.call(
        "write_doc", id="my-lab/nuclei", body="# Nuclei, the lab's way\n\nOtsu, then watershed.\n"
    )
    index_hunk = _review_item(page, "index").locator(".jp-biopbDocs-Hunk", has_text="+- my-lab/nuclei:")
    index_hunk.wait_for(timeout=10_000)
    _record_latency("agent creates a doc (MCP) to index hunk shown", returned)
    _entry(page, "my-lab/nuclei").wait_for()
    assert _review_item(page, "my-lab/nuclei").inner_text().count("a new doc") == 1

    index_hunk.get_by_role("button", name="Looks good").click()
    index_hunk.wait_for(state="detached")
    reviewed = (lab.local / ".review" / "index.md").read_text(encoding="utf-8")
    assert "- my-lab/nuclei: Otsu, then watershed." in reviewed
    assert "- my-lab/nuclei: Otsu, then watershed." in lab.local_text("index")  # looks good writes no doc


# -- docs in the main area ----------------------------------------------------------------------


def test_clicking_an_entry_renders_the_doc_and_its_link_opens_the_linked_doc(page, lab):
    _entry(page, "flatfield").get_by_role("button", name="flatfield").click()
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
    _command(page, "biopb-docs:open-doc", {"id": "segment-nuclei"})
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
    _command(page, "biopb-docs:open-doc", {"id": "hostile"})
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
    _entry(page, "data").get_by_role("button", name="data").click()
    viewer = page.locator(VISIBLE_VIEWER)
    expect(viewer).to_contain_text("Arrays are laid out (t, c, z, y, x).")
    started = time.monotonic()
    (lab.local / "data.md").write_text("# Data\n\nChanged on disk by an editor.\n", encoding="utf-8")
    expect(viewer).to_contain_text("Changed on disk by an editor.", timeout=10_000)
    latency = _record_latency("doc file written on disk to viewer updated", started)
    assert latency < PUSH_BOUND_S, f"the viewer took {latency:.3f} s to show the change"
    expect(_entry(page, "data").locator(".jp-biopbDocs-Marker")).to_have_text("(local copy)")

    index = lab.local_text("index")
    started = time.monotonic()
    (lab.local / "index.md").write_text(
        index.replace("## References\n", "## References\n- disk-note: an entry added in a text editor\n"),
        encoding="utf-8",
    )
    _entry(page, "disk-note").wait_for(timeout=10_000)
    latency = _record_latency("index.md written on disk to panel entry shown", started)
    assert latency < PUSH_BOUND_S, f"the panel took {latency:.3f} s to show the new entry"
    expect(_entry(page, "disk-note").locator(".jp-biopbDocs-Marker")).to_have_text("(missing)")


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
    _entry(page, "typed-entry").wait_for()

    page.keyboard.insert_text("- second-entry: typed later\n")
    on_disk = lab.local_text("index").replace(
        "## References\n", "## References\n- from-disk: another writer\n"
    )
    (lab.local / "index.md").write_text(on_disk, encoding="utf-8")
    expect(editor).to_contain_text("changed on disk since you opened it")
    page.keyboard.press("Control+s")
    toast = page.locator(".Toastify__toast", has_text="index.md was not saved: it changed on disk")
    toast.wait_for()
    assert lab.local_text("index") == on_disk  # the other writer's text stands
    assert "- second-entry: typed later" in _editor_text(editor)
    refusal = editor.locator(".jp-biopbDocs-Error")
    expect(refusal).to_contain_text("Nothing was written.")  # the store's own message, whole

    toast.get_by_role("button", name="Show what changed").click()
    changes = page.locator(VISIBLE_VIEWER)
    expect(changes).to_contain_text("+- from-disk: another writer")
    assert "second-entry" not in changes.inner_text()  # what changed on disk, not the user's edit

    page.locator(".lm-TabBar-tab", has_text="index.md").first.click()
    editor.get_by_role("button", name="Reload (your edits are set aside)").click()
    aside = page.locator(".jp-biopbDocs-Aside:visible")
    expect(aside).to_contain_text("- second-entry: typed later")
    page.locator(".lm-TabBar-tab", has_text="index.md").first.click()
    expect(editor.locator(".cm-content")).to_contain_text("- from-disk: another writer")
    assert "second-entry" not in _editor_text(editor)


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
    _entry(page, "long-39").wait_for()
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
    _tidy_for_a_picture(page)
    separator.scroll_into_view_if_needed()
    _shot(page, "panel-handshake-cut.png")
    (lab.local / "index.md").write_text(text.replace(f"{hooks}\n", ""), encoding="utf-8")
    _entry(page, "long-39").wait_for(state="detached")


def _theme(page, name: str) -> None:
    _command(page, "apputils:change-theme", {"theme": name})
    # the theme is in place once its name is on the body and the loading splash is gone
    page.wait_for_function(
        "name => document.body.dataset.jpThemeName === name && !document.querySelector('#jupyterlab-splash')",
        arg=name,
    )


def _tidy_for_a_picture(page) -> None:
    """No toasts over the picture, and the panel scrolled to its top."""
    for close in page.locator(".Toastify__close-button").all():
        close.click()
    expect(page.locator(".Toastify__toast")).to_have_count(0)
    page.locator(PANEL).evaluate("node => { node.scrollTop = 0; }")


def test_light_and_dark_screenshots(page, lab):
    _command(page, "application:close-all")
    _entry(page, "flatfield").get_by_role("button", name="flatfield").click()
    expect(page.locator(VISIBLE_VIEWER)).to_contain_text("Correct uneven illumination first")
    page.locator(f"{PANEL} .jp-biopbDocs-Handshake summary").click()  # what a small host receives
    page.set_viewport_size({"width": 1440, "height": 1500})  # room for more of the panel
    for name, picture in (("JupyterLab Light", "panel-light.png"), ("JupyterLab Dark", "panel-dark.png")):
        _theme(page, name)
        _tidy_for_a_picture(page)
        _shot(page, picture)
    page.set_viewport_size({"width": 1440, "height": 900})
    _theme(page, "JupyterLab Light")
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
    _entry(page, "flatfield").wait_for()


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
    _command(page, "docmanager:open", {"path": NOTEBOOK})
    page.wait_for_function(
        """() => {
            const kernel = window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel;
            return kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
        }""",
        timeout=60_000,
    )


def test_the_magics_render_in_a_notebook_and_add_nothing_to_the_table_of_contents(page, lab):
    _command(page, "application:close-all")
    _open_notebook(page, lab)
    _command(page, "notebook:run-all-cells")
    outputs = page.locator(".jp-Notebook .jp-OutputArea-output.jp-RenderedMarkdown")
    expect(outputs).to_have_count(3, timeout=60_000)
    doc, index, control = outputs.nth(0), outputs.nth(1), outputs.nth(2)
    expect(doc).to_contain_text("Correct uneven illumination first, then stitch")
    expect(index).to_contain_text("flatfield")
    for output in (doc, index):
        assert output.locator("h1, h2, h3, h4, h5, h6").count() == 0
    assert "Steps" in doc.locator("strong").all_inner_texts()  # the doc's heading, as a bold line
    assert control.locator("h1").count() == 1

    _command(page, "toc:show-panel")
    toc = page.locator(".jp-TableOfContents-tree")
    expect(toc).to_contain_text("A heading the contents list")
    assert toc.locator(".jp-tocItem").all_inner_texts() == ["A heading the contents list"]

    _command(page, "biopb-docs:open-panel")
    page.set_viewport_size({"width": 1440, "height": 1500})
    page.locator(".jp-Notebook .jp-Cell").first.scroll_into_view_if_needed()
    _tidy_for_a_picture(page)
    _shot(page, "notebook-magics-light.png")
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


# -- states a user can meet before anything works ------------------------------------------------


def test_a_missing_server_extension_and_an_unusable_local_dir_are_explained(browser, tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a regular file where the docs directory's parent should be\n")
    missing = _start_lab(tmp_path / "no-extension", "--ServerApp.jpserver_extensions=biopb_kernel_docs=False")
    unusable = _start_lab(tmp_path / "unusable", local=blocker / "docs")
    try:
        _wait_ready(missing)
        _wait_ready(unusable)
        page = _open_lab(browser, missing)
        error = page.locator(f"{PANEL} .jp-biopbDocs-Error")
        expect(error).to_contain_text("The server extension is missing")
        expect(error).to_contain_text("jupyter server extension list")
        page.context.close()

        page = _open_lab(browser, unusable)
        warning = page.locator(f"{PANEL} .jp-biopbDocs-Warning").first
        expect(warning).to_contain_text("cannot be used")
        expect(page.locator(f"{PANEL} .jp-biopbDocs-Warning").nth(1)).to_contain_text(str(blocker))
        _entry(page, "flatfield").wait_for()  # the shipped index, read-only
        expect(page.locator(PANEL).get_by_role("button", name="Edit index")).to_be_disabled()
        item = _new_item(page, "segment-nuclei")
        expect(item.get_by_role("button", name="Ignore")).to_be_disabled()
        _shot(page, "panel-unusable-local-dir.png")
        page.context.close()
    finally:
        _stop(missing)
        _stop(unusable)
