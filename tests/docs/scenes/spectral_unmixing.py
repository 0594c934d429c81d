"""Scene for spectral-unmixing: three overlapping dyes seen through five detection channels.

Emission spectra are Gaussians over the five channels (centres 1.0, 2.0 and 3.1 channel widths,
SD 0.9): the second and third dye share most of their channels, as e.g. GFP and YFP do. Dye A
fills nuclei (disks), dye B cytoplasm (rings around them), dye C puncta scattered over both and
the background, so every pair of dyes overlaps somewhere. Each channel has its own background
(camera offset plus glow, 98-112 counts); shot and read noise. Single-labelled controls of each
dye are imaged with the same settings, on other fields (other structures).

Variants: a PMT at 8 counts per photon (the old χ² check fired on this correct fit: 3.9), the same
with the gain given as measured, a 12-bit camera at low photon counts, and autofluorescence in the
sample with an unstained control among the references. Refusals: a fourth dye confined to puncta
that the references lack (the old median χ² passed it: 0.56), two dyes too alike for five channels,
and a wrong gain given for a PMT.

Ground truth: each dye's abundance map in counts summed over the channels (``TRUTH["abundance"]``,
photons times the gain) and the spectra; the procedure's unmixed maps must match them within the
noise its mixing matrix propagates.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import ndimage as ndi

from ._cache import cached_in, seeded_in

SHAPE = (128, 128)
CHANNELS = 5
CENTRES = (1.0, 2.0, 3.1)
NAMES = ("dapi_like", "gfp_like", "yfp_like")
OFFSETS = np.array([100.0, 105.0, 98.0, 112.0, 102.0])
READ_SD = 3.0
TRUTH: dict[str, object] = {}


def _spectra(centres=CENTRES) -> np.ndarray:
    channel = np.arange(CHANNELS)[:, None]
    spectra = np.exp(-0.5 * ((channel - np.array(centres)[None, :]) / 0.9) ** 2)
    return spectra / spectra.sum(axis=0)  # (channel, dye), each column sums to 1


def _maps(rng, shape=SHAPE) -> np.ndarray:
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    nuclei = np.zeros(shape)
    cyto = np.zeros(shape)
    for cy, cx in rng.uniform(20, 108, (6, 2)):
        r = np.hypot(yy - cy, xx - cx)
        nuclei = np.maximum(nuclei, (r <= 9) * rng.uniform(600, 1200))
        cyto = np.maximum(cyto, ((r > 9) & (r <= 17)) * rng.uniform(300, 700))
    puncta = np.zeros(shape)
    spots = rng.integers(0, shape[0], (60, 2))
    puncta[spots[:, 0], spots[:, 1]] = rng.uniform(2000, 5000, 60)
    puncta = ndi.gaussian_filter(puncta, 1.2) * 2 * np.pi * 1.2**2 / 4
    return np.stack([ndi.gaussian_filter(nuclei, 1.0), ndi.gaussian_filter(cyto, 1.0), puncta])


def _camera(rng, abundance: np.ndarray, spectra: np.ndarray, gain: float, full_scale: int) -> np.ndarray:
    """Photons per channel, Poisson, times the gain, on an offset whose shot noise is the glow's."""
    photons = rng.poisson(np.tensordot(spectra, abundance, axes=(1, 0)) + OFFSETS[:, None, None] / gain)
    counts = gain * photons + rng.normal(0, READ_SD, photons.shape)
    return np.clip(np.round(counts), 0, full_scale).astype(np.uint16)


def _build(
    *,
    seed: int = 8,
    gain: float = 1.0,
    photons: float = 1.0,
    full_scale: int = 65535,
    detector_gain: float | None = None,
    centres: tuple[float, ...] = CENTRES,
    names: tuple[str, ...] = NAMES,
    missing_centre: float | None = None,
    autofluorescence: bool = False,
) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    spectra = _spectra(centres)
    abundance = photons * _maps(rng)[: len(centres)]
    references = {}
    for k, name in enumerate(names):
        single = np.zeros_like(abundance)
        single[k] = photons * _maps(rng)[k]  # the same kind of structure, another field
        references[name] = _camera(rng, single, spectra, gain, full_scale)
    sample_abundance, sample_spectra = abundance, spectra
    if autofluorescence:  # a broad dim glow in every cell, and an unstained control of it
        broad = (np.arange(CHANNELS)[:, None] + 1.0) ** 2  # rising towards the red
        broad /= broad.sum()
        glow = photons * 150 * ndi.gaussian_filter((_maps(np.random.default_rng(seed + 1))[1] > 0) * 1.0, 1.0)
        sample_abundance = np.concatenate([abundance, glow[None]])
        sample_spectra = np.hstack([spectra, broad])
        unstained = np.zeros_like(sample_abundance)
        unstained[-1] = photons * 150 * ndi.gaussian_filter((_maps(rng)[1] > 0) * 1.0, 1.0)
        references["autofluorescence"] = _camera(rng, unstained, sample_spectra, gain, full_scale)
        names = (*names, "autofluorescence")
        abundance, spectra = sample_abundance, sample_spectra
    if missing_centre is not None:  # a dye the references lack, in puncta of its own
        extra = np.zeros(SHAPE)
        spots = rng.integers(0, SHAPE[0], (40, 2))
        extra[spots[:, 0], spots[:, 1]] = photons * rng.uniform(2000, 5000, 40)
        extra = ndi.gaussian_filter(extra, 1.2) * 2 * np.pi * 1.2**2 / 4
        sample_abundance = np.concatenate([abundance, extra[None]])
        sample_spectra = np.hstack([spectra, _spectra((missing_centre,))])
    sample = _camera(rng, sample_abundance, sample_spectra, gain, full_scale)
    TRUTH.clear()
    TRUTH.update(abundance=gain * abundance, spectra=spectra, gain=gain, names=names)
    return {"spectral_image": sample, "reference_images": references, "detector_gain": detector_gain}


_cached = cached_in(TRUTH)


@_cached
def scene() -> dict[str, object]:
    return _build()


def check(namespace: dict, slack: float = 1.15, leak_share: float = 0.01) -> None:
    truth, unmixed, names, gain = (
        TRUTH["abundance"],
        namespace["unmix_abundance"],
        TRUTH["names"],
        TRUTH["gain"],
    )
    assert list(namespace["unmix_names"]) == list(names), (
        f"expected dyes {names}, got {namespace['unmix_names']}"
    )
    assert unmixed.shape == truth.shape, f"expected abundance maps {truth.shape}, got {unmixed.shape}"
    spectra = TRUTH["spectra"]
    # the noise least squares propagates, per dye and pixel: pinv(M) squared times the channel variances
    pinv = np.linalg.pinv(spectra)
    variance = gain * np.tensordot(spectra, truth, axes=(1, 0)) + gain * OFFSETS[:, None, None] + READ_SD**2
    sigma = np.sqrt(np.tensordot(pinv**2, variance, axes=(1, 0)))
    for k, name in enumerate(names):
        error = unmixed[k] - truth[k]
        ratio = np.sqrt(np.mean(error**2) / np.mean(sigma[k] ** 2))
        # pure propagated noise gives 1; spectra and backgrounds estimated from the data may add a third
        # of its variance (1.15² = 1.32)
        assert ratio <= slack, (
            f"{name}: expected the unmixed map within the propagated noise of the truth (RMS error / noise "
            f"<= {slack}), got {ratio:.2f}"
        )
        others = [j for j in range(len(names)) if j != k]
        alone = (truth[k] < 1) & np.all([truth[j] > 200 * gain for j in others[:1]], axis=0)
        if alone.sum() >= 50:
            leak = unmixed[k][alone].mean()
            limit = (
                5 * np.sqrt(np.mean(sigma[k][alone] ** 2) / alone.sum())
                + leak_share * truth[others[0]][alone].mean()
            )
            assert abs(leak) <= limit, (
                f"{name}: expected no signal where only {names[others[0]]} is (|mean| <= {limit:.1f}), "
                f"got {leak:.1f}"
            )
    used = namespace["unmix_photon_gain"]
    assert abs(used - gain) <= 0.15 * gain, f"expected about {gain} counts per photon used, got {used:.2f}"


@_cached
def _pmt() -> dict[str, object]:
    return _build(seed=9, gain=8.0, photons=0.25)


@_cached
def _pmt_measured() -> dict[str, object]:
    return _build(seed=10, gain=8.0, photons=0.25, detector_gain=8.0)


@_cached
def _twelve_bit() -> dict[str, object]:
    # a camera at 2 counts per photon, a tenth of the light, 12 bits
    return _build(seed=11, gain=2.0, photons=0.1, full_scale=4095)


@_cached
def _autofluorescence() -> dict[str, object]:
    # two dyes and the glow: a third broad component in five channels costs the dyes too much noise
    return _build(seed=12, centres=(1.0, 3.1), names=("dapi_like", "yfp_like"), autofluorescence=True)


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return seeded_in(TRUTH, lambda: _build(seed=seed), check)


VARIANTS = {
    "PMT at 8 counts per photon, gain estimated": (_pmt, check),
    "PMT at 8 counts per photon, gain given as measured": (_pmt_measured, check),
    "12-bit camera, low photon counts": (_twelve_bit, check),
    # a third, broad component amplifies the controls' spectral errors (0.3 % of a channel here)
    "autofluorescence with an unstained control": (
        _autofluorescence,
        functools.partial(check, slack=1.3, leak_share=0.03),
    ),
}


@_cached
def _missing_dye() -> dict[str, object]:
    return _build(seed=13, missing_centre=4.3)


@_cached
def _too_alike() -> dict[str, object]:
    return _build(seed=14, centres=(1.0, 2.0, 2.2), names=("dapi_like", "gfp_like", "egfp_like"))


@_cached
def _wrong_gain() -> dict[str, object]:
    return _build(seed=15, gain=8.0, photons=0.25, detector_gain=1.0)


REFUSALS = {
    "a dye in puncta missing from the references": (_missing_dye, r"beyond their noise.*missing"),
    "two dyes too alike for the channels": (_too_alike, r"too alike"),
    "a PMT's gain given as 1": (_wrong_gain, r"beyond their noise.*gain"),
}

# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "sample background not subtracted",
        "unmix_above = unmix_sample - unmix_offset[:, None, None]",
        "unmix_above = unmix_sample - 0 * unmix_offset[:, None, None]",
    ),
    (
        "spectra scaled to their peak, not their sum (abundance no longer in counts)",
        "unmix_spectra /= unmix_spectra.sum(axis=0, keepdims=True)",
        "unmix_spectra /= unmix_spectra.max(axis=0, keepdims=True)",
    ),
    (
        "noise taken as the counts, the gain ignored (the PMT fit refused)",
        "unmix_var = unmix_bg_var[:, None, None] + unmix_photon_gain * np.maximum(",
        "unmix_var = unmix_bg_var[:, None, None] + 1.0 * np.maximum(",
        "PMT at 8 counts per photon, gain estimated",
    ),
    (
        "residual threshold at the 90th percentile, not the 99.9th",
        "unmix_chi2_dist.ppf(0.999, max(unmix_dof, 1))",
        "unmix_chi2_dist.ppf(0.9, max(unmix_dof, 1))",
    ),
    (
        "controls' background left in their spectra",
        "unmix_x = unmix_ref[:, unmix_signal] - unmix_ref_bg[:, None]",
        "unmix_x = unmix_ref[:, unmix_signal] - 0 * unmix_ref_bg[:, None]",
    ),
]
