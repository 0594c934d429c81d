"""``biopb-kernel-docs doctor`` on a working install and on broken ones, with the fix it prints applied."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from biopb_kernel_docs.surfaces.doctor import Check, report, run_checks
from biopb_kernel_docs.surfaces.settings import resolve

from .kernels import kernel_env, write_profile_config


def _doctor(home: Path, tiers, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "biopb_kernel_docs",
            "doctor",
            "--shipped-dir",
            str(tiers.shipped),
            "--docs-local-dir",
            str(tiers.local),
            *extra,
        ],
        env=kernel_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _line(done: subprocess.CompletedProcess, check: str) -> str:
    return next(line for line in done.stdout.splitlines() if line[5:].startswith(check + ":"))


def test_a_working_install_passes_the_kernel_server_seed_and_local_checks(tmp_path, tiers):
    done = _doctor(tmp_path, tiers)
    for check in ("kernel config", "server extension", "local docs", "shipped seed", "kernel"):
        assert _line(done, check).startswith("ok   "), done.stdout


def test_a_profile_that_drops_the_extension_is_found_and_its_fix_works(tmp_path, tiers):
    write_profile_config(tmp_path, "c.InteractiveShellApp.extra_extensions = ['autoreload']\n")
    done = _doctor(tmp_path, tiers)
    assert done.returncode == 1
    assert _line(done, "kernel config").startswith("FAIL kernel config: ")
    assert "profile_default/ipython_kernel_config.py sets InteractiveShellApp.extra_extensions" in done.stdout
    assert _line(done, "kernel").startswith("FAIL kernel: a new python3 kernel started without the magics")
    fix = next(line for line in done.stdout.splitlines() if line.strip().startswith("fix: append instead"))
    assert 'c.InteractiveShellApp.extra_extensions.append("biopb_kernel_docs")' in fix
    write_profile_config(
        tmp_path,
        "c.InteractiveShellApp.extra_extensions = ['autoreload']\n"
        'c.InteractiveShellApp.extra_extensions.append("biopb_kernel_docs")\n',
    )
    fixed = _doctor(tmp_path, tiers)
    assert _line(fixed, "kernel config").startswith("ok   ")
    assert _line(fixed, "kernel").startswith("ok   ")


def test_a_disabled_server_extension_is_found_and_its_fix_works(tmp_path, tiers):
    config = tmp_path / ".jupyter" / "jupyter_server_config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"ServerApp": {"jpserver_extensions": {"biopb_kernel_docs": False}}}))
    done = _doctor(tmp_path, tiers, "--no-kernel")
    assert _line(done, "server extension") == f"FAIL server extension: disabled in {config}"
    assert "fix: set biopb_kernel_docs to true in that file's ServerApp.jpserver_extensions" in done.stdout
    config.write_text(json.dumps({"ServerApp": {"jpserver_extensions": {"biopb_kernel_docs": True}}}))
    assert _line(_doctor(tmp_path, tiers, "--no-kernel"), "server extension").startswith("ok   ")


def test_an_unusable_local_dir_is_reported_with_where_to_move_it(tmp_path, tiers):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "biopb_kernel_docs",
            "doctor",
            "--no-kernel",
            "--docs-local-dir",
            str(blocker / "docs"),
        ],
        env=kernel_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert _line(done, "local docs").startswith(f"FAIL local docs: {blocker / 'docs'} cannot be created")
    assert "fix: point DocStore.docs_local_dir at a writable directory" in done.stdout


def _hide_jupyterlab(tmp_path: Path, version: str | None) -> dict[str, str]:
    """An environment in which ``import jupyterlab`` fails as for an uninstalled package (or finds
    an old one): a package of that name first on the path."""
    shim = tmp_path / "shim" / "jupyterlab"
    shim.mkdir(parents=True)
    body = (
        f"__version__ = {version!r}\n" if version else "raise ImportError(\"No module named 'jupyterlab'\")\n"
    )
    (shim / "__init__.py").write_text(body)
    return {"PYTHONPATH": str(shim.parent)}


def _doctor_with(home: Path, tiers, extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "biopb_kernel_docs", "doctor", "--no-kernel"]
    command += ["--shipped-dir", str(tiers.shipped), "--docs-local-dir", str(tiers.local)]
    env = {**kernel_env(home), **extra_env}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def test_doctor_fails_without_jupyterlab_and_names_the_lab_extra(tmp_path, tiers):
    done = _doctor_with(tmp_path, tiers, _hide_jupyterlab(tmp_path, None))
    assert done.returncode == 1
    assert _line(done, "jupyterlab").startswith("FAIL jupyterlab: JupyterLab is not installed in ")
    assert 'fix: pip install "biopb-kernel-docs[lab]"' in done.stdout
    assert "all checks passed" not in done.stdout


def test_doctor_fails_on_a_jupyterlab_older_than_4_6(tmp_path, tiers):
    done = _doctor_with(tmp_path, tiers, _hide_jupyterlab(tmp_path, "4.2.5"))
    assert _line(done, "jupyterlab") == (
        "FAIL jupyterlab: JupyterLab 4.2.5 is installed; the panel needs 4.6 or newer"
    )
    assert 'fix: pip install -U "biopb-kernel-docs[lab]"' in done.stdout


def test_doctor_passes_jupyterlab_when_it_is_there(tmp_path, tiers):
    assert _line(_doctor_with(tmp_path, tiers, {}), "jupyterlab").startswith("ok   jupyterlab: JupyterLab 4.")


def test_doctor_creates_nothing_and_prints_no_kernel_warning_a_user_cannot_act_on(tmp_path, tiers):
    home = tmp_path / "fresh-home"
    home.mkdir()
    done = _doctor(home, tiers)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _line(done, "kernel").startswith("ok   ")
    assert list(home.rglob("*")) == []  # no profile, runtime dir, config dir or local docs
    assert not tiers.local.exists()
    assert "without encryption" not in done.stdout + done.stderr
    assert done.stderr == ""


def test_a_panel_re_enabled_in_page_config_is_not_reported_disabled(tmp_path, monkeypatch):
    from biopb_kernel_docs.surfaces import doctor

    config = tmp_path / "config"
    (config / "labconfig").mkdir(parents=True)
    page_config = config / "labconfig" / "page_config.json"
    page_config.write_text(json.dumps({"disabledExtensions": {doctor.LABEXTENSION: False}}))
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(config))
    assert doctor._panel().ok, doctor._panel().detail
    page_config.write_text(json.dumps({"disabledExtensions": {doctor.LABEXTENSION: True}}))
    check = doctor._panel()
    assert not check.ok
    assert check.detail == f"disabled in {page_config}"


def test_a_failed_kernel_check_shows_the_last_five_lines_the_kernel_printed():
    import tempfile

    from biopb_kernel_docs.surfaces.doctor import _kernel_stderr

    with tempfile.TemporaryFile("w+b") as stderr:
        stderr.write(b"\n".join(f"line {n}".encode() for n in range(1, 9)) + b"\n")
        said = _kernel_stderr(stderr)
    assert said == "; the kernel said: line 4 / line 5 / line 6 / line 7 / line 8"


def test_a_failed_kernel_check_shows_a_short_kernel_message_from_its_first_character():
    import tempfile

    from biopb_kernel_docs.surfaces.doctor import _kernel_stderr

    with tempfile.TemporaryFile("w+b") as stderr:
        stderr.write(b"ModuleNotFoundError: No module named 'ipykernel'\n")
        said = _kernel_stderr(stderr)
    assert said == "; the kernel said: ModuleNotFoundError: No module named 'ipykernel'"


def test_the_report_counts_one_failed_check_in_the_singular_and_two_in_the_plural():
    from biopb_kernel_docs.surfaces.doctor import Check, report

    one = report([Check("panel", False, "missing", "fix it"), Check("kernel", True, "fine")])
    assert one.splitlines()[-1] == "1 check failed"
    two = report([Check("panel", False, "missing"), Check("kernel", False, "gone")])
    assert two.splitlines()[-1] == "2 checks failed"
    assert report([Check("kernel", True, "fine")]).splitlines()[-1] == "all checks passed"


def test_a_check_that_breaks_is_reported_as_a_failure_under_its_name_not_left_out(tmp_path):
    resolved = resolve({"docs_local_dir": str(tmp_path / "docs")}, "the test")
    broken = dataclasses.replace(resolved, shipped_dir=7)  # not a path: the seed check raises
    checks = run_checks(broken, start_kernel=False)
    [seed] = [check for check in checks if check.name == "seed"]
    assert not seed.ok
    assert seed.detail.startswith("the check failed: TypeError(")
    assert "FAIL seed: the check failed: TypeError(" in report(checks)


def test_an_existing_writable_local_dir_passes_and_says_so(tmp_path, tiers):
    tiers.local.mkdir(parents=True)
    done = _doctor(tmp_path, tiers, "--no-kernel")
    assert _line(done, "local docs") == f"ok   local docs: {tiers.local} exists and is writable"


def test_a_server_extension_disabled_in_a_d_folder_that_outranks_the_environment_is_found(
    tmp_path, monkeypatch
):
    from biopb_kernel_docs.surfaces.doctor import _server_extension

    # JUPYTER_CONFIG_PATH outranks the environment's directory, whose .d file (the package's own)
    # enables the extension; a user-level directory would not: in a virtual environment jupyter_core
    # searches the environment's first, and so does a starting server.
    disabling = tmp_path / "first" / "jupyter_server_config.d" / "biopb_kernel_docs.json"
    disabling.parent.mkdir(parents=True)
    disabling.write_text(json.dumps({"ServerApp": {"jpserver_extensions": {"biopb_kernel_docs": False}}}))
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path / "first"))
    check = _server_extension()
    assert (check.ok, check.detail, check.fix) == (
        False,
        "disabled in a jupyter_server_config.d file",
        "jupyter server extension enable biopb_kernel_docs",
    )


def test_a_server_extension_enabled_in_no_config_directory_is_reported_with_the_command_that_enables_it(
    monkeypatch,
):
    from biopb_kernel_docs.surfaces.doctor import _server_extension

    monkeypatch.setenv("JUPYTER_NO_CONFIG", "1")  # only a blank config directory is searched
    check = _server_extension()
    assert (check.ok, check.detail, check.fix) == (
        False,
        "not enabled in any Jupyter config directory",
        "jupyter server extension enable biopb_kernel_docs",
    )


def test_the_kernel_config_check_leaves_the_environment_and_home_as_they_were(tmp_path, monkeypatch):
    from biopb_kernel_docs.surfaces.doctor import _kernel_config

    home = Path(os.environ["HOME"])
    monkeypatch.delenv("IPYTHONDIR")  # IPython's default, ~/.ipython, which has no profile yet
    monkeypatch.delenv("JUPYTER_RUNTIME_DIR")
    before = dict(os.environ)
    check = _kernel_config()
    assert check.ok, check.detail
    assert check.detail.startswith("every kernel of this environment loads the magics (")
    assert dict(os.environ) == before
    assert not (home / ".ipython").exists()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    assert _kernel_config().ok
    assert os.environ["JUPYTER_RUNTIME_DIR"] == str(tmp_path / "runtime")
    assert "IPYTHONDIR" not in os.environ
    assert not (tmp_path / "runtime").exists()


def test_a_failed_kernel_check_leaves_out_the_warning_no_user_can_act_on():
    import tempfile

    from biopb_kernel_docs.surfaces.doctor import _kernel_stderr

    with tempfile.TemporaryFile("w+b") as stderr:
        stderr.write(
            b"[IPKernelApp] WARNING | Kernel is running over TCP without encryption.\n"
            b"  \n"
            b"ImportError: cannot import name 'x'\n"
        )
        said = _kernel_stderr(stderr)
    assert said == "; the kernel said: ImportError: cannot import name 'x'"
    with tempfile.TemporaryFile("w+b") as stderr:
        stderr.write(b"[IPKernelApp] WARNING | Kernel is running over TCP without encryption.\n")
        assert _kernel_stderr(stderr) == ""


def test_a_check_is_a_value_that_cannot_be_changed_once_made():
    from biopb_kernel_docs.surfaces.doctor import Check

    check = Check("panel", False, "missing", "fix it")
    assert {check, Check("panel", False, "missing", "fix it")} == {check}
    with pytest.raises(dataclasses.FrozenInstanceError):
        check.ok = True  # type: ignore[misc]


def test_a_kernel_with_no_config_loading_the_extension_is_told_to_reinstall(monkeypatch):
    from ipykernel.kernelapp import IPKernelApp

    from biopb_kernel_docs.surfaces import doctor

    class WithoutEnvironmentConfig(IPKernelApp):
        """A kernel whose environment holds no ipython_kernel_config.json (the package's is gone)."""

        def init_config_files(self):
            pass

    monkeypatch.delenv("IPYTHONDIR")
    with doctor._profile_untouched():
        check = doctor._kernel_config_check(WithoutEnvironmentConfig)
    assert not check.ok
    assert check.detail.startswith("no kernel config loads biopb_kernel_docs (looked in ")
    assert check.detail.endswith("/ipython/profile_default)")
    assert check.fix == (
        "reinstall the package (pip install --force-reinstall biopb-kernel-docs), which puts it in "
        f"{sys.prefix}/etc/ipython/ipython_kernel_config.json"
    )


def test_a_seed_missing_its_index_or_holding_a_non_file_fails_with_the_reinstall_fix(tiers):
    from biopb_kernel_docs.surfaces.doctor import _seed

    resolved = resolve({"shipped_dir": str(tiers.shipped), "docs_local_dir": str(tiers.local)}, "the test")
    reinstall = "reinstall the package (pip install --force-reinstall biopb-kernel-docs)"
    assert _seed(resolved) == Check(
        "shipped seed", True, f"6 docs and the seed index readable in {tiers.shipped}"
    )
    (tiers.shipped / "index.md").unlink()
    assert _seed(resolved) == Check(
        "shipped seed", False, f"missing from {tiers.shipped}: index.md", reinstall
    )
    os.mkfifo(tiers.shipped / "pipe.md")
    check = _seed(resolved)
    assert (check.ok, check.fix) == (False, reinstall)
    assert check.detail.startswith(f"{tiers.shipped / 'pipe.md'} is a FIFO (named pipe), not a doc file.")


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs sysfs, where no one creates a file")
def test_a_local_dir_under_an_unwritable_directory_fails_naming_it():
    from biopb_kernel_docs.surfaces.doctor import _local_dir

    check = _local_dir(resolve({"docs_local_dir": "/sys/biopb/docs"}, "the test"))
    assert check == Check(
        "local docs",
        False,
        "/sys is not writable (Permission denied)",
        "point DocStore.docs_local_dir at a writable directory (biopb-kernel-docs config shows where)",
    )


def test_a_kernel_that_dies_at_start_fails_the_check_with_what_it_printed(tmp_path, monkeypatch):
    from biopb_kernel_docs.surfaces.doctor import _kernel_starts

    shim = tmp_path / "shim"  # first on the kernel's path: a launcher that fails as a missing ipykernel does
    shim.mkdir()
    (shim / "ipykernel_launcher.py").write_text(
        "import sys\n"
        "print(\"ModuleNotFoundError: No module named 'ipykernel'\", file=sys.stderr)\n"
        "sys.exit(1)\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(shim))
    assert _kernel_starts() == Check(
        "kernel",
        False,
        "a python3 kernel did not start: Kernel died before replying to kernel_info; "
        "the kernel said: ModuleNotFoundError: No module named 'ipykernel'",
        "pip install ipykernel in this environment",
    )


def _kernels_started_here() -> list[int]:
    """The kernels this process started that are still running (or not yet reaped)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            status = (proc / "status").read_text()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:  # not a process, or gone since the listing
            continue
        if f"\nPPid:\t{os.getpid()}\n" in status and b"ipykernel_launcher" in cmdline:
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="finds the kernel through /proc")
def test_the_kernel_check_passes_and_leaves_no_kernel_running_and_no_profile_of_the_users():
    from biopb_kernel_docs.surfaces.doctor import _kernel_starts

    profiles = Path(os.environ["IPYTHONDIR"])  # the user's (conftest points it into a fresh home)
    assert not profiles.exists()
    check = _kernel_starts()
    assert check == Check("kernel", True, "a new python3 kernel has %read_doc and %%write_doc")
    assert _kernels_started_here() == []
    assert not profiles.exists()


def test_the_report_prints_a_fix_line_only_under_a_failed_check_that_has_one():
    assert report(
        [
            Check("panel", True, "installed"),
            Check("local docs", False, "/x is not writable", "point it elsewhere"),
            Check("seed", False, "the check failed: TypeError()"),
        ]
    ) == (
        "ok   panel: installed\n"
        "FAIL local docs: /x is not writable\n"
        "     fix: point it elsewhere\n"
        "FAIL seed: the check failed: TypeError()\n"
        "2 checks failed\n"
    )
