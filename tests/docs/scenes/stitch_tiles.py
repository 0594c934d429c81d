"""Scene for ``stitch-tiles``: a 3 x 4 grid of overlapping tiles cut from one synthetic specimen.

The specimen is a 2-D textured image (smoothed noise at two scales plus bright round cells) on a
flat background, with one corner left empty so that a few overlaps carry no structure and must be
rejected by the procedure's gate. Tiles are 128 x 128 px, the nominal overlap is 20 % of a tile, and
every tile's true position is its nominal grid position plus a stage jitter drawn uniformly within
+/- ``stage_error_um`` (sub-pixel, applied by interpolation). Each tile gets its own Poisson noise,
so the two views of an overlap differ by noise as they do on a camera.

Ground truth planted (not passed to the procedure): ``TRUE_POSITIONS_PX``, (row, col, 2), the
(y, x) position of every tile's top-left corner in specimen pixels, filled in by ``scene()``.
``check`` asserts the tile positions found against them, and that only the overlap inside the
empty corner is rejected.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

N_ROWS, N_COLS, TILE = 3, 4, 128
OVERLAP_FRACTION = 0.2
PIXEL_SIZE_UM = 0.65
STAGE_ERROR_UM = 1.5
TRUE_POSITIONS_PX = np.zeros((N_ROWS, N_COLS, 2))


def _specimen(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Positive, textured specimen in expected photon counts, with an empty bottom-right corner."""
    coarse = ndi.gaussian_filter(rng.normal(size=shape), 6)
    fine = ndi.gaussian_filter(rng.normal(size=shape), 1.5)
    texture = coarse / coarse.std() + 0.5 * fine / fine.std()
    cells = np.zeros(shape)
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    for cy, cx in rng.uniform((0, 0), shape, size=(60, 2)):
        cells += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 4.0**2))
    signal = np.clip(texture + 1.5, 0, None) * 150 + cells * 600
    empty = (yy > shape[0] * 0.62) & (xx > shape[1] * 0.70)
    signal[empty] = 0
    return 100 + ndi.gaussian_filter(signal, 1.0)


def scene() -> dict[str, object]:
    rng = np.random.default_rng(7)
    step = TILE * (1 - OVERLAP_FRACTION)
    jitter_px = STAGE_ERROR_UM / PIXEL_SIZE_UM
    margin = int(np.ceil(jitter_px)) + 4
    shape = (int((N_ROWS - 1) * step) + TILE + 2 * margin, int((N_COLS - 1) * step) + TILE + 2 * margin)
    specimen = _specimen(rng, shape)
    tiles = np.zeros((N_ROWS, N_COLS, TILE, TILE), dtype=np.uint16)
    for r in range(N_ROWS):
        for c in range(N_COLS):
            pos = np.array([r * step, c * step]) + margin + rng.uniform(-jitter_px, jitter_px, size=2)
            TRUE_POSITIONS_PX[r, c] = pos
            whole = np.floor(pos).astype(int)
            window = specimen[whole[0] : whole[0] + TILE + 1, whole[1] : whole[1] + TILE + 1]
            # sample the specimen at pos + (i, j): shift the window content by -(pos - whole)
            view = ndi.shift(window, -(pos - whole), order=3, mode="nearest")[:TILE, :TILE]
            tiles[r, c] = rng.poisson(np.clip(view, 0, None)).astype(np.uint16)
    return {
        "tiles": tiles,
        "overlap_fraction": OVERLAP_FRACTION,
        "pixel_size_um": PIXEL_SIZE_UM,
        "stage_error_um": STAGE_ERROR_UM,
    }


def check(namespace: dict) -> None:
    true = TRUE_POSITIONS_PX - TRUE_POSITIONS_PX[0, 0]
    found = namespace["stitch_positions_px"] - namespace["stitch_positions_px"][0, 0]
    error = np.hypot(*(found - true).transpose(2, 0, 1))
    # every tile keeps a well-correlated pair; the loop tolerance (1 px) bounds a consistent solution,
    # and sub-pixel registration of textured overlaps is good to a few tenths of a pixel
    assert error.max() <= 1.0, (
        f"expected tile positions within 1 px of the truth (median 0.3 px); errors (px):\n{error.round(2)}"
    )
    assert np.median(error) <= 0.3, (
        f"expected tile positions within 1 px of the truth (median 0.3 px); errors (px):\n{error.round(2)}"
    )
    rejected = [(i, j) for i, j, *_, ok in namespace["stitch_pair_table"] if not ok]
    assert rejected == [((2, 2), (2, 3))], (
        f"expected only the overlap in the empty corner, (2, 2)-(2, 3), rejected; got {rejected}"
    )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "sub-pixel refinement dropped",
        "offset = np.round(offset) + register(*shared_views(tile_a, tile_b, offset), None)",
        "offset = np.round(offset)",
    ),
    ("measured offsets ignored", "targets.append(offset if use else nominal)", "targets.append(nominal)"),
]
