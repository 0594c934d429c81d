"""Scene for the ``flatfield`` procedure: vignetted fields, a blank and a dark frame.

Simulates 12 fields (256 x 256 px) of sparse fluorescent cells (round blobs up to ~22 px across)
on a dim fluorescent background, imaged through an off-centre vignetting profile
whose relative gain falls from ~1.35 at its peak to ~0.5 in the far corner, on an sCMOS-like camera
with an offset of 100 counts, a small fixed pattern, read noise and shot noise. Also provides a blank
(a uniform dye slide, mean of 16 frames) and a dark frame (shutter closed, mean of 16 frames).

Ground truth planted: the gain map (mean 1) is identical in the fields and the blank, every field has
the same uniform background of 150 photons before vignetting, so after a correct correction the
background is flat to within noise; the cells cover under 10 % of each field, so the per-pixel
median over fields is background.
"""

from __future__ import annotations

import numpy as np


def scene() -> dict[str, object]:
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
        for _ in range(10):
            cy, cx = rng.uniform(0, size, 2)
            radius_px = rng.uniform(4.0, 11.0)
            blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * (radius_px / 1.5) ** 2))
            specimen += rng.uniform(300.0, 900.0) * blob
        fields[f] = np.clip(np.rint(expose(specimen * gain)), 0, 65535).astype(np.uint16)

    blank = np.mean([expose(np.full((size, size), 2500.0) * gain) for _ in range(16)], axis=0)
    dark = np.mean([expose(np.zeros((size, size))) for _ in range(16)], axis=0)

    return {
        "images": fields,
        "flat": blank,
        "dark": dark,
    }
