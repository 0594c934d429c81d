"""Scene for the ``deconvolution`` procedure: a sparse field of beads under a true Airy PSF.

Simulates one in-focus 2-D widefield image (192 x 192 px at 0.065 µm/px: a 100x/1.4 oil objective,
GFP emission at 0.52 µm) of sub-resolution beads, 14 single and 6 in pairs 0.26 µm (4 px) apart,
on a background of 15 photons per pixel: a field that is mostly background, where a stopping rule
averaged over the whole field is satisfied almost at once. The specimen is blurred with the
pixel-integrated Airy pattern (not the Gaussian the procedure models, so the model is only
approximately right, as on real data), then recorded by an sCMOS-like camera: Poisson noise, 1.5 e-
read noise, 0.5 electrons per count and an offset of 100 counts.

Ground truth planted: the camera parameters given are the true ones (so the noise check holds), the
true PSF has a Gaussian-equivalent width close to 0.21 λ/NA, no pixel is saturated, and
``_build()[1]`` holds the bead positions, the pairs and the total photons. ``check`` asserts that
the beads come out sharper (higher peaks, deeper dips between the pairs) with their counts kept.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import signal, special

SIZE, PIXEL_SIZE_UM, NA, EMISSION_UM = 192, 0.065, 1.4, 0.52
BACKGROUND_PHOTONS, ELECTRONS_PER_COUNT, OFFSET = 15.0, 0.5, 100.0


def _airy_psf(
    pixel_um: float, na: float, wavelength_um: float, half: int = 12, oversample: int = 5
) -> np.ndarray:
    n = (2 * half + 1) * oversample
    coords = (np.arange(n) - (n - 1) / 2) / oversample * pixel_um
    v = 2 * np.pi * na / wavelength_um * np.hypot(*np.meshgrid(coords, coords, indexing="ij"))
    safe = np.where(v == 0, 1.0, v)
    airy = np.where(v == 0, 1.0, (2 * special.j1(safe) / safe) ** 2)
    airy = airy.reshape(2 * half + 1, oversample, 2 * half + 1, oversample).mean(axis=(1, 3))
    return airy / airy.sum()


@cache
def _build() -> tuple[dict[str, object], dict[str, object]]:
    rng = np.random.default_rng(11)
    specimen = np.zeros((SIZE, SIZE))
    singles, pairs = [], []
    while len(singles) + len(pairs) < 20:  # beads at least 16 px from each other and the border
        cy, cx = rng.integers(16, SIZE - 20, 2)
        taken = [*singles, *[p[0] for p in pairs], *[p[1] for p in pairs]]
        if any(abs(cy - y) < 16 and abs(cx - x) < 20 for y, x in taken):
            continue
        if len(pairs) < 6:
            pairs.append(((cy, cx), (cy, cx + 4)))
        else:
            singles.append((cy, cx))
    for y, x in [*singles, *[p for pair in pairs for p in pair]]:
        specimen[y, x] += rng.uniform(600.0, 1500.0)
    blurred = signal.fftconvolve(specimen, _airy_psf(PIXEL_SIZE_UM, NA, EMISSION_UM), mode="same")
    electrons = rng.poisson(np.clip(blurred, 0, None) + BACKGROUND_PHOTONS) + rng.normal(
        0.0, 1.5, blurred.shape
    )
    image = np.clip(np.rint(electrons / ELECTRONS_PER_COUNT + OFFSET), 0, 65535).astype(np.uint16)
    inputs = {
        "image": image,
        "psf": None,
        "pixel_size_um": PIXEL_SIZE_UM,
        "z_step_um": None,
        "na": NA,
        "emission_um": EMISSION_UM,
        "immersion_index": 1.515,
        "sample_index": 1.515,
        "confocal": False,
        "camera_offset": OFFSET,
        "electrons_per_count": ELECTRONS_PER_COUNT,
        "read_noise_e": 1.5,
    }
    return inputs, {"singles": singles, "pairs": pairs, "photons": float(blurred.sum())}


def scene() -> dict[str, object]:
    return _build()[0]


def _peak(image: np.ndarray, y: int, x: int) -> float:
    return float(image[y - 1 : y + 2, x - 1 : x + 2].max())


def check(namespace: dict) -> None:
    inputs, truth = _build()
    raw = (inputs["image"].astype(np.float64) - OFFSET) - BACKGROUND_PHOTONS / ELECTRONS_PER_COUNT
    result = namespace["deconvolved"].astype(np.float64) - BACKGROUND_PHOTONS / ELECTRONS_PER_COUNT
    # Richardson-Lucy moves a blurred point's light back towards its centre: an Airy core spread
    # over ~10 px^2 regains at least a third more peak within ten iterations; less is no sharpening
    gains = np.array([_peak(result, y, x) / _peak(raw, y, x) for y, x in truth["singles"]])
    assert np.median(gains) >= 1.3, (
        f"expected single beads' peaks at least 1.3x higher after deconvolution, got a median "
        f"{np.median(gains):.2f}x (peaks {np.median([_peak(raw, *b) for b in truth['singles']]):.0f} -> "
        f"{np.median([_peak(result, *b) for b in truth['singles']]):.0f} counts above background)"
    )

    def dip(image: np.ndarray, pair) -> float:
        (y, x0), (_, x1) = pair
        return float(image[y, x0 + 2] / min(image[y, x0], image[y, x1]))

    before = np.array([dip(raw, p) for p in truth["pairs"]])
    after = np.array([dip(result, p) for p in truth["pairs"]])
    # beads 0.26 µm apart, just beyond the Rayleigh distance (0.23 µm): the dip between them deepens
    assert np.median(after) <= np.median(before) - 0.1, (
        f"expected the dip between paired beads to deepen by at least 0.1 of their peak, got "
        f"{np.median(before):.2f} -> {np.median(after):.2f}"
    )
    total = float(namespace["deconvolved"].sum() * ELECTRONS_PER_COUNT)
    expected = truth["photons"] + BACKGROUND_PHOTONS * SIZE * SIZE
    # RL keeps the total counts (read-noise shift aside) to well under 1 %
    assert abs(total / expected - 1) < 0.01, f"expected {expected:.4g} photons kept, got {total:.4g}"


@cache
def _build_stack() -> tuple[dict[str, object], dict[str, object]]:
    """A widefield z-stack of beads blurred by the vectorial PSF itself: the 3-D widefield path."""
    import psfmodels

    rng = np.random.default_rng(5)
    shape, pixel_um, z_um = (17, 48, 48), 0.1, 0.3
    psf = psfmodels.make_psf(17, 47, dxy=pixel_um, dz=z_um, NA=NA, wvl=EMISSION_UM, ni=1.515, ns=1.515)
    specimen = np.zeros(shape)
    beads = []
    while len(beads) < 5:
        bead = (int(rng.integers(6, 11)), *rng.integers(8, 40, 2).tolist())
        if all(max(abs(bead[1] - b[1]), abs(bead[2] - b[2])) >= 12 for b in beads):
            beads.append(bead)
            specimen[bead] = rng.uniform(1500.0, 3000.0)
    blurred = np.clip(signal.fftconvolve(specimen, psf / psf.sum(), mode="same"), 0, None)
    electrons = rng.poisson(blurred + BACKGROUND_PHOTONS) + rng.normal(0.0, 1.5, shape)
    image = np.clip(np.rint(electrons / ELECTRONS_PER_COUNT + OFFSET), 0, 65535).astype(np.uint16)
    inputs = {**_build()[0], "image": image, "pixel_size_um": pixel_um, "z_step_um": z_um}
    return inputs, {"beads": beads}


def check_stack(namespace: dict) -> None:
    """Widefield 3-D: the out-of-focus light of each bead goes back into its plane."""
    inputs, truth = _build_stack()
    background = BACKGROUND_PHOTONS / ELECTRONS_PER_COUNT
    raw = inputs["image"].astype(np.float64) - OFFSET - background
    result = namespace["deconvolved"].astype(np.float64) - background
    assert namespace["psf_kind"] == "vectorial", (
        f"expected the vectorial PSF for a widefield stack, got {namespace['psf_kind']}"
    )

    def in_focus_share(image, z, y, x):
        column = image[:, y - 2 : y + 3, x - 2 : x + 3].sum(axis=(1, 2))
        return column[max(z - 1, 0) : z + 2].sum() / column.sum()

    before = np.median([in_focus_share(raw, *b) for b in truth["beads"]])
    after = np.median([in_focus_share(result, *b) for b in truth["beads"]])
    # a widefield bead spreads its light over the whole stack (the out-of-focus cone); RL with the
    # right PSF gathers a large part of it back into the three planes around focus
    assert after >= before + 0.15, (
        f"expected the share of each bead's light within ±1 plane of focus to grow by at least 0.15, "
        f"got {before:.2f} -> {after:.2f}"
    )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "stopping rule averaged over the whole field again",
        "discrepancy(observed[interior][deconv_foreground],\n"
        + " " * 38
        + "deconv_model[interior][deconv_foreground])",
        "discrepancy(observed[interior], deconv_model[interior])",
    ),
    ("PSF sigma x1/2", "sigma_xy_um = 0.21 * emission_um / na", "sigma_xy_um = 0.105 * emission_um / na"),
]
