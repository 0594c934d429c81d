"""Scene for colocalization: two channels of punctate staining in cells with a cell mask.

Simulates a 256 x 256 px confocal field at 0.1 µm/px holding 6 elliptical cells (about 6 x 5 µm)
with their label image. Channel A shows 40-60 puncta per cell (Gaussian spots, sigma 1.3 px, about
0.3 µm FWHM) on a dim diffuse cytoplasm. Channel B has as many puncta: 60 % at the places of A's,
with independent brightness, the rest at places of their own, on its own diffuse level.
Each channel gets its own camera offset and background, then shot noise (uint16). The channels are
registered, unsaturated and free of bleed-through.

Ground truth planted: ``_build()[1]`` holds the share of A puncta that have a B partner and the share
of B puncta that have an A partner (both 0.6).
"""

from __future__ import annotations

import numpy as np

SHAPE = (256, 256)
PIXEL_SIZE_UM = 0.1
STRUCTURE_SIZE_UM = 0.3
SPOT_SIGMA_PX = 1.3
SHARED = 0.6


def _ellipse(shape, centre, semi_axes, angle):
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    dy, dx = yy - centre[0], xx - centre[1]
    c, s = np.cos(angle), np.sin(angle)
    u, v = c * dx + s * dy, -s * dx + c * dy
    return (u / semi_axes[0]) ** 2 + (v / semi_axes[1]) ** 2 <= 1.0


def _spots(points, amplitudes):
    """Sum of Gaussian spots, each drawn in a small window around its centre."""
    image = np.zeros(SHAPE)
    half = int(np.ceil(4 * SPOT_SIGMA_PX))
    for (r, c), amp in zip(points, amplitudes, strict=True):
        r0, c0 = int(np.rint(r)), int(np.rint(c))
        ys = slice(max(r0 - half, 0), min(r0 + half + 1, SHAPE[0]))
        xs = slice(max(c0 - half, 0), min(c0 + half + 1, SHAPE[1]))
        yy, xx = np.mgrid[ys, xs]
        image[ys, xs] += amp * np.exp(-((yy - r) ** 2 + (xx - c) ** 2) / (2 * SPOT_SIGMA_PX**2))
    return image


def _build(seed: int = 5) -> tuple[dict[str, object], dict[str, float]]:
    rng = np.random.default_rng(seed)
    cell_labels = np.zeros(SHAPE, dtype=np.int32)
    diffuse_a = np.zeros(SHAPE)
    diffuse_b = np.zeros(SHAPE)
    points_a, points_b = [], []
    for label, (gy, gx) in enumerate(np.ndindex(2, 3), start=1):
        centre = np.array([64 + 128 * gy, 43 + 85 * gx]) + rng.uniform(-3, 3, 2)
        semi = (rng.uniform(34, 40), rng.uniform(26, 32))
        cell = _ellipse(SHAPE, centre, semi, rng.uniform(0, np.pi))
        cell_labels[cell] = label
        diffuse_a[cell] = rng.uniform(15, 30)
        diffuse_b[cell] = rng.uniform(20, 40)
        rows, cols = np.nonzero(_ellipse(SHAPE, centre, (semi[0] - 4, semi[1] - 4), 0.0) & cell)
        n = int(rng.integers(40, 61))
        pick = rng.choice(rows.size, size=2 * n, replace=False)
        here = np.column_stack([rows[pick], cols[pick]]) + rng.uniform(-0.5, 0.5, (2 * n, 2))
        n_shared = int(np.rint(SHARED * n))
        points_a.extend(here[:n])
        points_b.extend(here[:n_shared])
        points_b.extend(here[n : 2 * n - n_shared])  # B's own puncta
    spots_a = _spots(points_a, rng.uniform(150, 400, len(points_a)))
    spots_b = _spots(points_b, rng.uniform(100, 300, len(points_b)))
    channel_a = rng.poisson(100.0 + 12.0 + diffuse_a + spots_a)
    channel_b = rng.poisson(100.0 + 25.0 + diffuse_b + spots_b)
    inputs = {
        "channel_a": np.clip(channel_a, 0, 65535).astype(np.uint16),
        "channel_b": np.clip(channel_b, 0, 65535).astype(np.uint16),
        "cell_labels": cell_labels,
        "pixel_size_um": PIXEL_SIZE_UM,
        "structure_size_um": STRUCTURE_SIZE_UM,
    }
    n_shared_total = len(points_a) + len(points_b) - len({tuple(p) for p in [*points_a, *points_b]})
    truth = {"a_with_b": n_shared_total / len(points_a), "b_with_a": n_shared_total / len(points_b)}
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]
