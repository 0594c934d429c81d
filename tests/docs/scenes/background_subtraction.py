"""Scene for the ``background-subtraction`` procedure: nuclei on an uneven additive background.

Simulates one 256 x 320 px widefield image (0.325 µm/px) of 20 well-separated, round, soft-edged
nuclei 3.5-10 µm across, sitting on an additive background made of a camera offset (100 counts),
a uniform haze (120 photons), a left-to-right ramp (+80 photons over the field) and a broad glow
(+180 photons at its peak, ~36 µm SD) near the top right, with Poisson and read noise.

Ground truth planted: the background varies by ~200 counts across the field on a scale far larger
than the largest nucleus (10 µm, the ``largest_object_um`` given), and each nucleus adds 150-500
photons at its plateau on top of it, whatever its position; so a correct subtraction leaves a flat
background near zero and object intensities independent of where they sit.
"""

from __future__ import annotations

import numpy as np


def scene() -> dict[str, object]:
    rng = np.random.default_rng(7)
    ny, nx = 256, 320
    pixel_size_um, largest_object_um = 0.325, 10.0
    yy, xx = np.mgrid[0:ny, 0:nx].astype(np.float64)

    background = 120.0 + 0.25 * xx + 180.0 * np.exp(-((yy - 60.0) ** 2 + (xx - 230.0) ** 2) / (2 * 110.0**2))

    objects = np.zeros((ny, nx))
    max_radius_px = largest_object_um / pixel_size_um / 2
    placed: list[tuple[float, float, float]] = []
    while len(placed) < 20:
        r = rng.uniform(0.35, 1.0) * max_radius_px
        cy, cx = rng.uniform(r, ny - r), rng.uniform(r, nx - r)
        if any(np.hypot(cy - py, cx - px) < r + pr + 3 for py, px, pr in placed):
            continue
        placed.append((cy, cx, r))
        edge = np.hypot(yy - cy, xx - cx) - r
        objects += rng.uniform(150.0, 500.0) / (1.0 + np.exp(edge / 1.2))

    counts = rng.poisson(background + objects) + 100.0 + rng.normal(0.0, 2.0, (ny, nx))
    image = np.clip(np.rint(counts), 0, 65535).astype(np.uint16)
    return {"image": image, "pixel_size_um": pixel_size_um, "largest_object_um": largest_object_um}
