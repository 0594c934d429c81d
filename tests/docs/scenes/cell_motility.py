"""Scene for ``cell-motility``: tracks of cells whose motion law is planted, as track-objects returns them.

Main scene: 40 cells doing a persistent random walk (velocity an Ornstein-Uhlenbeck process, RMS
speed 2 µm/min, persistence time 5 min), a frame a minute for 40 minutes, centroids jittered by a
localisation error of 0.3 µm per axis, at 0.65 µm per pixel; one detection in 20 is missing (a gap
that track-objects closed) and a few short tracks (cells that left the field) are mixed in. The
MSD of such a walk is known exactly (Fürth): 2S²P(τ − P(1 − e^(−τ/P))) + 4σ².

Variants: pure diffusion (D = 1 µm²/min, 30 s frames, 0.2 µm error), directed motion (1.2 µm/min
in each cell's own direction plus D = 0.3 µm²/min), fast cells imaged every 10 s (S = 6 µm/min,
P = 1 min) with the localisation error given by the user. Refusals: tracks too short for an MSD,
a drifting field (every cell shares 0.5 µm/min), steps within the localisation error, and cells
caged in 2 µm.

Ground truth: ``TRUTH`` holds the model and its parameters; ``check`` compares the fit with them in
µm and minutes, within errors derived from the number of cells.
"""

from __future__ import annotations

import numpy as np

from ._cache import cached_in, seeded_in

PIXEL_UM = 0.65
TRUTH: dict[str, object] = {}


def _ou_velocity_walk(rng, n_cells, n_frames, dt_min, speed, persistence, substeps=20):
    """Positions (cells, frames, 2) in µm of a persistent random walk: OU velocity, RMS speed ``speed``."""
    h = dt_min / substeps
    decay = np.exp(-h / persistence)
    kick = np.sqrt(speed**2 / 2 * (1 - decay**2))
    v = rng.normal(0, speed / np.sqrt(2), (n_cells, 2))
    pos = np.zeros((n_cells, n_frames, 2))
    x = rng.uniform(0, 300, (n_cells, 2))
    for t in range(n_frames):
        pos[:, t] = x
        for _ in range(substeps):
            v_next = v * decay + kick * rng.normal(size=(n_cells, 2))
            x = x + (v + v_next) / 2 * h
            v = v_next
    return pos


def _diffusion(rng, n_cells, n_frames, dt_min, d, velocity=None, common=(0.0, 0.0)):
    steps = rng.normal(0, np.sqrt(2 * d * dt_min), (n_cells, n_frames, 2))
    steps[:, 0] = 0
    pos = rng.uniform(0, 300, (n_cells, 1, 2)) + np.cumsum(steps, axis=1)
    t = np.arange(n_frames)[None, :, None] * dt_min
    if velocity is not None:
        angle = rng.uniform(0, 2 * np.pi, n_cells)
        pos = pos + velocity * t * np.stack([np.sin(angle), np.cos(angle)], -1)[:, None, :]
    return pos + np.array(common) * t


def _caged(rng, n_cells, n_frames, dt_min, size_um, relax_min):
    """Cells in a harmonic cage: positions an OU process of SD ``size_um`` per axis."""
    decay = np.exp(-dt_min / relax_min)
    pos = np.zeros((n_cells, n_frames, 2))
    pos[:, 0] = rng.normal(0, size_um, (n_cells, 2))
    for t in range(1, n_frames):
        pos[:, t] = pos[:, t - 1] * decay + size_um * np.sqrt(1 - decay**2) * rng.normal(size=(n_cells, 2))
    return pos + rng.uniform(0, 300, (n_cells, 1, 2))


def _points(rng, pos, sigma_um, missing=0.05, short=0):
    """track_points rows (id, frame, label, y px, x px) with localisation noise, gaps and short tracks."""
    rows = []
    n_cells, n_frames, _ = pos.shape
    for i in range(n_cells):
        keep = rng.uniform(size=n_frames) >= missing
        keep[0] = keep[-1] = True
        for t in np.flatnonzero(keep):
            yx = (pos[i, t] + rng.normal(0, sigma_um, 2)) / PIXEL_UM
            rows.append((i, t, 1, *yx))
    for j in range(short):  # cells seen for a few frames only
        start = rng.integers(0, n_frames - 6)
        for t in range(start, start + rng.integers(3, 7)):
            rows.append((n_cells + j, t, 1, *(rng.uniform(0, 300, 2) / PIXEL_UM)))
    return np.array(rows, dtype=float)


_cached = cached_in(TRUTH)


def _inputs(points, frame_s, sigma_given=None):
    return {
        "track_points": points,
        "pixel_size_um": PIXEL_UM,
        "frame_interval_s": frame_s,
        "localization_error_um": sigma_given,
    }


def _persistent(seed: int = 4) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    pos = _ou_velocity_walk(rng, 40, 40, 1.0, speed=2.0, persistence=5.0)
    TRUTH.clear()
    TRUTH.update(model="persistent", speed=2.0, persistence=5.0, sigma=0.3, cells=40)
    return _inputs(_points(rng, pos, 0.3, short=6), 60.0)


@_cached
def scene() -> dict[str, object]:
    return _persistent()


def check(namespace: dict) -> None:
    fit = namespace["motility_fit"]
    assert fit["model"] == TRUTH["model"], (
        f"expected the {TRUTH['model']} model kept, got {fit['model']} ({fit['aic']})"
    )
    if TRUTH["model"] == "persistent":
        # 40 cells x 40 min: S to ~5 %, P to ~15 %
        assert abs(fit["speed_um_per_min"] - TRUTH["speed"]) <= 0.1 * TRUTH["speed"], (
            f"expected a speed of {TRUTH['speed']} µm/min, got {fit['speed_um_per_min']:.2f}"
        )
        assert abs(fit["persistence_min"] - TRUTH["persistence"]) <= 0.25 * TRUTH["persistence"], (
            f"expected a persistence time of {TRUTH['persistence']} min, got {fit['persistence_min']:.2f}"
        )
    if TRUTH["model"] == "diffusion":
        assert abs(fit["D_um2_per_min"] - TRUTH["d"]) <= 0.1 * TRUTH["d"], (
            f"expected D = {TRUTH['d']} µm²/min, got {fit['D_um2_per_min']:.3f}"
        )
    if TRUTH["model"] == "directed":
        assert abs(fit["velocity_um_per_min"] - TRUTH["velocity"]) <= 0.1 * TRUTH["velocity"], (
            f"expected a velocity of {TRUTH['velocity']} µm/min, got {fit['velocity_um_per_min']:.2f}"
        )
    # the offset is known to its standard error; a given error is fixed (SE 0)
    tolerance = 3 * fit["localization_error_se_um"] + 0.1 * TRUTH["sigma"]
    assert abs(fit["localization_error_um"] - TRUTH["sigma"]) <= tolerance, (
        f"expected a localisation error of {TRUTH['sigma']} µm, got {fit['localization_error_um']:.3f}"
    )
    tracks = namespace["motility_tracks"]
    assert len(tracks) == TRUTH["cells"], f"expected the {TRUTH['cells']} long tracks kept, got {len(tracks)}"
    turning = np.cos(namespace["motility_turning"]).mean()
    expected = {"persistent": (0.4, 1.0), "diffusion": (-0.2, 0.1), "directed": (0.3, 1.0)}[TRUTH["model"]]
    assert expected[0] <= turning <= expected[1], (
        f"expected the mean cosine of the turning angle in {expected} for {TRUTH['model']} motion, "
        f"got {turning:.2f}"
    )


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return seeded_in(TRUTH, lambda: _persistent(seed), check)


@_cached
def _diffusing() -> dict[str, object]:
    rng = np.random.default_rng(5)
    pos = _diffusion(rng, 50, 60, 0.5, d=1.0)
    TRUTH.clear()
    TRUTH.update(model="diffusion", d=1.0, sigma=0.2, cells=50)
    return _inputs(_points(rng, pos, 0.2), 30.0)


@_cached
def _directed() -> dict[str, object]:
    rng = np.random.default_rng(6)
    pos = _diffusion(rng, 40, 40, 1.0, d=0.3, velocity=1.2)
    TRUTH.clear()
    TRUTH.update(model="directed", velocity=1.2, sigma=0.25, cells=40)
    return _inputs(_points(rng, pos, 0.25), 60.0)


@_cached
def _fast() -> dict[str, object]:
    rng = np.random.default_rng(7)
    pos = _ou_velocity_walk(rng, 30, 60, 10 / 60, speed=6.0, persistence=1.0)
    TRUTH.clear()
    TRUTH.update(model="persistent", speed=6.0, persistence=1.0, sigma=0.15, cells=30)
    return _inputs(_points(rng, pos, 0.15), 10.0, sigma_given=0.15)


VARIANTS = {
    "pure diffusion": (_diffusing, check),
    "directed motion": (_directed, check),
    "fast cells every 10 s, localisation error given": (_fast, check),
}


@_cached
def _too_short() -> dict[str, object]:
    rng = np.random.default_rng(8)
    return _inputs(_points(rng, _ou_velocity_walk(rng, 40, 8, 1.0, 2.0, 5.0), 0.3), 60.0)


@_cached
def _drifting() -> dict[str, object]:
    rng = np.random.default_rng(9)
    return _inputs(_points(rng, _diffusion(rng, 50, 60, 0.5, d=1.0, common=(0.0, 0.5)), 0.2), 30.0)


@_cached
def _jitter() -> dict[str, object]:
    rng = np.random.default_rng(10)
    return _inputs(_points(rng, _diffusion(rng, 40, 40, 1.0, d=0.02), 0.4), 60.0)


@_cached
def _confined() -> dict[str, object]:
    rng = np.random.default_rng(11)
    return _inputs(_points(rng, _caged(rng, 40, 60, 1.0, 2.0, 3.0), 0.2), 60.0)


REFUSALS = {
    "tracks too short": (_too_short, r"too few and too short"),
    "a drifting field": (_drifting, r"share a velocity.*drift"),
    "steps within the localisation error": (_jitter, r"localisation error.*noise"),
    "cells in a cage": (_confined, r"levels off.*confined"),
}

# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "no localisation offset in the models",
        "motility_s2_max = motility_mean[0] / 4",
        "motility_s2_max = 1e-12",
    ),
    (
        "frame interval taken as minutes",
        "motility_dt_min = frame_interval_s / 60",
        "motility_dt_min = frame_interval_s / 1",
    ),
    (
        "positions left in pixels",
        "motility_xy[motility_f] = motility_rows[:, 3:5] * pixel_size_um",
        "motility_xy[motility_f] = motility_rows[:, 3:5]",
    ),
    (
        "every lag weighted alike",
        "p0=motility_p0, sigma=motility_se,",
        "p0=motility_p0, sigma=None,",
    ),
    (
        "lags up to the full track length",
        "motility_max_lag = max(4, int(np.median(motility_spans)) // 4)",
        "motility_max_lag = max(4, int(np.median(motility_spans)) - 2)",
    ),
]
