"""Scene for spectral-unmixing: three overlapping dyes seen through five detection channels.

Emission spectra are Gaussians over the five channels (centres 1.0, 2.0 and 3.1 channel widths,
SD 0.9): the second and third dye share most of their channels, as e.g. GFP and YFP do. Dye A
fills nuclei (disks), dye B cytoplasm (rings around them), dye C puncta scattered over both and
the background, so every pair of dyes overlaps somewhere. Each channel has its own background
(camera offset plus glow, 98-112 counts); shot and read noise. Single-labelled controls of each
dye are imaged with the same settings, on other fields (other structures).

Ground truth: each dye's abundance map in photons summed over the channels (``TRUTH["abundance"]``)
and the spectra; the procedure's unmixed maps must match them within the noise its mixing matrix
propagates.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

SHAPE = (128, 128)
CHANNELS = 5
CENTRES = (1.0, 2.0, 3.1)
NAMES = ("dapi_like", "gfp_like", "yfp_like")
OFFSETS = np.array([100.0, 105.0, 98.0, 112.0, 102.0])
READ_SD = 3.0
TRUTH: dict[str, object] = {}


def _spectra() -> np.ndarray:
    channel = np.arange(CHANNELS)[:, None]
    spectra = np.exp(-0.5 * ((channel - np.array(CENTRES)[None, :]) / 0.9) ** 2)
    return spectra / spectra.sum(axis=0)  # (channel, dye), each column sums to 1


def _maps(rng) -> np.ndarray:
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]]
    nuclei = np.zeros(SHAPE)
    cyto = np.zeros(SHAPE)
    for cy, cx in rng.uniform(20, 108, (6, 2)):
        r = np.hypot(yy - cy, xx - cx)
        nuclei = np.maximum(nuclei, (r <= 9) * rng.uniform(600, 1200))
        cyto = np.maximum(cyto, ((r > 9) & (r <= 17)) * rng.uniform(300, 700))
    puncta = np.zeros(SHAPE)
    spots = rng.integers(0, SHAPE[0], (60, 2))
    puncta[spots[:, 0], spots[:, 1]] = rng.uniform(2000, 5000, 60)
    puncta = ndi.gaussian_filter(puncta, 1.2) * 2 * np.pi * 1.2**2 / 4
    return np.stack([ndi.gaussian_filter(nuclei, 1.0), ndi.gaussian_filter(cyto, 1.0), puncta])


def _camera(rng, abundance: np.ndarray) -> np.ndarray:
    expected = np.tensordot(_spectra(), abundance, axes=(1, 0)) + OFFSETS[:, None, None]
    counts = rng.poisson(expected) + rng.normal(0, READ_SD, expected.shape)
    return np.clip(counts, 0, 65535).astype(np.uint16)


def scene() -> dict[str, object]:
    rng = np.random.default_rng(8)
    abundance = _maps(rng)
    references = {}
    for k, name in enumerate(NAMES):
        single = np.zeros_like(abundance)
        single[k] = _maps(rng)[k]
        references[name] = _camera(rng, single)
    TRUTH.update(abundance=abundance, spectra=_spectra())
    return {"spectral_image": _camera(rng, abundance), "reference_images": references}


def check(namespace: dict) -> None:
    truth, unmixed = TRUTH["abundance"], namespace["unmix_abundance"]
    assert list(namespace["unmix_names"]) == list(NAMES), (
        f"expected dyes {NAMES}, got {namespace['unmix_names']}"
    )
    assert unmixed.shape == truth.shape, f"expected abundance maps {truth.shape}, got {unmixed.shape}"
    spectra = TRUTH["spectra"]
    # the noise least squares propagates, per dye and pixel: pinv(M) squared times the channel variances
    pinv = np.linalg.pinv(spectra)
    variance = np.tensordot(spectra, truth, axes=(1, 0)) + OFFSETS[:, None, None] + READ_SD**2
    sigma = np.sqrt(np.tensordot(pinv**2, variance, axes=(1, 0)))
    for k, name in enumerate(NAMES):
        error = unmixed[k] - truth[k]
        ratio = np.sqrt(np.mean(error**2) / np.mean(sigma[k] ** 2))
        # pure propagated noise gives 1; spectra and backgrounds estimated from the data may add a third
        # of its variance (1.15² = 1.32)
        assert ratio <= 1.15, (
            f"{name}: expected the unmixed map within the propagated noise of the truth (RMS error / noise "
            f"<= 1.15), got {ratio:.2f}"
        )
        others = [j for j in range(len(NAMES)) if j != k]
        alone = (truth[k] < 1) & np.all([truth[j] > 200 for j in others[:1]], axis=0)
        if alone.sum() >= 50:
            leak = unmixed[k][alone].mean()
            limit = (
                5 * np.sqrt(np.mean(sigma[k][alone] ** 2) / alone.sum())
                + 0.01 * truth[others[0]][alone].mean()
            )
            assert abs(leak) <= limit, (
                f"{name}: expected no signal where only {NAMES[others[0]]} is (|mean| <= {limit:.1f}), "
                f"got {leak:.1f}"
            )
