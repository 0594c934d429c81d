"""Scenes for segment-trained-model: a nuclear field, and a stand-in for the model.

No model runs where these docs are built (the weights download at run time), so the model's label
image is replaced by a stand-in (``STAND_INS``): on the main scene, the planted nuclei of the
segment-nuclei field plus six 3 x 3 px fragments, the debris a model leaves; on the real-data
variant, the 125 hand-annotated nuclei of stardist's img2d (its mask) plus fragments. The steps
around the model must drop the fragments, set border nuclei apart, agree with the threshold and
measure each nucleus at its true area in µm². The refusals hand the steps a model output that is
wrong in the ways a model goes wrong (background outlined, objects shattered, nothing found).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

from . import segment_nuclei
from ._stardist_data import sample

# what the model step leaves in ``learned_raw`` for the scene that ran last, and the truth
_CURRENT: dict[str, object] = {}


def _with_fragments(labels: np.ndarray) -> np.ndarray:
    """The labels plus six 3 x 3 px fragments on background."""
    raw = np.asarray(labels, dtype=np.int32).copy()
    clear = ndi.binary_erosion(raw == 0, np.ones((3, 3)), border_value=0)  # 3 x 3 windows all background
    spots = np.argwhere(clear)
    for i, (r, c) in enumerate(spots[:: max(1, len(spots) // 6)][:6], start=int(raw.max()) + 1):
        raw[r - 1 : r + 2, c - 1 : c + 2] = i
    return raw


def _stage(inputs: dict, truth: np.ndarray, model_output: np.ndarray, pixel_size_um: float) -> dict:
    """Stage the model output; the truth keeps the objects the doc's fragment rule keeps (a quarter
    of a typical object's area: stardist's annotation has 4 interior nuclei under it, 25-90 px)."""
    truth = np.asarray(truth, dtype=np.int32)
    min_px = np.pi * (inputs["object_diameter_um"] / inputs["pixel_size_um"] / 2) ** 2 / 4
    small = np.bincount(truth.ravel()) < min_px
    small[0] = False
    _CURRENT.update(raw=model_output, truth=np.where(small[truth], 0, truth), pixel_size_um=pixel_size_um)
    return inputs


def _nuclei_field(pixel_size_um: float | None = None, seed: int | None = None) -> dict[str, object]:
    inputs, truth = segment_nuclei._build() if seed is None else segment_nuclei._build(seed)
    size = inputs["pixel_size_um"] if pixel_size_um is None else pixel_size_um
    scale = size / inputs["pixel_size_um"]
    scene_inputs = {
        "image": inputs["image"],
        "pixel_size_um": size,
        "object_diameter_um": inputs["nucleus_diameter_um"] * scale,
        "learned_model_kind": "cellpose",
    }
    return _stage(scene_inputs, truth, _with_fragments(truth), size)


def scene() -> dict[str, object]:
    return _nuclei_field()


def _stardist_2d() -> dict[str, object]:
    """stardist's img2d (2018 Data Science Bowl), uncalibrated: 1 µm per pixel is assumed, and the
    user's diameter is the annotation's median, rounded (24 µm)."""
    truth = np.asarray(sample("mask2d"), dtype=np.int32)
    inputs = {
        "image": sample("img2d"),
        "pixel_size_um": 1.0,
        "object_diameter_um": 24.0,
        "learned_model_kind": "stardist",
    }
    return _stage(inputs, truth, _with_fragments(truth), 1.0)


def _shifted_output() -> dict[str, object]:
    """The model's labels land on background (a wrong channel, a transposed image)."""
    inputs = scene()
    truth = _CURRENT["truth"]
    return _stage(
        inputs,
        truth,
        np.roll(truth, (truth.shape[0] // 2, 7), axis=(0, 1)) * (truth == 0),
        inputs["pixel_size_um"],
    )


def _shattered_output() -> dict[str, object]:
    """Each nucleus cut into a 4 x 4 grid of pieces (an over-splitting model, a wrong diameter)."""
    inputs = scene()
    truth = _CURRENT["truth"]
    yy, xx = np.indices(truth.shape)
    pieces = np.where(truth > 0, truth * 100 + (yy // 8 % 4) * 4 + xx // 8 % 4 + 1, 0)
    return _stage(inputs, truth, pieces.astype(np.int32), inputs["pixel_size_um"])


def _empty_output() -> dict[str, object]:
    inputs = scene()
    return _stage(inputs, _CURRENT["truth"], np.zeros_like(_CURRENT["truth"]), inputs["pixel_size_um"])


def check(namespace: dict) -> None:
    truth, pixel_size_um = _CURRENT["truth"], _CURRENT["pixel_size_um"]
    n_true = len(np.unique(truth)) - 1
    assert len(np.unique(namespace["learned_labels"])) - 1 == n_true, (
        f"expected the {n_true} nuclei (above the fragment size) without the 6 fragments, "
        f"got {len(np.unique(namespace['learned_labels'])) - 1}"
    )
    cut = set(np.unique(np.concatenate([truth[0], truth[-1], truth[:, 0], truth[:, -1]]))) - {0}
    table = namespace["learned_table"]
    assert table["label"].size == n_true - len(cut), (
        f"expected {n_true - len(cut)} nuclei clear of the border in the table, got {table['label'].size}"
    )
    interior = namespace["learned_interior"]
    for row, label in enumerate(table["label"]):
        true_id = np.bincount(truth[interior == label]).argmax()
        true_px = np.count_nonzero(truth == true_id)
        assert true_id not in cut, (
            f"object {label}: nucleus {true_id} is cut by the border, expected it left out"
        )
        assert table["area"][row] == true_px, (
            f"object {label}: expected nucleus {true_id} of {true_px} px, got {table['area'][row]}"
        )
        true_um2 = true_px * pixel_size_um**2
        assert np.isclose(table["area_um2"][row], true_um2), (
            f"object {label}: expected {true_um2:.1f} µm², got {table['area_um2'][row]:.1f}"
        )
        true_diameter = 2 * np.sqrt(true_um2 / np.pi)
        assert np.isclose(table["diameter_um"][row], true_diameter), (
            f"object {label}: expected an equivalent diameter of {true_diameter:.2f} µm, "
            f"got {table['diameter_um'][row]:.2f}"
        )


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""

    def make() -> dict[str, object]:
        return _nuclei_field(seed=seed)

    def check_own(namespace: dict) -> None:
        make()  # stages this seed's truth again
        check(namespace)

    return make, check_own


VARIANTS = {
    "stardist img2d: 125 hand-annotated nuclei as the model output": (_stardist_2d, check),
    "0.65 µm pixels (a 10x objective)": (lambda: _nuclei_field(0.65), check),
}

REFUSALS = {
    "the model outlined background": (_shifted_output, r"misses objects or outlines background"),
    "the model shattered every nucleus": (_shattered_output, r"misses objects|split or merged"),
    "the model found nothing": (_empty_output, r"misses objects"),
    "pixel size given in nm": (
        lambda: {**scene(), "pixel_size_um": 325.0},
        r"outside what the models were trained on",
    ),
}

MUTATIONS = [
    (
        "area in µm instead of µm²",
        'learned_table["area"] * pixel_size_um**2',
        'learned_table["area"] * pixel_size_um',
    ),
    (
        "diameter from the area without the factor 2",
        'learned_table["diameter_um"] = 2 * np.sqrt(',
        'learned_table["diameter_um"] = np.sqrt(',
    ),
    ("fragments kept", "learned_min_px = np.pi * (learned_diameter_px / 2) ** 2 / 4", "learned_min_px = 0"),
    (
        "border objects measured",
        "learned_interior = clear_border(learned_labels)",
        "learned_interior = learned_labels",
    ),
]

# The model block imports cellpose or stardist, whose weights download at run time: the run gate
# leaves the staged model output where that block would leave its own.
STAND_INS = {"from cellpose import": lambda: {"learned_raw": _CURRENT["raw"], "learned_model": None}}
