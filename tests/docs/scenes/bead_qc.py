"""Scene for bead-qc: a bead z-stack, a two-colour bead image and a photon-transfer series.

The bead stack: 12 beads 0.1 µm across in a widefield stack at 0.065 µm/px and 0.1 µm planes
(100x/1.4 oil, GFP emission at 0.52 µm), each imaged as a pixel-integrated 3-D Gaussian whose
variance per axis is the PSF's plus the bead's own (d²/20 for a sphere). The PSF planted is
wider than theory, as on a real instrument: 1.15x laterally and 1.3x axially. The two-colour
image: 20 beads at 0.065 µm/px, the second channel shifted by (+40, -75) nm. The series: a dark
pair and 7 lit pairs of frames (50-3200 e-) through a camera of 0.46 e-/count, offset 100 counts,
read noise 1.6 e-, 1 % pixel-to-pixel gain spread and a 10 % illumination slope.

Ground truth planted: the PSF's FWHM (lateral, axial), the chromatic shift in nm, the camera's
gain, offset and read noise. ``check`` compares the doc's numbers with them in nm, e-/count,
counts and e-. VARIANTS: a confocal stack at 0.045 µm/px with 0.15 µm planes, three beads clipped by
a 12-bit camera, point beads under psfmodels' vectorial PSF (ratios 1.0-1.15 lateral, 0.9-1.1
axial), a PMT-like series of 8 counts per photon on a 12-bit detector (its top level
partly clipped), a 12-bit camera declared 16-bit. REFUSALS: beads too big for the PSF, planes 0.6
µm apart, three beads, a 10-bit series with 3 usable levels, a half-clipped level under a ceiling
declared too high, channels that share no bead.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import signal, special

NA, EMISSION_UM, N_OIL = 1.4, 0.52, 1.515
BEAD_UM = 0.1
GAIN_E, OFFSET, READ_E = 0.46, 100.0, 1.6  # e- per count, counts, e- rms
SHIFT_NM = (40.0, -75.0)
WIDER = (1.3, 1.15)  # the planted PSF over theory: axial, lateral


def _theory_sigma_um(confocal: bool) -> tuple[float, float]:
    """The Gaussian-equivalent PSF widths (axial, lateral) the doc's theory gives."""
    lateral = 0.21 * EMISSION_UM / NA
    axial = 0.376 * EMISSION_UM / (N_OIL - np.sqrt(N_OIL**2 - NA**2))
    scale = np.sqrt(2) if confocal else 1.0
    return axial / scale, lateral / scale


def _gaussian_blob(shape, centre, sigmas_px, total):
    """A pixel-integrated Gaussian of ``total`` photons at ``centre`` (any number of axes)."""
    out = np.asarray(total, dtype=float)
    for n, c, s in zip(shape, centre, sigmas_px, strict=True):
        edges = (np.arange(n + 1) - 0.5 - c) / (np.sqrt(2) * s)
        out = np.multiply.outer(out, np.diff(special.erf(edges)) / 2)
    return out


def _spread(rng, n, shape, gap, margin):
    """n points at least ``gap`` apart and ``margin`` from the borders (y, x)."""
    points: list[np.ndarray] = []
    while len(points) < n:
        p = rng.uniform(margin, np.array(shape) - margin)
        if all(np.hypot(*(p - q)) >= gap for q in points):
            points.append(p)
    return np.array(points)


def _camera(rng, electrons, ceiling=65535):
    counts = (rng.poisson(np.clip(electrons, 0, None)) + rng.normal(0, READ_E, np.shape(electrons))) / GAIN_E
    return np.clip(np.rint(counts + OFFSET), 0, ceiling).astype(np.uint16)


@cache
def _psf_stack(
    confocal: bool = False,
    pixel_um: float = 0.065,
    z_um: float = 0.1,
    bead_um: float = BEAD_UM,
    n_beads: int = 12,
    clipped: int = 0,
    seed: int = 21,
) -> tuple[np.ndarray, dict[str, float]]:
    rng = np.random.default_rng(seed)
    sz_um, sxy_um = _theory_sigma_um(confocal)
    psf_um = (WIDER[0] * sz_um, WIDER[1] * sxy_um)
    image_um = [np.sqrt(s**2 + bead_um**2 / 20) for s in psf_um]  # the bead's own variance added
    sigmas_px = (image_um[0] / z_um, image_um[1] / pixel_um, image_um[1] / pixel_um)
    side = round(128 * 0.065 / pixel_um)
    n_z = 2 * int(np.ceil(4 * sigmas_px[0])) + 9
    shape = (n_z, side, side)
    electrons = np.full(shape, 10.0)
    for i, (y, x) in enumerate(
        _spread(rng, n_beads, shape[1:], 24 * 0.065 / pixel_um, 10 * 0.065 / pixel_um)
    ):
        z = n_z / 2 + rng.uniform(-1.5, 1.5)
        total = 20000.0 * (16.0 if i < clipped else rng.uniform(0.8, 1.2))
        electrons += _gaussian_blob(shape, (z, y, x), sigmas_px, total)
    image = _camera(rng, electrons, ceiling=4095 if clipped else 65535)
    return image, {"fwhm_z_um": 2.355 * psf_um[0], "fwhm_xy_um": 2.355 * psf_um[1]}


@cache
def _two_colour(pixel_um: float = 0.065, same_field: bool = True, seed: int = 22) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shape = (192, 192)
    points = _spread(rng, 20, shape, 20, 10)
    channels = []
    for k, wavelength in enumerate((0.52, 0.6)):
        sigma = 0.21 * wavelength / NA / pixel_um
        electrons = np.full(shape, 10.0)
        here = points + (np.array(SHIFT_NM) / 1000 / pixel_um if k else 0)
        if k and not same_field:
            here = _spread(rng, 20, shape, 20, 10)
        for y, x in here:
            electrons += _gaussian_blob(shape, (y, x), (sigma, sigma), rng.uniform(8000, 12000))
        channels.append(_camera(rng, electrons))
    return np.stack(channels)


@cache
def _ptc(
    gain_e: float = GAIN_E,
    levels: tuple[float, ...] = (50, 100, 200, 400, 800, 1600, 3200),
    ceiling=65535,
    seed: int = 23,
):
    """(levels + 1, 2, 64, 64): a dark pair, then pairs of frames at each mean level (e-)."""
    rng = np.random.default_rng(seed)
    shape = (64, 64)
    prnu = 1 + 0.01 * rng.standard_normal(shape)  # fixed pixel-to-pixel gain spread
    slope = 1 + 0.1 * np.linspace(-0.5, 0.5, shape[1])[None, :]
    pairs = []
    for level in (0.0, *levels):
        frames = []
        for _ in range(2):
            electrons = rng.poisson(level * prnu * slope) + rng.normal(0, READ_E, shape)
            frames.append(np.clip(np.rint(electrons / gain_e + OFFSET), 0, ceiling))
        pairs.append(frames)
    return np.array(pairs, dtype=np.uint16)


def _inputs(**stack) -> dict[str, object]:
    confocal = stack.get("confocal", False)
    return {
        "bead_stack": _psf_stack(**stack)[0],
        "bead_channels": _two_colour(stack.get("pixel_um", 0.065)),
        "ptc_frames": _ptc(),
        "pixel_size_um": stack.get("pixel_um", 0.065),
        "z_step_um": stack.get("z_um", 0.1),
        "na": NA,
        "emission_um": EMISSION_UM,
        "immersion_index": N_OIL,
        "confocal": confocal,
        "bead_diameter_um": stack.get("bead_um", BEAD_UM),
        "detector_max_counts": 4095 if stack.get("clipped") else 65535,
    }


def scene() -> dict[str, object]:
    return _inputs()


def _gain_standard_error(frames: np.ndarray, ceiling: float, gain_e: float) -> float:
    """The relative standard error of a photon-transfer gain fitted as the doc fits it (variance
    against mean, weighted by 1 / variance²) to these frames: a frame pair's variance is known to
    sqrt(2 / (pixels - 1)) of itself, and a level of L e- adds L / (L + read²) of a level's worth
    of information. About 0.85 % for the main scene's 4096 pixels and 7 levels; the fixed 3 % bound
    this replaced was 3.6 of them, which seed 39 of the seed sweep reached (3.04 %) by chance."""
    frames = np.asarray(frames, dtype=np.float64)
    electrons = (frames.mean(axis=(1, 2, 3)) - OFFSET) * gain_e
    usable = (electrons > 0) & (frames.max(axis=(1, 2, 3)) < ceiling)
    usable[0] = False  # the dark pair
    share = electrons[usable] / (electrons[usable] + READ_E**2)
    return float(np.sqrt(2 / (frames[0, 0].size - 1) / np.sum(share**2)))


def _check(namespace: dict, ptc_gain_e: float = GAIN_E, **stack) -> None:
    truth = _psf_stack(**stack)[1]
    # 12 beads of ~20000 photons: each lateral width to ~1 %, the median to well under 3 %
    n_beads = 12 - stack.get("clipped", 0)
    assert len(namespace["bead_widths_um"]) == n_beads, (
        f"expected the {n_beads} unclipped beads measured, got {len(namespace['bead_widths_um'])}"
    )
    for axis, tolerance in (("xy", 0.02), ("z", 0.05)):
        got, want = namespace[f"bead_fwhm_{axis}_um"], truth[f"fwhm_{axis}_um"]
        assert abs(got / want - 1) < tolerance, (
            f"expected the PSF's {axis} FWHM {want * 1000:.0f} nm (the bead's size removed), "
            f"got {got * 1000:.0f} nm"
        )
    ratio = namespace["bead_fwhm_ratio"]
    assert abs(ratio[0] - WIDER[1]) < 0.05, (
        f"expected measured/theory {WIDER[1]} laterally, got {ratio[0]:.3f}"
    )
    assert abs(ratio[1] - WIDER[0]) < 0.1, f"expected measured/theory {WIDER[0]} axially, got {ratio[1]:.3f}"
    # 20 beads of ~10^4 photons: centroids to ~1 nm each; the shift to ~2 nm
    shift_nm = namespace["bead_shift_nm"][1]
    assert np.all(np.abs(shift_nm - np.array(SHIFT_NM)) < 5), (
        f"expected channel 1 displaced by {SHIFT_NM} nm, got {np.round(shift_nm, 1)}"
    )
    pixel_nm = 1000 * stack.get("pixel_um", 0.065)
    assert np.allclose(namespace["bead_shift_px"][1], -np.array(SHIFT_NM) / pixel_nm, atol=0.08), (
        "expected bead_shift_px to undo the displacement (ndi.shift of channel 1 by it lands on channel 0)"
    )
    tolerance = 4 * _gain_standard_error(
        namespace["ptc_frames"], namespace["detector_max_counts"], ptc_gain_e
    )
    assert abs(namespace["bead_electrons_per_count"] / ptc_gain_e - 1) < tolerance, (
        f"expected {ptc_gain_e} e-/count (within {tolerance:.1%}, 4 standard errors of the fit), "
        f"got {namespace['bead_electrons_per_count']:.3f}"
    )
    assert abs(namespace["bead_offset_counts"] - OFFSET) < 0.5, (
        f"expected the offset {OFFSET} counts, got {namespace['bead_offset_counts']:.2f}"
    )
    assert abs(namespace["bead_read_noise_e"] / READ_E - 1) < 0.1, (
        f"expected read noise {READ_E} e-, got {namespace['bead_read_noise_e']:.2f}"
    )


def check(namespace: dict) -> None:
    _check(namespace)


def _seeded_inputs(seed: int) -> dict[str, object]:
    """The main scene with its bead stack, bead pair field and camera frames drawn from ``seed``."""
    return {
        **_inputs(),
        "bead_stack": _psf_stack(seed=seed)[0],
        "bead_channels": _two_colour(seed=seed + 1),
        "ptc_frames": _ptc(seed=seed + 2),
    }


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (the planted widths, shift and camera do not depend on the seed; benchmarks/seed_sweep.py)."""
    return (lambda: _seeded_inputs(seed), check)


def _pmt() -> dict[str, object]:
    return {
        **_inputs(),
        "ptc_frames": _ptc(0.125, (5, 10, 20, 40, 80, 160, 320, 500), 4095),
        "detector_max_counts": 4095,
    }


@cache
def _vectorial_stack() -> np.ndarray:
    """Point beads under the vectorial widefield PSF psfmodels computes (Gibson-Lanni geometry, NA 1.4
    oil, 0.52 µm): a PSF this module did not shape. An ideal high-NA PSF is not the paraxial Airy."""
    import psfmodels

    rng = np.random.default_rng(24)
    psf = psfmodels.make_psf(41, 33, dxy=0.065, dz=0.1, NA=NA, wvl=EMISSION_UM, ni=N_OIL, ni0=N_OIL, ns=N_OIL)
    specimen = np.zeros((41, 128, 128))
    for y, x in _spread(rng, 10, specimen.shape[1:], 28, 16).astype(int):
        specimen[20, y, x] = 30000.0
    electrons = np.clip(signal.fftconvolve(specimen, psf / psf.sum(), mode="same"), 0, None) + 10.0
    return _camera(rng, electrons)


def _check_vectorial(namespace: dict) -> None:
    # the vectorial PSF's polarisation widens it: a Gaussian fit reads ~1.09x the paraxial theory
    # laterally and ~1.0x axially (both within what the doc calls a healthy system)
    lateral, axial = namespace["bead_fwhm_ratio"]
    assert 1.0 <= lateral <= 1.15, (
        f"expected an ideal vectorial PSF 1.0-1.15x the lateral theory, got {lateral:.3f}"
    )
    assert 0.9 <= axial <= 1.1, f"expected an ideal vectorial PSF 0.9-1.1x the axial theory, got {axial:.3f}"


VARIANTS = {
    "confocal stack at 0.045 µm/px, planes 0.15 µm apart": (
        lambda: _inputs(confocal=True, pixel_um=0.045, z_um=0.15),
        lambda ns: _check(ns, confocal=True, pixel_um=0.045, z_um=0.15),
    ),
    "three beads clipped by a 12-bit camera": (lambda: _inputs(clipped=3), lambda ns: _check(ns, clipped=3)),
    "an ideal vectorial PSF (psfmodels), point beads": (
        lambda: {**_inputs(), "bead_stack": _vectorial_stack(), "bead_diameter_um": 0.0},
        _check_vectorial,
    ),
    "PMT-like detector: 8 counts per photon, 12-bit, top level partly clipped": (
        _pmt,
        lambda ns: _check(ns, ptc_gain_e=0.125),
    ),
    "12-bit camera declared 16-bit: the clipped top level left out": (
        lambda: {**_inputs(), "ptc_frames": _ptc(ceiling=4095)},
        _check,
    ),  # the lateral width read 2.0 % low (fitted in the plane of the brightest pixel)
    "seed 23": (lambda: _seeded_inputs(23), check),
    # the gain 3.04 % off, 3.6 standard errors: chance, on 1 of 400 seeds, and in the fit's bound
    "seed 39: the gain 3.6 standard errors off": seeded(39),
}

REFUSALS = {
    "beads 0.5 µm across (too big for the PSF)": (lambda: _inputs(bead_um=0.5), r"too big"),
    "planes 0.6 µm apart (axially undersampled)": (lambda: _inputs(z_um=0.6), r"undersampled"),
    "three beads": (lambda: _inputs(n_beads=3), r"beads"),
    "photon-transfer series on a 10-bit readout, clipped from the fourth level": (
        lambda: {**_inputs(), "ptc_frames": _ptc(ceiling=1023), "detector_max_counts": 1023},
        r"levels",
    ),
    "the camera's ceiling declared too high: one level half clipped": (
        lambda: {**_inputs(), "ptc_frames": _ptc(ceiling=3600)},
        r"linear",
    ),
    "two-colour image of two different fields": (
        lambda: {**_inputs(), "bead_channels": _two_colour(same_field=False)},
        r"match",
    ),
}

MUTATIONS = [
    (
        "bead size not removed from the widths",
        "- bead_diameter_um**2 / 20",
        "",
        # +3 % at the widefield PSF, at the 2 % bound's edge on the main seed; +6 % on the confocal
        "confocal stack at 0.045 µm/px, planes 0.15 µm apart",
    ),
    (
        "confocal narrowing (1/√2) dropped from the theory",
        "bead_theory_um / np.sqrt(2)",
        "bead_theory_um",
        "confocal stack at 0.045 µm/px, planes 0.15 µm apart",
    ),
    (
        "z step taken as the pixel size",
        "bead_voxel_um = np.array([z_step_um, pixel_size_um, pixel_size_um])",
        "bead_voxel_um = np.array([pixel_size_um, pixel_size_um, pixel_size_um])",
    ),
    (
        "lateral width fitted in the plane of the brightest pixel, not at the fitted focus",
        "c[int(np.clip(np.rint(focus[0]), 0, len(c) - 1))]",
        "c[int(np.argmax(c.max(axis=(1, 2))))]",
        "seed 23",
    ),
    (
        "clipped beads kept",
        "bead_clipped = bead_crops.max(axis=(1, 2, 3)) >= detector_max_counts",
        "bead_clipped = bead_crops.max(axis=(1, 2, 3)) > np.inf",
        "three beads clipped by a 12-bit camera",
    ),
    (
        "variance of one frame (fixed pattern and illumination kept) instead of the pair's difference",
        "np.diff(bead_roi, axis=1)[:, 0].var(axis=(1, 2)) / 2",
        "bead_roi[:, 0].var(axis=(1, 2))",
    ),
    (
        "partly clipped levels kept in the photon-transfer fit",
        "(bead_roi.max(axis=(1, 2, 3)) < detector_max_counts)",
        "True",
        "PMT-like detector: 8 counts per photon, 12-bit, top level partly clipped",
    ),
]
