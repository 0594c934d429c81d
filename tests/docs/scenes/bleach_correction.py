"""Scene for bleach-correction: a calcium-imaging time-lapse that bleaches while some cells fire.

240 frames at 0.5 s of a 96 x 128 px field holding 8 round cells (radius 7 px), each with its own
resting brightness (250-700 counts above background). Every cell bleaches by the same law,
0.15 + 0.85 exp(-t / 60 s), to 26 % of its start by the last frame. Three cells fire transients of
planted ΔF/F (0.5, 1 and 2; rise within a frame, decay time 2 s), multiplying the resting signal,
so a transient bleaches with its cell. Background: camera offset 100 plus 20 counts that do not
bleach; shot noise and read noise (SD 3).

Ground truth: the planted ΔF/F trace of every cell (``TRUTH["dff"]``), the bleaching law and the
resting levels.
"""

from __future__ import annotations

import numpy as np

SHAPE = (96, 128)
N_FRAMES = 240
FRAME_S = 0.5
TAU_S = 60.0
STABLE = 0.15
BACKGROUND = 120.0
READ_SD = 3.0
TRUTH: dict[str, object] = {}


def _build(seed: int = 21) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]]
    centres = [(20, 18), (20, 60), (24, 104), (50, 36), (52, 84), (76, 16), (78, 62), (74, 110)]
    rois = np.zeros(SHAPE, np.int32)
    for i, (cy, cx) in enumerate(centres, start=1):
        rois[np.hypot(yy - cy, xx - cx) <= 7] = i
    t_s = np.arange(N_FRAMES) * FRAME_S
    bleach = STABLE + (1 - STABLE) * np.exp(-t_s / TAU_S)
    rest = rng.uniform(250, 700, len(centres))
    dff = np.zeros((len(centres), N_FRAMES))
    for cell, amplitude, onsets in ((1, 0.5, (20.0, 70.0)), (4, 1.0, (35.0, 95.0)), (6, 2.0, (50.0, 110.0))):
        for onset in onsets:
            after = t_s >= onset
            dff[cell, after] += amplitude * np.exp(-(t_s[after] - onset) / 2.0)
    signal = rest[:, None] * bleach[None, :] * (1 + dff)  # (cell, frame) counts above background
    lut = np.vstack([np.zeros(N_FRAMES), signal])  # row 0: background
    movie = lut[rois].transpose(2, 0, 1) + BACKGROUND  # (t, y, x)
    movie = rng.poisson(movie) + rng.normal(0, READ_SD, movie.shape)
    TRUTH.update(dff=dff, rest=rest, bleach=bleach, npix=np.bincount(rois.ravel())[1:])
    return {
        "timelapse": np.clip(movie, 0, 65535).astype(np.uint16),
        "roi_labels": rois,
        "frame_interval_s": FRAME_S,
        "event_duration_s": 8.0,
    }


def scene() -> dict[str, object]:
    return _build()


def check(namespace: dict) -> None:
    dff, rest, bleach, npix = TRUTH["dff"], TRUTH["rest"], TRUTH["bleach"], TRUTH["npix"]
    got = namespace["bleach_dff"]
    assert got.shape == dff.shape, f"expected ΔF/F₀ of shape (cells, frames) {dff.shape}, got {got.shape}"
    # per-frame noise of a cell's mean, relative to its resting level once the bleaching is divided out
    signal = rest[:, None] * bleach[None, :] * (1 + dff)
    sigma = (
        np.sqrt(signal + BACKGROUND + READ_SD**2) / np.sqrt(npix[:, None]) / (rest[:, None] * bleach[None, :])
    )
    for cell in range(dff.shape[0]):
        error = got[cell] - dff[cell]
        ratio = np.sqrt(np.mean(error**2) / np.mean(sigma[cell] ** 2))
        # pure noise gives 1; the background, the fit and F0 may add 70 % of its variance (1.3² = 1.69)
        assert ratio <= 1.3, (
            f"cell {cell + 1}: expected ΔF/F₀ within the shot noise of the truth (RMS error / noise <= 1.3), "
            f"got {ratio:.2f}"
        )
        quarter = N_FRAMES // 4
        quiet = dff[cell] < 1e-3
        drift = got[cell, -quarter:][quiet[-quarter:]].mean() - got[cell, :quarter][quiet[:quarter]].mean()
        limit = 5 * np.sqrt(
            np.mean(sigma[cell] ** 2) / quiet[:quarter].sum()
            + np.mean(sigma[cell] ** 2) / quiet[-quarter:].sum()
        )
        assert abs(drift) <= limit, (
            f"cell {cell + 1}: expected a flat baseline (last minus first quarter within {limit:.3f}), "
            f"got {drift:+.3f}"
        )
    fit = namespace["bleach_fit"]
    assert abs(fit["tau_s"] - TAU_S) <= 4 * fit["tau_se_s"] + 0.03 * TAU_S, (
        f"expected a bleaching time of {TAU_S} s, the fit gives {fit['tau_s']:.1f} ± {fit['tau_se_s']:.1f} s"
    )
