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
estimate against the first and the corrected plateaus against the last. The variants keep the field
of view at other pixel sizes (0.1625 µm takes the binned path), scale the image to 0..1, empty
it, or dim it on a 12-bit camera; the refusals add a clump the user did not mention, give the pixel
size in nm, or objects as large as the field.
"""

from __future__ import annotations

from functools import cache

import numpy as np


@cache
def _build(
    seed: int = 7,
    *,
    pixel_size_um: float = 0.325,
    largest_object_um: float = 10.0,
    light: float = 1.0,
    n_nuclei: int = 20,
    top: int = 65535,
    clump_um: float = 0.0,
) -> tuple[dict[str, object], dict[str, object]]:
    """The same field of view (83 x 104 µm) at ``pixel_size_um``; ``light`` scales every photon
    count, ``top`` is the camera's largest count; ``clump_um`` adds one round clump that wide, with
    ``largest_object_um`` still the nuclei's size (a clump the user did not mention)."""
    rng = np.random.default_rng(seed)
    scale = 0.325 / pixel_size_um  # pixels per pixel of the original 0.325 µm scene
    ny, nx = round(256 * scale), round(320 * scale)
    yy, xx = np.mgrid[0:ny, 0:nx].astype(np.float64) / scale  # in 0.325 µm units

    background = 120.0 + 0.25 * xx + 180.0 * np.exp(-((yy - 60.0) ** 2 + (xx - 230.0) ** 2) / (2 * 110.0**2))

    objects = np.zeros((ny, nx))
    max_radius = largest_object_um / 0.325 / 2  # in 0.325 µm units
    placed: list[tuple[float, float, float, float]] = []
    while len(placed) < n_nuclei:
        r = rng.uniform(0.35, 1.0) * max_radius
        cy, cx = rng.uniform(r, 256 - r), rng.uniform(r, 320 - r)
        if any(np.hypot(cy - py, cx - px) < r + pr + 3 for py, px, pr, _ in placed):
            continue
        plateau = rng.uniform(150.0, 500.0)
        placed.append((cy, cx, r, plateau))
        edge = (np.hypot(yy - cy, xx - cx) - r) * scale
        objects += plateau / (1.0 + np.exp(edge / 1.2))
    if clump_um:
        r = clump_um / 0.325 / 2
        edge = (np.hypot(yy - 128.0, xx - 100.0) - r) * scale
        objects += 300.0 / (1.0 + np.exp(edge / 1.2))

    counts = rng.poisson(light * (background + objects)) + 100.0 + rng.normal(0.0, 2.0, (ny, nx))
    image = np.clip(np.rint(counts), 0, top).astype(np.uint16)
    inputs = {"image": image, "pixel_size_um": pixel_size_um, "largest_object_um": largest_object_um}
    nuclei = np.array([(cy * scale, cx * scale, r * scale, p) for cy, cx, r, p in placed]).reshape(-1, 4)
    truth = {"background": light * background + 100.0, "objects": light * objects, "nuclei": nuclei}
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]


def _check_against(namespace: dict, truth: dict, unit: float = 1.0) -> None:
    """``unit``: counts per unit of the doc's input (1 for counts; 4095 for an image scaled to 0..1)."""
    background = truth["background"] / unit
    yy, xx = np.mgrid[: background.shape[0], : background.shape[1]]
    error = namespace["bg_estimate"] - background
    span = np.percentile(background, 95) - np.percentile(background, 5)
    # the doc's spread gate asks for under a tenth of the background's variation; the truth must
    # meet what the image's own statistics claim
    assert np.percentile(np.abs(error), 99) < 0.1 * span, (
        f"expected the background within {0.1 * span:.3g} of the truth (99 % of pixels; it "
        f"varies by {span:.3g}), got {np.percentile(np.abs(error), 99):.3g}"
    )
    for cy, cx, radius, _ in truth["nuclei"]:
        if min(cy, cx, yy.shape[0] - cy, yy.shape[1] - cx) < radius + 4:
            continue  # at the image edge the opening has only one side to go by
        core = np.hypot(yy - cy, xx - cx) < radius
        want = float(np.mean(truth["objects"][core])) / unit
        got = float(np.mean(namespace["bg_corrected"][core]))
        # the bump gate's bound, 5 % of the signal, plus what the noise allows: the estimate comes
        # from the 2 px blurred image, whose noise is the pixel noise / 7
        noise = np.sqrt(truth["background"][int(cy), int(cx)] - 100.0 + 4.0) / 7.0 / unit
        assert abs(got - want) < 0.05 * want + 3 * noise, (
            f"nucleus at ({cy:.0f}, {cx:.0f}), {radius:.0f} px: expected {want:.4g} above "
            f"background, got {got:.4g}"
        )


def check(namespace: dict) -> None:
    _check_against(namespace, _build()[1])


def _variant(**options):
    def make() -> dict[str, object]:
        return _build(**options)[0]

    def check_variant(namespace: dict) -> None:
        _check_against(namespace, _build(**options)[1])

    return make, check_variant


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return _variant(seed=seed)


def _scaled() -> dict[str, object]:
    inputs = _build()[0]
    return {**inputs, "image": inputs["image"].astype(np.float32) / 4095.0}


VARIANTS = {
    # a disk of 62 px: the background is opened on a copy binned by 2
    "0.1625 µm pixels (40x): the binned path": _variant(pixel_size_um=0.1625, seed=8),
    "0.65 µm pixels (10x)": _variant(pixel_size_um=0.65, seed=9),
    "image scaled to 0..1 (a float export)": (
        _scaled,
        lambda namespace: _check_against(namespace, _build()[1], 4095.0),
    ),
    "empty field: background only": _variant(n_nuclei=0),
    "12-bit camera, a fifth of the light": _variant(light=0.2, top=4095, seed=10),
}

REFUSALS = {
    "a 40 µm clump the user did not mention": (
        lambda: _build(clump_um=40.0, seed=11)[0],
        r"disk fits inside it",
    ),
    "pixel size in nm (325 for 0.325 µm)": (
        lambda: {**_build()[0], "pixel_size_um": 325.0},
        r"in µm \(not nm\)",
    ),
    "objects as large as the field": (
        lambda: {**_build()[0], "largest_object_um": 60.0},
        r"does not fit twice across",
    ),
}

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
        "bg_radius_px = largest_object_um / pixel_size_um",
        "bg_radius_px = largest_object_um / pixel_size_um / 4",
    ),
    ("smoothing sigma x4", "bg_smooth_sigma_px = 2.0", "bg_smooth_sigma_px = 8.0"),
    (
        "a closing (a top-hat's dual) instead of the opening: the estimate rides over the objects",
        "morphology.opening(coarse,",
        "morphology.closing(coarse,",
    ),
    (
        "binned disk not shrunk with the binning (unit conversion)",
        "r = max(1, round(radius / factor))",
        "r = max(1, round(radius))",
        "0.1625 µm pixels (40x): the binned path",
    ),
]
