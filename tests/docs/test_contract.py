"""§6 contract gate, keyed off ``packages:``: the APIs the shipped docs quote exist as quoted.

Banked docs get no assertion (§1: their evidence is thin).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from importlib import metadata

import pytest
from packaging.requirements import InvalidRequirement, Requirement

from biopb_kernel_docs.core.ids import is_banked

from .contract import (
    declared_requirements,
    import_names_of,
    imported_top_level_modules,
    problem_with,
    quoted_apis,
)
from .contract_static import static_problem_with
from .seed_docs import body_of, python_blocks, runnable_ids, scene_module, seed_ids, seed_text
from .wheels import WheelUnavailable, newest_wheel, top_level_modules

GATED_IDS = [doc_id for doc_id in seed_ids() if not is_banked(doc_id)]
LOWER_BOUND_OPERATORS = {"~=", ">=", "=="}


def stood_in_and_absent(doc_id: str) -> set[str]:
    """Modules imported only by blocks the doc's scene stands in for (``STAND_INS``: a model whose
    weights cannot be downloaded here, e.g. cellpose, which also needs torch) and not installed here.
    Their declared range and quoted APIs are checked on the newest wheel inside the range, read
    without being installed or imported (``wheels.py``, ``contract_static.py``)."""
    if doc_id not in runnable_ids():
        return set()
    markers = getattr(scene_module(doc_id), "STAND_INS", {})
    stood, ran = set(), set()
    for _, code in python_blocks(body_of(doc_id)):
        modules = {
            name
            for node in ast.walk(ast.parse(code))
            for name in (
                [alias.name.split(".")[0] for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module.split(".")[0]]
                if isinstance(node, ast.ImportFrom) and node.module
                else []
            )
        }
        (stood if any(marker in code for marker in markers) else ran).update(modules)
    return {name for name in stood - ran if importlib.util.find_spec(name) is None}


@pytest.mark.parametrize("doc_id", GATED_IDS)
def test_declared_packages_are_installed_inside_their_range(doc_id):
    """A package only a stood-in block imports, not installed here, must have a release inside its
    range on PyPI whose wheel provides the modules the doc imports."""
    absent = stood_in_and_absent(doc_id)
    for declared in declared_requirements(seed_text(doc_id)):
        try:
            requirement = Requirement(declared)
        except InvalidRequirement as err:
            pytest.fail(f"{doc_id}: packages entry {declared!r} is not a requirement: {err}")
        operators = {spec.operator for spec in requirement.specifier}
        assert operators & LOWER_BOUND_OPERATORS, f"{doc_id}: {declared!r} needs a lower bound (~= or >=)"
        modules = import_names_of(requirement.name)
        if modules <= absent:
            try:
                wheel = newest_wheel(declared)
            except WheelUnavailable as err:
                pytest.fail(f"{doc_id} declares {declared}: {err}")
            assert requirement.specifier.contains(wheel.version, prereleases=True), (
                f"{doc_id} declares {declared}, but the newest wheel pip found is {wheel.version}"
            )
            assert modules <= top_level_modules(wheel), (
                f"{doc_id} imports {sorted(modules)}, but the {wheel.name} {wheel.version} wheel provides "
                f"{sorted(top_level_modules(wheel))}: correct the packages: entry"
            )
            continue
        installed = metadata.version(requirement.name)
        assert requirement.specifier.contains(installed, prereleases=True), (
            f"{doc_id} declares {declared}, but {requirement.name} {installed} is installed"
        )


@pytest.mark.parametrize("doc_id", GATED_IDS)
def test_every_imported_package_is_declared(doc_id):
    text = seed_text(doc_id)
    declared = {Requirement(d).name for d in declared_requirements(text)}
    provided = {name for distribution in declared for name in import_names_of(distribution)}
    for module in imported_top_level_modules(text) - set(sys.stdlib_module_names):
        assert module in provided, f"{doc_id} imports {module} but its packages: line does not declare it"


def _requirement_providing(text: str, module: str) -> str:
    declared = declared_requirements(text)
    return next(d for d in declared if module in import_names_of(Requirement(d).name))


def problems_in(text: str, absent: set[str] = frozenset()) -> list[str]:
    """Problems of the APIs a doc quotes: from the installed modules, or (for ``absent`` ones, see
    ``stood_in_and_absent``) from the wheel of the declared package, read without importing it."""
    problems = []
    for api in quoted_apis(text):
        root = api.dotted.split(".")[0]
        if root in absent:
            problem = static_problem_with(api, _requirement_providing(text, root))
        else:
            problem = problem_with(api)
        if problem:
            problems.append(problem)
    return problems


@pytest.mark.parametrize("doc_id", GATED_IDS)
def test_quoted_apis_exist_with_their_signatures(doc_id):
    problems = problems_in(seed_text(doc_id), stood_in_and_absent(doc_id))
    assert not problems, f"{doc_id} quotes APIs the packages contradict:\n" + "\n".join(problems)


def test_the_quoted_api_list_is_derived_from_the_docs():
    apis = {api.dotted for doc_id in GATED_IDS for api in quoted_apis(seed_text(doc_id))}
    assert len(apis) >= 40, f"only {len(apis)} quoted APIs found: is the parser seeing the code?"
    assert "skimage.filters.threshold_otsu" in apis


def test_gate_catches_a_misspelt_function_and_a_wrong_keyword():
    text = (
        "---\npackages: [scikit-image~=0.26]\n---\n# T\n\n"
        "```python\nfrom skimage import filters\n"
        "t = filters.threshold_otsu(image, nbins=256, bogus=1)\nfilters.threshold_otsuu(image)\n```\n"
        "Or call `skimage.filters.gaussian(image, sigmaa=2)`.\n"
    )
    problems = [problem_with(api) for api in quoted_apis(text)]
    assert any(p and "bogus" in p for p in problems)
    assert any(p and "threshold_otsuu" in p for p in problems)
    assert any(p and "sigmaa" in p for p in problems)


SAMPLE = (
    "---\npackages: [scipy~=1.13, psfmodels~=0.3]\n---\n# T\n\n```python\n"
    "from scipy import ndimage as ndi\nfrom scipy.spatial import KDTree\n"
    "import numpy as np\nimport psfmodels\n"
    "blur = ndi.gaussian_filter\nsmoothed = blur(image, sigmaa=2)\n"
    "tree = KDTree(points)\nnear = tree.query(points, kk=2)\nfar = tree.query(points, k=2)\n"
    "again = KDTree(points).query(points, k=2, bogus=1)\n"
    "psf = psfmodels.vectorial_psf_centered(11, dz=0.1, wvl=0.52, wavelength=0.5)\n"
    "arr = np.asarray(image)\nsmall = arr.clip(0, 1)\n```\n"
)


def _problems_of(text: str) -> list[str]:
    return [problem for api in quoted_apis(text) if (problem := problem_with(api))]


def test_gate_follows_a_call_through_a_variable():
    assert any("gaussian_filter" in p and "sigmaa" in p for p in _problems_of(SAMPLE))


def test_gate_checks_methods_of_an_object_whose_class_is_known():
    problems = _problems_of(SAMPLE)
    assert any("KDTree().query" in p and "kk" in p for p in problems), problems  # through a variable
    assert any("KDTree().query" in p and "bogus" in p for p in problems), problems  # chained
    assert not any("KDTree().query(_, k=)" in p for p in problems), "a correct method call was refused"


def test_gate_follows_keywords_into_kwargs_and_refuses_one_nothing_takes():
    problems = [p for p in _problems_of(SAMPLE) if "vectorial_psf_centered" in p]
    assert len(problems) == 1, problems  # wvl is forwarded to vectorial_psf, which takes it
    assert "wavelength" in problems[0]
    assert "**kwargs" in problems[0]


def test_gate_leaves_methods_of_objects_of_unknown_type_unchecked():
    # np.asarray declares no return type: arr.clip cannot be pinned without running the code
    assert not any("asarray" in p for p in _problems_of(SAMPLE))
