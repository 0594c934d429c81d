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
VARIANTS: a confocal stack with anisotropic voxels (bead FWHM in µm, axial and lateral, must
shrink) and the user's 20 iterations (run as given). REFUSALS: pixel size or emission in nm, no
camera gain, an EMCCD gain taken as e-/count, an NA typed half its value, clipped beads.
``_build_stack`` (a widefield stack under the vectorial PSF) is run by test_procedure_claims.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy import signal, special

SIZE, PIXEL_SIZE_UM, NA, EMISSION_UM = 192, 0.065, 1.4, 0.52
BACKGROUND_PHOTONS, ELECTRONS_PER_COUNT, OFFSET = 15.0, 0.5, 100.0
OUTPUT, PSF_KIND, HISTORY = (
    "deconv_image",
    "deconv_psf_kind",
    "deconv_history",
)  # the names the doc leaves its result and PSF choice under


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
def _build(seed: int = 11) -> tuple[dict[str, object], dict[str, object]]:
    rng = np.random.default_rng(seed)
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
        "rl_iterations": None,
    }
    return inputs, {"singles": singles, "pairs": pairs, "photons": float(blurred.sum())}


def scene() -> dict[str, object]:
    return _build()[0]


def _peak(image: np.ndarray, y: int, x: int) -> float:
    return float(image[y - 1 : y + 2, x - 1 : x + 2].max())


def check(namespace: dict, inputs: dict | None = None, seed: int = 11) -> None:
    inputs, truth = (inputs or _build(seed)[0]), _build(seed)[1]
    raw = (inputs["image"].astype(np.float64) - OFFSET) - BACKGROUND_PHOTONS / ELECTRONS_PER_COUNT
    result = namespace[OUTPUT].astype(np.float64) - BACKGROUND_PHOTONS / ELECTRONS_PER_COUNT
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
    total = float(namespace[OUTPUT].sum() * ELECTRONS_PER_COUNT)
    expected = truth["photons"] + BACKGROUND_PHOTONS * SIZE * SIZE
    # RL keeps the total counts (read-noise shift aside) to well under 1 %
    assert abs(total / expected - 1) < 0.01, f"expected {expected:.4g} photons kept, got {total:.4g}"


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return (lambda: _build(seed)[0], lambda namespace: check(namespace, seed=seed))


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
    result = namespace[OUTPUT].astype(np.float64) - background
    assert namespace[PSF_KIND] == "vectorial", (
        f"expected the vectorial PSF for a widefield stack, got {namespace[PSF_KIND]}"
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


def _gaussian_kernel(sigmas: tuple[float, ...]) -> np.ndarray:
    """A separable Gaussian over +-4 sigma, each factor integrated over its pixel, sum 1."""
    out = np.ones(())
    for sigma in sigmas:
        half = int(np.ceil(4 * sigma))
        edges = (np.arange(-half, half + 2) - 0.5) / (sigma * np.sqrt(2))
        out = np.multiply.outer(out, np.diff(special.erf(edges)) / 2)
    return out / out.sum()


@cache
def _build_confocal() -> tuple[dict[str, object], dict[str, object]]:
    """A confocal stack of beads, voxels 0.08 x 0.08 x 0.15 µm (anisotropic), blurred by a Gaussian
    of the confocal widths 0.21 λ / NA / √2 laterally and 0.376 λ / (n - √(n² - NA²)) / √2 axially."""
    rng = np.random.default_rng(3)
    shape, pixel_um, z_um = (24, 64, 64), 0.08, 0.15
    n = 1.515
    sigma_xy = 0.21 * EMISSION_UM / NA / np.sqrt(2)
    sigma_z = 0.376 * EMISSION_UM / (n - np.sqrt(n**2 - NA**2)) / np.sqrt(2)
    specimen = np.zeros(shape)
    beads = []
    while len(beads) < 6:
        bead = (int(rng.integers(8, 16)), *rng.integers(10, 54, 2).tolist())
        if all(max(abs(bead[1] - b[1]), abs(bead[2] - b[2])) >= 14 for b in beads):
            beads.append(bead)
            specimen[bead] = rng.uniform(1500.0, 3000.0)
    blurred = np.clip(
        signal.fftconvolve(
            specimen, _gaussian_kernel((sigma_z / z_um, *(2 * (sigma_xy / pixel_um,)))), mode="same"
        ),
        0,
        None,
    )
    electrons = rng.poisson(blurred + 2.0) + rng.normal(0.0, 1.5, shape)  # 2 photons of background
    image = np.clip(np.rint(electrons / ELECTRONS_PER_COUNT + OFFSET), 0, 65535).astype(np.uint16)
    inputs = {**_build()[0], "image": image, "pixel_size_um": pixel_um, "z_step_um": z_um, "confocal": True}
    truth = {
        "beads": beads,
        "photons": float(blurred.sum() + 2.0 * image.size),
        "background": 2.0,
        "fwhm_um": (2.355 * sigma_z, 2.355 * sigma_xy),
        "voxel_um": (z_um, pixel_um),
    }
    return inputs, truth


def _fwhm_um(image: np.ndarray, bead: tuple[int, int, int], axis: int, step_um: float) -> float:
    """The FWHM of a bead's profile through its centre along one axis (background already removed),
    from its second moment within 5 voxels: a Gaussian's 2.355 SD."""
    line = list(bead)
    line[axis] = slice(max(bead[axis] - 5, 0), bead[axis] + 6)
    profile = np.clip(image[tuple(line)], 0, None)
    x = np.arange(profile.size)
    centre = np.sum(x * profile) / profile.sum()
    return 2.355 * np.sqrt(np.sum((x - centre) ** 2 * profile) / profile.sum()) * step_um


def check_confocal(namespace: dict) -> None:
    """Confocal 3-D: every bead narrower in z and in x after RL, in µm, its photons kept."""
    inputs, truth = _build_confocal()
    background = truth["background"] / ELECTRONS_PER_COUNT
    raw = inputs["image"].astype(np.float64) - OFFSET - background
    result = namespace[OUTPUT].astype(np.float64) - background
    assert namespace[PSF_KIND] == "Gaussian", (
        f"expected the Gaussian PSF for a confocal stack, got {namespace[PSF_KIND]}"
    )
    for axis, name in ((0, "axial"), (2, "lateral")):
        step = truth["voxel_um"][0 if axis == 0 else 1]
        before = np.median([_fwhm_um(raw, b, axis, step) for b in truth["beads"]])
        after = np.median([_fwhm_um(result, b, axis, step) for b in truth["beads"]])
        # the blur planted is the model's; RL removes a fair part of it (a fifth at least)
        assert after <= 0.8 * before, (
            f"expected the {name} bead FWHM to shrink by a fifth, got {before:.3f} -> {after:.3f} µm"
        )
        assert before == pytest.approx(truth["fwhm_um"][0 if axis == 0 else 1], rel=0.25), (
            f"the scene's {name} FWHM is off its plan: {before:.3f} µm"
        )
    total = float(namespace[OUTPUT].sum() * ELECTRONS_PER_COUNT)
    # the read-noise shift (1.5² e-) against 2 photons of background costs a few % (the doc says so)
    assert abs(total / truth["photons"] - 1) < 0.05, (
        f"expected {truth['photons']:.4g} photons kept, got {total:.4g}"
    )


def _user_iterations() -> dict[str, object]:
    return {**_build()[0], "rl_iterations": 20}


def check_user_iterations(namespace: dict) -> None:
    """The user's 20 Richardson-Lucy iterations run, whatever the stopping rule says, and are reported
    beside the derived stop."""
    assert len(namespace[HISTORY]) - 1 == 20, (
        f"expected the user's 20 iterations, ran {len(namespace[HISTORY]) - 1}"
    )
    check(namespace)


def _dim() -> dict[str, object]:
    """The bead field with a fifth of the light: beads of 120-300 photons on 3 photons of background."""
    inputs = _build()[0]
    rng = np.random.default_rng(2)
    electrons = (inputs["image"].astype(np.float64) - OFFSET) * ELECTRONS_PER_COUNT
    thinned = rng.binomial(np.clip(np.rint(electrons), 0, None).astype(np.int64), 0.2) + rng.normal(
        0, 1.5, electrons.shape
    )
    return {
        **inputs,
        "image": np.clip(np.rint(thinned / ELECTRONS_PER_COUNT + OFFSET), 0, 65535).astype(np.uint16),
    }


# The same procedure on data its authors did not shape: each checked against its own planted truth.
VARIANTS = {
    "confocal stack, anisotropic voxels (0.08 x 0.08 x 0.15 µm)": (
        lambda: _build_confocal()[0],
        check_confocal,
    ),
    "the user's 20 Richardson-Lucy iterations": (_user_iterations, check_user_iterations),
}


# Data outside the doc's validity: its own gate must stop with a message matching the pattern.
REFUSALS = {
    "pixel size given in nm": (lambda: {**_build()[0], "pixel_size_um": 65.0}, r"pixel_size_um|undersampled"),
    "emission wavelength given in nm": (lambda: {**_build()[0], "emission_um": 520.0}, r"emission_um"),
    "no noise model: the camera's gain unknown": (
        lambda: {**_build()[0], "electrons_per_count": None},
        r"electrons_per_count",
    ),
    "EMCCD gain taken as e-/count (noise 4x the model)": (
        lambda: {**_build()[0], "electrons_per_count": 4 * ELECTRONS_PER_COUNT},
        r"camera numbers",
    ),
    "NA typed as 0.7 for a 1.4 objective (PSF twice too wide)": (lambda: {**_build()[0], "na": 0.7}, r"PSF"),
    "beads clipped at the detector's ceiling": (
        lambda: {**_build()[0], "image": np.minimum(_build()[0]["image"], 300).astype(np.uint16)},
        r"[Ss]aturat",
    ),
}


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "stopping rule averaged over the whole field again (foreground = everything)",
        "deconv_smooth > deconv_background_e + 5 * deconv_smooth_sd",
        "deconv_smooth > -np.inf",
    ),
    (
        "PSF sigma x1/2",
        "deconv_sigma_xy_um = 0.21 * emission_um / na",
        "deconv_sigma_xy_um = 0.105 * emission_um / na",
    ),
    (
        "z step converted with the lateral pixel size",
        "(deconv_sigma_z_um / z_step_um, *deconv_sigmas_px)",
        "(deconv_sigma_z_um / pixel_size_um, *deconv_sigmas_px)",
        "confocal stack, anisotropic voxels (0.08 x 0.08 x 0.15 µm)",
    ),
    (
        "confocal narrowing (1/√2) dropped",
        "deconv_sigma_xy_um / np.sqrt(2), deconv_sigma_z_um / np.sqrt(2)",
        "deconv_sigma_xy_um, deconv_sigma_z_um",
        "confocal stack, anisotropic voxels (0.08 x 0.08 x 0.15 µm)",
    ),
    (
        "camera offset not subtracted",
        "(deconv_raw - np.asarray(camera_offset, dtype=np.float32))",
        "deconv_raw",
    ),
    (
        "the user's iteration count ignored",
        "deconv_cap = deconv_max_iter if rl_iterations is None else int(rl_iterations)",
        "deconv_cap = deconv_max_iter",
        "the user's 20 Richardson-Lucy iterations",
    ),
]
