"""Scene for the banked _segment-cellpose: the segment-nuclei field, and a stand-in for the model.

No model runs where these docs are built (the weights download at run time), so the model's
label image is replaced by the planted nuclei plus six 3 x 3 px fragments, the debris a model
leaves. The steps around the model must drop the fragments, set border nuclei apart, agree with
the threshold and measure each nucleus at its true area.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

from . import segment_nuclei

TRUTH: dict[str, object] = {}


def scene() -> dict[str, object]:
    inputs, truth = segment_nuclei._build()
    TRUTH.update(labels=truth)
    return {
        "image": inputs["image"],
        "pixel_size_um": inputs["pixel_size_um"],
        "object_diameter_um": inputs["nucleus_diameter_um"],
        "learned_model_kind": "cellpose",
    }


def model_stand_in() -> np.ndarray:
    """What the model step leaves in ``learned_raw``: the true nuclei and six fragments on background."""
    raw = TRUTH["labels"].copy()
    clear = ndi.binary_erosion(raw == 0, np.ones((3, 3)), border_value=0)  # 3 x 3 windows all background
    for i, (r, c) in enumerate(np.argwhere(clear)[::1499][:6], start=int(raw.max()) + 1):
        raw[r - 1 : r + 2, c - 1 : c + 2] = i
    return raw


def check(namespace: dict) -> None:
    truth = TRUTH["labels"]
    n_true = len(np.unique(truth)) - 1
    assert namespace["learned_labels"].max() == n_true, (
        f"expected the {n_true} nuclei without the 6 fragments, got {namespace['learned_labels'].max()}"
    )
    cut = set(np.unique(np.concatenate([truth[0], truth[-1], truth[:, 0], truth[:, -1]]))) - {0}
    table = namespace["learned_table"]
    assert table["label"].size == n_true - len(cut), (
        f"expected {n_true - len(cut)} nuclei clear of the border in the table, got {table['label'].size}"
    )
    interior = namespace["learned_interior"]
    for label, area in zip(table["label"], table["area"], strict=True):
        true_id = np.bincount(truth[interior == label]).argmax()
        true_area = np.count_nonzero(truth == true_id)
        assert true_id not in cut, (
            f"object {label}: nucleus {true_id} is cut by the border, expected it left out"
        )
        assert area == true_area, (
            f"object {label}: expected nucleus {true_id} of {true_area} px, got {area} px"
        )


# The model block imports cellpose or stardist, whose weights download at run time: the run gate
# leaves this stand-in's labels where that block would leave its own.
STAND_INS = {"from cellpose import": lambda: {"learned_raw": model_stand_in()}}
