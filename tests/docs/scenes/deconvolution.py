"""Scene for the ``deconvolution`` procedure: a widefield image blurred by a true Airy PSF.

Simulates one in-focus 2-D widefield image (192 x 192 px at 0.065 µm/px: a 100x/1.4 oil objective,
GFP emission at 0.52 µm) of thin filaments, small vesicles (0.13-0.26 µm radius) and point-like beads,
some in pairs 0.26 µm apart, on a background of 15 photons per pixel. The specimen is blurred with
the pixel-integrated Airy pattern (not the Gaussian the procedure models, so the model is only
approximately right, as on real data), then recorded by an sCMOS-like camera: Poisson noise, 1.5 e-
read noise, 0.5 electrons per count and an offset of 100 counts.

Ground truth planted: the camera parameters given are the true ones (so the noise check holds), the
true PSF has a Gaussian-equivalent width close to 0.21 λ/NA, and no pixel is saturated.
"""

from __future__ import annotations

import numpy as np
from scipy import signal, special


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


def scene() -> dict[str, object]:
    rng = np.random.default_rng(11)
    size, pixel_size_um, na, emission_um = 192, 0.065, 1.4, 0.52
    specimen = np.zeros((size, size))
    yy, xx = np.mgrid[0:size, 0:size]

    for _ in range(5):  # filaments: 1 px wide lines across the field
        y0, x0 = rng.uniform(0, size, 2)
        angle = rng.uniform(0, np.pi)
        t = np.arange(-300.0, 300.0, 0.25)
        ys, xs = np.rint(y0 + t * np.sin(angle)).astype(int), np.rint(x0 + t * np.cos(angle)).astype(int)
        inside = (ys >= 0) & (ys < size) & (xs >= 0) & (xs < size)
        np.add.at(specimen, (ys[inside], xs[inside]), 20.0)
    for _ in range(6):  # vesicles
        cy, cx = rng.uniform(10, size - 10, 2)
        specimen += 60.0 * (np.hypot(yy - cy, xx - cx) <= rng.uniform(2.0, 4.0))
    for _ in range(10):  # beads, half of them in pairs 4 px (0.26 µm) apart
        cy, cx = rng.integers(10, size - 14, 2)
        specimen[cy, cx] += 3000.0
        if rng.random() < 0.5:
            specimen[cy, cx + 4] += 3000.0

    blurred = signal.fftconvolve(specimen, _airy_psf(pixel_size_um, na, emission_um), mode="same")
    electrons = rng.poisson(np.clip(blurred, 0, None) + 15.0) + rng.normal(0.0, 1.5, blurred.shape)
    image = np.clip(np.rint(electrons / 0.5 + 100.0), 0, 65535).astype(np.uint16)
    return {
        "image": image,
        "psf": None,
        "pixel_size_um": pixel_size_um,
        "z_step_um": None,
        "na": na,
        "emission_um": emission_um,
        "immersion_index": 1.515,
        "confocal": False,
        "camera_offset": 100.0,
        "electrons_per_count": 0.5,
        "read_noise_e": 1.5,
    }
