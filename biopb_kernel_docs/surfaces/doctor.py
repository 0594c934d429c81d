"""``biopb-kernel-docs doctor``: check the installation, and say how to fix what is wrong.

Each check looks at the real thing: the kernel configuration IPython itself would load, the
server extensions Jupyter Server would enable, JupyterLab itself and the panel it would find,
the local directory, the shipped seed, and a kernel started the way a notebook starts one.

Checking changes nothing: no profile, runtime file or local docs directory is created (a missing
IPython profile is looked at through an empty one, the kernel's runtime files go to a temporary
directory), and a kernel warning a user cannot act on is not printed (the kernel's stderr is
shown only when the kernel check fails).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .settings import Resolved

PACKAGE = "biopb_kernel_docs"
LABEXTENSION = "biopb-kernel-docs"
KERNEL_START_SECONDS = 60
LAB_MINIMUM = (4, 6)
LAB_FIX = 'pip install "biopb-kernel-docs[lab]" (JupyterLab into this environment: ' + sys.prefix + ")"
# What a kernel prints at every start that no user can act on (ipykernel 7 on TCP, as jupyter_client
# starts it); the check keeps it out of its report.
UNACTIONABLE_KERNEL_WARNINGS = ("Kernel is running over TCP without encryption",)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


@contextlib.contextmanager
def _profile_untouched() -> Iterator[dict[str, str]]:
    """An environment in which IPython finds the user's profile if there is one, and otherwise an
    empty one in a temporary directory (IPython would create the missing profile; the doctor
    changes nothing). The runtime directory is temporary too."""
    with tempfile.TemporaryDirectory(prefix="biopb-doctor-") as scratch:
        (Path(scratch) / "runtime").mkdir()
        env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(Path(scratch) / "runtime"))
        # IPython's own lookup (get_ipython_dir) creates ~/.ipython; this one only looks.
        ipython_dir = Path(os.environ.get("IPYTHONDIR") or Path.home() / ".ipython").expanduser()
        if not (ipython_dir / "profile_default").is_dir():
            env["IPYTHONDIR"] = str(Path(scratch) / "ipython")
        saved = {name: os.environ.get(name) for name in ("IPYTHONDIR", "JUPYTER_RUNTIME_DIR")}
        os.environ.update({name: env[name] for name in saved if name in env})
        try:
            yield env
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _kernel_config() -> Check:
    from ipykernel.kernelapp import IPKernelApp

    with _profile_untouched():
        return _kernel_config_check(IPKernelApp)


def _kernel_config_check(kernel_app) -> Check:
    app = kernel_app()
    app.init_profile_dir()
    app.init_config_files()
    app.load_config_file()
    shell = app.config.get("InteractiveShellApp", {})
    loaded = list(getattr(app, "loaded_config_files", []))
    if PACKAGE in shell.get("extra_extensions", []) or PACKAGE in shell.get("extensions", []):
        return Check(
            "kernel config", True, f"every kernel of this environment loads the magics ({', '.join(loaded)})"
        )
    setters = [f for f in loaded if "extra_extensions" in Path(f).read_text(errors="replace")]
    if setters:
        return Check(
            "kernel config",
            False,
            f"{setters[-1]} sets InteractiveShellApp.extra_extensions without {PACKAGE}, which drops the "
            "environment's own setting",
            f'append instead: c.InteractiveShellApp.extra_extensions.append("{PACKAGE}") in that file '
            "(or remove its extra_extensions line); %load_ext biopb_kernel_docs works meanwhile",
        )
    return Check(
        "kernel config",
        False,
        f"no kernel config loads {PACKAGE} (looked in {', '.join(app.config_file_paths)})",
        f"reinstall the package (pip install --force-reinstall biopb-kernel-docs), which puts it in "
        f"{sys.prefix}/etc/ipython/ipython_kernel_config.json",
    )


def _server_extension() -> Check:
    from jupyter_server.serverapp import ServerApp

    app = ServerApp()  # resolved the way a starting server does, not started
    app.load_config_file()
    in_config_files = dict(app.jpserver_extensions)  # these outrank jupyter_server_config.d
    app.find_server_extensions()
    if app.jpserver_extensions.get(PACKAGE):
        return Check("server extension", True, "enabled: JupyterLab serves the panel's REST API")
    if PACKAGE in in_config_files:
        where = [f for f in app.loaded_config_files if PACKAGE in Path(f).read_text(errors="replace")]
        return Check(
            "server extension",
            False,
            f"disabled in {where[-1] if where else 'a jupyter_server_config file'}",
            f"set {PACKAGE} to true in that file's ServerApp.jpserver_extensions (or remove it there)",
        )
    disabled = PACKAGE in app.jpserver_extensions
    return Check(
        "server extension",
        False,
        "disabled in a jupyter_server_config.d file"
        if disabled
        else "not enabled in any Jupyter config directory",
        f"jupyter server extension enable {PACKAGE}",
    )


def _jupyterlab() -> Check:
    """JupyterLab itself: without it, the panel has nowhere to show and `jupyter lab` is not found."""
    try:
        import jupyterlab
    except ImportError:
        return Check("jupyterlab", False, f"JupyterLab is not installed in {sys.prefix}", LAB_FIX)
    version = getattr(jupyterlab, "__version__", "0")
    parts = tuple(int(p) for p in version.split(".")[:2] if p.isdigit())
    if parts < LAB_MINIMUM:
        return Check(
            "jupyterlab",
            False,
            f"JupyterLab {version} is installed; the panel needs {'.'.join(map(str, LAB_MINIMUM))} or newer",
            LAB_FIX.replace("pip install", "pip install -U"),
        )
    return Check("jupyterlab", True, f"JupyterLab {version}: `jupyter lab` opens it with the panel")


def _panel() -> Check:
    from jupyter_core.paths import jupyter_config_path, jupyter_path

    found = [
        Path(d) / LABEXTENSION
        for d in jupyter_path("labextensions")
        if (Path(d) / LABEXTENSION / "package.json").is_file()
    ]
    if not found:
        return Check(
            "panel",
            False,
            "JupyterLab finds no biopb-kernel-docs labextension",
            "install the package from a wheel (pip install biopb-kernel-docs); in a source checkout, "
            "run labextension/build.sh",
        )
    for directory in jupyter_config_path():
        page_config = Path(directory) / "labconfig" / "page_config.json"
        try:
            disabled = json.loads(page_config.read_text()).get("disabledExtensions", {})
        except (OSError, ValueError):
            continue
        if disabled.get(LABEXTENSION):
            return Check(
                "panel", False, f"disabled in {page_config}", f"jupyter labextension enable {LABEXTENSION}"
            )
    return Check("panel", True, f"installed at {found[0]}")


def _local_dir(resolved: Resolved) -> Check:
    directory = resolved.local_dir
    existing = next((p for p in (directory, *directory.parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        return Check(
            "local docs", False, f"{directory} cannot be created: {existing} is not a directory", _move_it()
        )
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".doctor-"):
            pass
    except OSError as err:
        return Check("local docs", False, f"{existing} is not writable ({err.strerror})", _move_it())
    if directory.is_dir():
        return Check("local docs", True, f"{directory} exists and is writable")
    return Check(
        "local docs", True, f"{directory} will be created at the first write ({existing} is writable)"
    )


def _move_it() -> str:
    return "point DocStore.docs_local_dir at a writable directory (biopb-kernel-docs config shows where)"


def _seed(resolved: Resolved) -> Check:
    from ..core.errors import DocsError
    from ..core.store import Store, Tier

    try:
        store = Store(resolved.shipped_dir, resolved.local_dir, resolved.shipped_version)
        ids = store.all_shipped_ids()
        unreadable = [i for i in ids if store.read(Tier.SHIPPED, i) is None]
        index = store.read(Tier.SHIPPED, "index")
    except DocsError as err:
        return Check(
            "shipped seed",
            False,
            str(err),
            "reinstall the package (pip install --force-reinstall biopb-kernel-docs)",
        )
    if unreadable or index is None:
        return Check(
            "shipped seed",
            False,
            f"missing from {resolved.shipped_dir}: {', '.join(unreadable) or 'index.md'}",
            "reinstall the package (pip install --force-reinstall biopb-kernel-docs)",
        )
    return Check(
        "shipped seed", True, f"{len(ids)} docs and the seed index readable in {resolved.shipped_dir}"
    )


def _kernel_starts() -> Check:
    from jupyter_client.manager import KernelManager

    with _profile_untouched() as env, tempfile.TemporaryFile("w+b") as stderr:
        manager = KernelManager(
            kernel_name="python3", connection_file=str(Path(env["JUPYTER_RUNTIME_DIR"]) / "k.json")
        )
        client = None
        try:
            # No history database is written in the user's profile by this one check.
            manager.start_kernel(extra_arguments=["--HistoryManager.enabled=False"], env=env, stderr=stderr)
            client = manager.client()
            client.start_channels()
            client.wait_for_ready(timeout=KERNEL_START_SECONDS)
        except Exception as err:  # whatever stops a kernel from starting is what the user must see
            if client is not None:
                client.stop_channels()  # its sockets, which would otherwise be left open
            with contextlib.suppress(Exception):
                manager.shutdown_kernel(now=True)
            return Check(
                "kernel",
                False,
                f"a python3 kernel did not start: {err}{_kernel_stderr(stderr)}",
                "pip install ipykernel in this environment",
            )
        outputs: list[dict] = []
        try:
            reply = client.execute_interactive(
                "print('read_doc' in get_ipython().magics_manager.magics['line'])",
                timeout=KERNEL_START_SECONDS,
                output_hook=outputs.append,
            )
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
        text = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
        if reply["content"]["status"] == "ok" and text.strip() == "True":
            return Check("kernel", True, "a new python3 kernel has %read_doc and %%write_doc")
        return Check(
            "kernel",
            False,
            f"a new python3 kernel started without the magics{_kernel_stderr(stderr)}",
            "see the kernel config check above; %load_ext biopb_kernel_docs loads them by hand",
        )


def _kernel_stderr(stderr) -> str:
    """What the kernel printed, less what no user can act on, to explain a failed check."""
    stderr.seek(0)
    lines = stderr.read().decode("utf-8", "replace").splitlines()
    kept = [
        line for line in lines if line.strip() and not any(w in line for w in UNACTIONABLE_KERNEL_WARNINGS)
    ]
    return ("; the kernel said: " + " / ".join(kept[-5:])) if kept else ""


def run_checks(resolved: Resolved, *, start_kernel: bool = True) -> list[Check]:
    checks: list[Callable[[], Check]] = [
        _kernel_config,
        _server_extension,
        _jupyterlab,
        _panel,
        functools.partial(_local_dir, resolved),
        functools.partial(_seed, resolved),
    ]
    if start_kernel:
        checks.append(_kernel_starts)
    results = []
    for check in checks:
        try:
            results.append(check())
        except Exception as err:  # a check that breaks is itself a finding
            results.append(
                Check(getattr(check, "func", check).__name__.strip("_"), False, f"the check failed: {err!r}")
            )
    return results


def report(checks: list[Check]) -> str:
    lines = []
    for check in checks:
        lines.append(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
        if not check.ok and check.fix:
            lines.append(f"     fix: {check.fix}")
    bad = sum(not c.ok for c in checks)
    lines.append("all checks passed" if not bad else f"{bad} check{'s' * (bad > 1)} failed")
    return "\n".join(lines) + "\n"
