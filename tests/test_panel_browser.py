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

from .kernels import kernel_env

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PANEL = "#biopb-kernel-docs-panel"
TOKEN = "biopb-panel-test"
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


def _open_lab(browser, lab: Lab):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.url.rstrip("/"))
    page = context.new_page()
    page.goto(lab.lab_url())
    tab = page.locator('li.lm-TabBar-tab[data-id="biopb-kernel-docs-panel"]')
    tab.wait_for(state="visible", timeout=60_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=30_000)
    page.evaluate("() => window.jupyterapp.commands.execute('biopb-docs:open-panel')")
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
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "biopb_kernel_docs",
            "mcp",
            "--docs-local-dir",
            str(lab.local),
            "--shipped-dir",
            str(lab.shipped),
        ],
        env=kernel_env(lab.home),
    )
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
    item.wait_for(state="detached")
    assert lab.local_text("stitch-tiles") == SHIPPED["stitch-tiles"]

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

VISIBLE_VIEWER = ".jp-biopbDocs-Viewer:visible"


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


def test_a_docs_script_and_event_handlers_never_run(page, lab):
    (lab.local / "hostile.md").write_text(HOSTILE, encoding="utf-8")
    page.evaluate("() => window.jupyterapp.commands.execute('biopb-docs:open-doc', {id: 'hostile'})")
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
