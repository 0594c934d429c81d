"""Scene for the ``flatfield`` procedure: vignetted fields, a blank and a dark frame.

Simulates 12 fields (256 x 256 px) of sparse fluorescent cells (round blobs up to ~22 px across)
on a dim fluorescent background, imaged through an off-centre vignetting profile
whose relative gain falls from ~1.35 at its peak to ~0.5 in the far corner, on an sCMOS-like camera
with an offset of 100 counts, a small fixed pattern, read noise and shot noise. Also provides a blank
(a uniform dye slide, mean of 16 frames) and a dark frame (shutter closed, mean of 16 frames).

Ground truth planted: the gain map (mean 1) is identical in the fields and the blank, every field has
the same uniform background of 150 photons before vignetting, so after a correct correction the
background is flat to within noise; the cells cover under 10 % of each field, so the per-pixel
median over fields is background. ``_build()[1]`` is the gain map; ``check`` asserts both the
blank's flat and the one estimated from the fields against it, and how the flat is applied.
``_build(blank=False)`` drops the blank; ``_build(cells=150)`` crowds the fields.
"""

from __future__ import annotations

from functools import cache

import numpy as np


@cache
def _build(blank: bool = True, cells: int = 10) -> tuple[dict[str, object], np.ndarray]:
    rng = np.random.default_rng(20261130)
    n_fields, size = 12, 256
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)

    # Off-centre cos^4-law fall-off (vignetting) times a gentle left-right tilt, normalised to mean 1.
    r2 = ((yy - 110.0) ** 2 + (xx - 140.0) ** 2) / (1.0 * size) ** 2
    gain = (1.0 + 0.08 * xx / size) / (1.0 + r2) ** 2
    gain /= gain.mean()

    offset = 100.0 + rng.normal(0.0, 1.5, (size, size))  # camera offset with fixed pattern
    read_noise = 1.6

    def expose(photons: np.ndarray) -> np.ndarray:
        return rng.poisson(photons) + offset + rng.normal(0.0, read_noise, photons.shape)

    fields = np.empty((n_fields, size, size), dtype=np.uint16)
    for f in range(n_fields):
        specimen = np.full((size, size), 150.0)
        for _ in range(cells):
            cy, cx = rng.uniform(0, size, 2)
            radius_px = rng.uniform(4.0, 11.0)
            blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * (radius_px / 1.5) ** 2))
            specimen += rng.uniform(300.0, 900.0) * blob
        fields[f] = np.clip(np.rint(expose(specimen * gain)), 0, 65535).astype(np.uint16)

    blank_frame = np.mean([expose(np.full((size, size), 2500.0) * gain) for _ in range(16)], axis=0)
    dark = np.mean([expose(np.zeros((size, size))) for _ in range(16)], axis=0)

    return {"images": fields, "flat": blank_frame if blank else None, "dark": dark}, gain


def scene() -> dict[str, object]:
    return _build()[0]


def check(namespace: dict) -> None:
    gain = _build()[1]
    # the blank: 16 frames of 2500 photons smoothed over ~2.6 px leave ~0.05 % of noise; the blur
    # bends the steepest fall-off, at the image edge, by up to ~1 %
    error = np.abs(namespace["flat_gain"] / gain - 1)
    assert np.percentile(error, 99) < 0.01, (
        f"expected the blank's flat within 1 % of the true gain on 99 % of pixels (2 % at the edge), "
        f"got {np.percentile(error, 99):.2%} ({error.max():.2%} at worst)"
    )
    assert error.max() < 0.02, (
        f"expected the blank's flat within 1 % of the true gain on 99 % of pixels (2 % at the edge), "
        f"got {np.percentile(error, 99):.2%} ({error.max():.2%} at worst)"
    )
    # the fields' median-plus-polynomial flat: the doc claims ~2 % but for the extreme corners
    estimated = namespace["flat_estimated"] / namespace["flat_estimated"].mean()
    error = np.abs(estimated / gain - 1)
    assert np.percentile(error, 99) < 0.02, (
        f"expected the fields' flat within 2 % of the true gain on 99 % of pixels (5 % anywhere), got "
        f"{np.percentile(error, 99):.2%} ({error.max():.2%} at worst)"
    )
    assert error.max() < 0.05, (
        f"expected the fields' flat within 2 % of the true gain on 99 % of pixels (5 % anywhere), got "
        f"{np.percentile(error, 99):.2%} ({error.max():.2%} at worst)"
    )
    # and it is applied: flat_corrected = (raw - dark) / flat_gain, in the input's shape
    images, dark = _build()[0]["images"], _build()[0]["dark"]
    expected = (images[3] - dark) / namespace["flat_gain"]
    assert np.allclose(namespace["flat_corrected"][3], expected, rtol=1e-4, atol=1e-2), (
        "expected flat_corrected[3] == (images[3] - dark) / flat_gain"
    )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "polynomial degree 6 -> 2",
        "min_fields, degree, step, min_gain = 10, 6,",
        "min_fields, degree, step, min_gain = 10, 2,",
    ),
    (
        "dark not subtracted from the blank",
        "blank = np.asarray(flat, dtype=np.float64) - dark_counts",
        "blank = np.asarray(flat, dtype=np.float64)",
    ),
]
