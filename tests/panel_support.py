"""What the browser tests of the panel share: a real ``jupyter lab`` with its own tiers, Debian's
chromium through Playwright, an MCP agent session, the page's errors, and a few page helpers.

``tests/test_panel_browser.py`` holds the tests; this module only starts and drives things.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
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
from playwright.sync_api import sync_playwright

from .kernels import kernel_env

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


def free_port() -> int:
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


def plant_shipped(shipped: Path) -> None:
    shipped.mkdir(parents=True)
    (shipped / "index.md").write_text(SHIPPED_INDEX, encoding="utf-8")
    for doc_id, text in SHIPPED.items():
        (shipped / f"{doc_id}.md").write_text(text, encoding="utf-8")


def start_lab(base: Path, *extra: str, local: Path | None = None) -> Lab:
    home = base / "home"
    shipped, local = base / "shipped", local or base / "local"
    root_dir = base / "notebooks"
    for made in (home, root_dir):
        made.mkdir(parents=True)
    plant_shipped(shipped)
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
    port = free_port()
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


def wait_ready(lab: Lab, timeout: float = 60) -> None:
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


def stop_lab(lab: Lab) -> None:
    lab.process.terminate()
    try:
        lab.process.wait(20)
    except subprocess.TimeoutExpired:
        lab.process.kill()
        lab.process.wait(10)


@contextlib.contextmanager
def launch_browser() -> Iterator[object]:
    """Debian's chromium, headless, with nothing that reaches the network by itself."""
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
        try:
            yield launched
        finally:
            launched.close()


def run_command(page, command: str, args: dict | None = None) -> None:
    """Run a JupyterLab command in the page (the app is exposed as window.jupyterapp)."""
    page.evaluate(
        "async ([command, args]) => { await window.jupyterapp.commands.execute(command, args); }",
        [command, args or {}],
    )


def close_all_tabs(page) -> None:
    """Close the main area's tabs one at a time. JupyterLab's own close-all can close a tab whose
    toolbar was shown a moment before, and that toolbar's resize throttler then runs disposed
    ("Cannot read properties of null (reading 'promise')"): a page error of JupyterLab's, not ours."""
    page.evaluate(
        """async () => {
            const shell = window.jupyterapp.shell;
            for (const widget of [...shell.widgets('main')].reverse()) {
                const model = widget.context?.model;
                if (model) {
                    model.dirty = false;  // a test's notebook: closed without asking to save it
                }
                widget.close();
                await new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
            }
        }"""
    )


def open_lab(browser, lab: Lab):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.url.rstrip("/"))
    page = open_lab_page(context, lab)
    page.locator(".jp-Launcher").first.wait_for()  # nothing at startup moves the focus after this
    return page


def open_lab_page(context, lab: Lab):
    """JupyterLab in a new page of ``context`` (a second page of one context is the same user in a
    second browser tab), with the Kernel Docs panel shown once its layout is restored."""
    page = context.new_page()
    page.goto(lab.lab_url())
    tab = page.locator('li.lm-TabBar-tab[data-id="biopb-kernel-docs-panel"]')
    tab.wait_for(state="visible", timeout=60_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=30_000)
    page.evaluate("async () => { await window.jupyterapp.restored; }")
    run_command(page, "biopb-docs:open-panel")
    page.locator(PANEL).wait_for(state="visible")
    return page


def index_entry(page, doc_id: str):
    return page.locator(f'{PANEL} .jp-biopbDocs-Section-index [data-doc-id="{doc_id}"]')


def new_item(page, doc_id: str):
    return page.locator(f'{PANEL} .jp-biopbDocs-Section-new [data-doc-id="{doc_id}"]')


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    no_toasts = ".Toastify__toast-container { display: none !important; }"  # nothing over the picture
    page.screenshot(path=str(path), style=no_toasts)
    return path


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


LATENCIES: dict[str, float] = {}


def record_latency(name: str, started: float) -> float:
    latency = time.monotonic() - started
    LATENCIES[name] = round(latency, 3)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "push-latency.json").write_text(json.dumps(LATENCIES, indent=2) + "\n")
    return latency


def review_item(page, doc_id: str):
    return page.locator(
        f'{PANEL} .jp-biopbDocs-Section-review .jp-biopbDocs-ReviewItem[data-doc-id="{doc_id}"]'
    )


def set_theme(page, name: str) -> None:
    run_command(page, "apputils:change-theme", {"theme": name})
    # the theme is in place once its name is on the body and the loading splash is gone
    page.wait_for_function(
        "name => document.body.dataset.jpThemeName === name && !document.querySelector('#jupyterlab-splash')",
        arg=name,
    )


def tidy_for_a_picture(page) -> None:
    """The panel scrolled to its top (screenshots leave the toasts out by themselves)."""
    page.locator(PANEL).evaluate("node => { node.scrollTop = 0; }")


# -- what went wrong in a page -------------------------------------------------------------------

_ERRORS: dict[int, list[str]] = {}
_ALLOWED: dict[int, list[str]] = {}
# The browser logs every answer of 400 and up as a console error; the docs API's refusals (a
# stale write, a cap, an unknown doc) are answers the panel shows, so those alone are expected.
_REFUSAL = "the server responded with a status of 4"


def watch_errors(page) -> None:
    """Collect the page's uncaught errors and console errors from now on."""
    seen = _ERRORS.setdefault(id(page), [])

    def console(message) -> None:
        url = (message.location or {}).get("url", "")
        if message.type == "error" and not (_REFUSAL in message.text and "/biopb-kernel-docs/api/" in url):
            seen.append(f"console error: {message.text} (at {url})")

    page.on("pageerror", lambda error: seen.append(f"page error: {error}\n{error.stack}"))
    page.on("console", console)


def allow_errors(page, containing: str) -> None:
    """Expect errors that name ``containing`` from now on: ones a test causes on purpose (a doc's
    image that does not exist, whose 404 the browser may report after the test has moved on)."""
    _ALLOWED.setdefault(id(page), []).append(containing)


def assert_no_errors(page) -> None:
    """Fail on any error the page met since the last check, and on a blanked panel (React
    unmounts the whole panel when one of its components throws)."""
    seen = _ERRORS.get(id(page), [])
    allowed = _ALLOWED.get(id(page), [])
    found = [error for error in seen if not any(part in error for part in allowed)]
    seen[:] = []
    assert not found, "the page met errors:\n" + "\n".join(found)
    content = page.locator(f"{PANEL} .jp-biopbDocs-Content")
    assert content.count() == 1, "the Kernel Docs panel is blank"
    assert (content.text_content() or "").strip(), "the Kernel Docs panel is blank"
