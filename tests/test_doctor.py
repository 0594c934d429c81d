"""``biopb-kernel-docs doctor`` on a working install and on broken ones, with the fix it prints applied."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from biopb_kernel_docs.surfaces.doctor import report, run_checks
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
