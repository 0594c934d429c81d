"""The contract gate on packages that cannot be installed here: read from their wheels' source.

The first tests read the real cellpose and stardist wheels (fetched once from PyPI into the data
cache, as the gate does); the rest read a small wheel written here, for the cases the real ones
do not show.
"""

from __future__ import annotations

import zipfile

import pytest

from .contract import QuotedApi, quoted_apis
from .contract_static import WheelReader, reader_of, static_problem_with
from .seed_docs import seed_text
from .test_contract import problems_in, stood_in_and_absent
from .wheels import Wheel, WheelUnavailable, newest_wheel

MODEL_DOC = (
    "---\npackages: [numpy~=2.0, cellpose>=4.0, stardist>=0.9]\n---\n# T\n\n```python\n"
    "from cellpose import models\nfrom stardist.models import StarDist2D\n"
    "{}\n```\n"
)
ABSENT = {"cellpose", "stardist"}  # the static path, whether or not they are installed


def _problems(*lines: str) -> list[str]:
    return problems_in(MODEL_DOC.format("\n".join(lines)), ABSENT)


def test_a_wrong_keyword_of_a_class_not_installed_is_refused():
    problems = _problems('wrong = models.CellposeModel(gpu=False, pretrained_model="cpsam", bogus=1)')
    assert len(problems) == 1, problems
    assert "bogus" in problems[0], problems
    assert "cellpose 4." in problems[0], problems
    assert "pretrained_model='cpsam_v2'" in problems[0], "the signature is not the source's"


def test_a_misspelt_inherited_classmethod_is_refused():
    problems = _problems('bad = StarDist2D.from_pretrainedd("2D_versatile_fluo")')
    assert len(problems) == 1, problems
    assert "from_pretrainedd" in problems[0], problems
    assert "does not exist" in problems[0], problems


def test_correct_quotes_of_packages_not_installed_pass():
    assert not _problems(
        'model = models.CellposeModel(gpu=False, pretrained_model="cpsam")',
        "where = models.MODEL_DIR",
        "masks = models.CellposeModel(gpu=False).eval(image, normalize=False, diameter=30)[0]",
        'sd = StarDist2D.from_pretrained("2D_versatile_fluo")',
    )


def test_arity_counts_self_through_an_instance_and_drops_cls_of_a_classmethod():
    problems = _problems(
        "a = models.CellposeModel(gpu=False).eval(image, normalise=False)",
        'b = StarDist2D.from_pretrained("one", "two")',
        "c = models.MODEL_DIRR",
    )
    assert any("eval" in p and "normalise" in p for p in problems), problems
    assert any("from_pretrained(_, _)" in p and "too many positional" in p for p in problems), problems
    assert any("MODEL_DIRR" in p for p in problems), problems
    assert len(problems) == 3, problems


def test_an_inherited_method_is_read_from_the_dependency_that_defines_it():
    reader = reader_of("stardist>=0.9")
    found = reader.resolve("stardist.models.StarDist2D.from_pretrained")
    assert found.module.origin.startswith("csbdeep "), found.module
    assert found.module.name == "csbdeep.models.base_model"
    assert found.drop_first, "a classmethod's cls is not bound away"


def test_a_range_without_a_release_fails_and_names_the_entry_to_correct():
    with pytest.raises(WheelUnavailable, match=r"cellpose>=999.*correct the doc's packages: entry"):
        newest_wheel("cellpose>=999")


def _wheel(tmp_path, files: dict[str, str]) -> WheelReader:
    path = tmp_path / "toy-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, source in files.items():
            archive.writestr(name, source)
        archive.writestr("toy-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: toy\nVersion: 1.0\n")
    return WheelReader(Wheel(path, "toy", "1.0"))


TOY = {
    "toy/__init__.py": "from .core import *\nfrom toy.shapes import Square as Box\n",
    "toy/core.py": (
        "import functools\n"
        "def grow(a, /, b, *more, c, d=2, **options):\n    return scale(**options)\n"
        "def scale(factor=1, **rest):\n    return rest['unit']\n"
        "try:\n    fast = grow\nexcept ImportError:\n    fast = None\n"
        "@functools.wraps(grow)\ndef wrapped(*a, **k):\n    pass\n"
    ),
    "toy/shapes.py": (
        "from json import JSONDecoder\n"
        "class Shape:\n    def __init__(self, side, *, filled=False):\n        pass\n"
        "    def area(self) -> 'Shape':\n        pass\n"
        "    @staticmethod\n    def unit(n):\n        pass\n"
        "class Square(Shape):\n    pass\n"
        "class Decoder(JSONDecoder):\n    pass\n"
        "class Made(make_base()):\n    pass\n"
    ),
    "toy/lazy.py": "def __getattr__(name):\n    return name\n",
}


def _toy_problem(tmp_path, monkeypatch, dotted: str, *keywords: str, positional: int = 0) -> str | None:
    reader = _wheel(tmp_path, TOY)
    monkeypatch.setattr("tests.docs.contract_static.reader_of", lambda requirement: reader)
    return static_problem_with(QuotedApi(dotted, "here", keywords, positional, True), "toy>=1")


@pytest.mark.parametrize(
    ("dotted", "keywords", "positional"),
    [
        ("toy.grow", ("b", "c", "factor"), 1),  # posonly a, b by name, c keyword-only, factor via **options
        ("toy.grow", ("c", "unit"), 4),  # two land in *more; unit read by scale from its **rest
        ("toy.Box", ("filled",), 1),  # a re-export under another name; __init__ inherited
        ("toy.Box().area().unit", (), 1),  # a return annotation as a string; a staticmethod on an instance
        ("toy.shapes.Decoder", ("strict",), 0),  # an installed base class: its real signature
    ],
)
def test_the_source_signature_binds_like_the_real_one(tmp_path, monkeypatch, dotted, keywords, positional):
    assert _toy_problem(tmp_path, monkeypatch, dotted, *keywords, positional=positional) is None


@pytest.mark.parametrize(
    ("dotted", "keywords", "positional", "said"),
    [
        ("toy.grow", ("a", "c"), 0, "positional only"),
        ("toy.grow", ("b", "c"), 2, "multiple values for argument 'b'"),
        ("toy.shapes.Decoder", ("bogus",), 0, "bogus"),
        ("toy.grow", ("c", "size"), 2, "'size' goes into **kwargs"),
        ("toy.Box", ("side", "filled", "colour"), 0, "colour"),
        ("toy.Box().area", (), 1, "too many positional"),
        ("toy.Circle", (), 0, "does not exist"),
    ],
)
def test_a_call_the_source_contradicts_is_refused(tmp_path, monkeypatch, dotted, keywords, positional, said):
    problem = _toy_problem(tmp_path, monkeypatch, dotted, *keywords, positional=positional)
    assert problem is not None
    assert said in problem, problem


@pytest.mark.parametrize(
    ("dotted", "said"),
    [
        ("toy.core.fast", "alternative branches"),
        ("toy.wrapped", "@wraps"),
        ("toy.lazy.anything", "__getattr__"),
        ("toy.shapes.Made", "make_base()"),
    ],
)
def test_what_the_source_cannot_decide_fails_and_says_so(tmp_path, monkeypatch, dotted, said):
    problem = _toy_problem(tmp_path, monkeypatch, dotted)
    assert problem is not None
    assert "cannot decide" in problem, problem
    assert said in problem, problem


def test_the_seed_doc_quotes_its_model_apis_through_the_static_path():
    text = seed_text("segment-trained-model")
    absent = stood_in_and_absent("segment-trained-model")
    quoted = {api.dotted for api in quoted_apis(text) if api.dotted.split(".")[0] in absent}
    if absent:
        assert {"cellpose.models.CellposeModel", "stardist.models.StarDist2D.from_pretrained"} <= quoted
