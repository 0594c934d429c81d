"""Scene for the ``background-subtraction`` procedure: nuclei on an uneven additive background.

Simulates one 256 x 320 px widefield image (0.325 µm/px) of 20 well-separated, round, soft-edged
nuclei 3.5-10 µm across, sitting on an additive background made of a camera offset (100 counts),
a uniform haze (120 photons), a left-to-right ramp (+80 photons over the field) and a broad glow
(+180 photons at its peak, ~36 µm SD) near the top right, with Poisson and read noise.

Ground truth planted: the background varies by ~200 counts across the field on a scale far larger
than the largest nucleus (10 µm, the ``largest_object_um`` given), and each nucleus adds 150-500
photons at its plateau on top of it, whatever its position; so a correct subtraction leaves a flat
background near zero and object intensities independent of where they sit. ``_build()[1]`` holds
the background in counts and each nucleus's centre, radius and plateau; ``check`` asserts the
estimate against the first and the corrected plateaus against the last.
"""

from __future__ import annotations

from functools import cache

import numpy as np


@cache
def _build() -> tuple[dict[str, object], dict[str, object]]:
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
        if any(np.hypot(cy - py, cx - px) < r + pr + 3 for py, px, pr, _ in placed):
            continue
        plateau = rng.uniform(150.0, 500.0)
        placed.append((cy, cx, r, plateau))
        edge = np.hypot(yy - cy, xx - cx) - r
        objects += plateau / (1.0 + np.exp(edge / 1.2))

    counts = rng.poisson(background + objects) + 100.0 + rng.normal(0.0, 2.0, (ny, nx))
    image = np.clip(np.rint(counts), 0, 65535).astype(np.uint16)
    inputs = {"image": image, "pixel_size_um": pixel_size_um, "largest_object_um": largest_object_um}
    return inputs, {"background": background + 100.0, "objects": objects, "nuclei": np.array(placed)}


def scene() -> dict[str, object]:
    return _build()[0]


def check(namespace: dict) -> None:
    truth = _build()[1]
    yy, xx = np.mgrid[: truth["background"].shape[0], : truth["background"].shape[1]]
    error = namespace["bg_estimate"] - truth["background"]
    span = np.percentile(truth["background"], 95) - np.percentile(truth["background"], 5)
    # the doc's spread gate asks for under a tenth of the background's variation; the truth must
    # meet what the image's own statistics claim
    assert np.percentile(np.abs(error), 99) < 0.1 * span, (
        f"expected the background within {0.1 * span:.0f} counts of the truth (99 % of pixels; it "
        f"varies by {span:.0f}), got {np.percentile(np.abs(error), 99):.1f}"
    )
    for cy, cx, radius, _ in truth["nuclei"]:
        core = np.hypot(yy - cy, xx - cx) < radius
        want = float(np.mean(truth["objects"][core]))
        got = float(np.mean(namespace["bg_corrected"][core]))
        # the bump gate's bound: the background under an object stays within 5 % of its signal
        assert abs(got - want) < 0.05 * want, (
            f"nucleus at ({cy:.0f}, {cx:.0f}), {radius:.0f} px: expected {want:.0f} counts above "
            f"background, got {got:.0f}"
        )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "background removal dropped (a constant subtracted)",
        "bg_corrected = bg_img - bg_estimate",
        "bg_corrected = bg_img - bg_estimate.mean()",
    ),
    (
        "disk radius x1/4",
        "radius_px = largest_object_um / pixel_size_um",
        "radius_px = largest_object_um / pixel_size_um / 4",
    ),
    ("smoothing sigma x4", "smooth_sigma_px = 2.0", "smooth_sigma_px = 8.0"),
]
