"""Scene for bleach-correction: a calcium-imaging time-lapse that bleaches while some cells fire.

Main scene: 240 frames at 0.5 s of a 96 x 128 px field holding 8 round cells (radius 7 px), each
with its own resting brightness (250-700 counts above background). Every cell bleaches by the
same law, 0.15 + 0.85 exp(-t / 60 s), to 26 % of its start by the last frame. Three cells fire
transients of planted ΔF/F (0.5, 1 and 2; rise within a frame, decay time 2 s), multiplying the
resting signal, so a transient bleaches with its cell. The background is a camera offset of 100
plus a glow that is uneven (20 counts at one side of the field, 100 at a bright patch) and fades
by its own law (to 55 % over the movie): one background value for the field, or for the movie,
misplaces every cell's baseline. Shot noise and read noise (SD 3).

Variants vary what a real recording varies: a GCaMP movie at 5 frames/s whose early frames once
gave false events (the noise estimate was zero at the first frame), two-rate bleaching (a fast
component of 40 % at 8 s and a slow one at 90 s), a fixed pre-stimulus F₀ window, a running F₀
for a cell whose baseline drifts by itself, a 12-bit camera at low photon counts (gain 0.5
counts/photon). Refusals: a recording that sees too little of the decay, cells packed with no
cell-free ring around them, and bleaching that differs from cell to cell.

Ground truth: the planted ΔF/F trace of every cell (``TRUTH["dff"]``), the events (cell, onset),
the bleaching law and the resting levels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._cache import cached_in, seeded_in

SHAPE = (96, 128)
OFFSET = 100.0
READ_SD = 3.0
CENTRES = [(20, 18), (20, 60), (24, 104), (50, 36), (52, 84), (76, 16), (78, 62), (74, 110)]
TRUTH: dict[str, object] = {}


def _one_rate(tau_s: float = 60.0, stable: float = 0.15) -> Callable[[np.ndarray], np.ndarray]:
    return lambda t_s: stable + (1 - stable) * np.exp(-t_s / tau_s)


def _two_rate(t_s: np.ndarray) -> np.ndarray:
    return 0.2 + 0.8 * (0.4 * np.exp(-t_s / 8.0) + 0.6 * np.exp(-t_s / 90.0))


def _build(
    *,
    seed: int = 21,
    n_frames: int = 240,
    frame_s: float = 0.5,
    shape: tuple[int, int] = SHAPE,
    centres: list[tuple[int, int]] = CENTRES,
    radius: float = 7.0,
    bleach: Callable[[np.ndarray], np.ndarray] | None = None,
    events: tuple = (
        (1, 0.5, (20.0, 70.0)),
        (3, 0.08, (60.0,)),
        (4, 1.0, (35.0, 95.0)),
        (6, 2.0, (50.0, 110.0)),
    ),
    decay_s: float = 2.0,
    event_duration_s: float = 8.0,
    gain: float = 1.0,
    rest_range: tuple[float, float] = (250.0, 700.0),
    per_cell_bleach: Callable[[int, np.ndarray], np.ndarray] | None = None,
    extra: dict | None = None,
    full_scale: int = 65535,
    patch: float = 80.0,
) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    rois = np.zeros(shape, np.int32)
    for i, (cy, cx) in enumerate(centres, start=1):
        rois[np.hypot(yy - cy, xx - cx) <= radius] = i
    t_s = np.arange(n_frames) * frame_s
    law = (bleach or _one_rate())(t_s)
    rest = rng.uniform(*rest_range, len(centres))
    dff = np.zeros((len(centres), n_frames))
    for cell, amplitude, onsets in events:
        for onset in onsets:
            after = t_s >= onset
            dff[cell, after] += amplitude * np.exp(-(t_s[after] - onset) / decay_s)
    cell_law = np.stack([per_cell_bleach(i, t_s) if per_cell_bleach else law for i in range(len(centres))])
    signal = rest[:, None] * cell_law * (1 + dff)  # (cell, frame) photons above background
    # uneven glow (a bright patch at the right, 20 counts far from it) fading by its own law
    glow = 20 + patch * np.exp(
        -((yy - 0.3 * shape[0]) ** 2 + (xx - 0.85 * shape[1]) ** 2) / (2 * (0.45 * shape[1]) ** 2)
    )
    fade = 0.55 + 0.45 * np.exp(-t_s / 50.0)
    lut = np.vstack([np.zeros(n_frames), signal])  # row 0: background
    photons = lut[rois].transpose(2, 0, 1) + glow[None] * fade[:, None, None]  # (t, y, x)
    movie = OFFSET + gain * rng.poisson(photons) + rng.normal(0, READ_SD, photons.shape)
    npix = np.bincount(rois.ravel())[1:]
    # the noise of a cell's mean in counts: shot noise of signal and glow under it, read noise
    glow_under = np.array([glow[rois == i + 1].mean() for i in range(len(centres))])
    variance = gain**2 * (signal + glow_under[:, None] * fade[None, :]) + READ_SD**2
    sigma = np.sqrt(variance / npix[:, None]) / (gain * rest[:, None] * cell_law)
    # (cell id, onset s, peak in noise SDs): an event under 8 SDs may be missed, not invented
    onsets = [
        (cell + 1, onset, amp / sigma[cell, round(onset / frame_s)])
        for cell, amp, times in events
        for onset in times
    ]
    TRUTH.clear()
    TRUTH.update(dff=dff, rest=rest, law=law, sigma=sigma, onsets=onsets, frame_s=frame_s, n_frames=n_frames)
    inputs = {
        "timelapse": np.clip(np.round(movie), 0, full_scale).astype(np.uint16),
        "roi_labels": rois,
        "frame_interval_s": frame_s,
        "event_duration_s": event_duration_s,
        "f0_mode": "quiet",
        "stimulus_s": None,
    }
    inputs.update(extra or {})
    return inputs


_cached = cached_in(TRUTH)


@_cached
def scene() -> dict[str, object]:
    return _build()


def _check_traces(namespace: dict, slack: float = 1.3) -> None:
    dff, sigma = TRUTH["dff"], TRUTH["sigma"]
    got = namespace["bleach_dff"]
    assert got.shape == dff.shape, f"expected ΔF/F₀ of shape (cells, frames) {dff.shape}, got {got.shape}"
    n_frames = dff.shape[1]
    for cell in range(dff.shape[0]):
        error = got[cell] - dff[cell]
        ratio = np.sqrt(np.mean(error**2) / np.mean(sigma[cell] ** 2))
        # pure noise gives 1; the ring background, the fit and F0 may add 70 % of its variance
        assert ratio <= slack, (
            f"cell {cell + 1}: expected ΔF/F₀ within the shot noise of the truth (RMS error / noise <= "
            f"{slack}), got {ratio:.2f}"
        )
        quarter = n_frames // 4
        quiet = dff[cell] < 1e-3
        first, last = got[cell, :quarter][quiet[:quarter]], got[cell, -quarter:][quiet[-quarter:]]
        limit = 5 * np.sqrt(
            np.mean(sigma[cell, :quarter] ** 2) / first.size
            + np.mean(sigma[cell, -quarter:] ** 2) / last.size
        )
        drift = last.mean() - first.mean()
        assert abs(drift) <= limit, (
            f"cell {cell + 1}: expected a flat baseline (last minus first quarter within {limit:.3f}), "
            f"got {drift:+.3f}"
        )
        early = got[cell, : max(quarter // 2, 10)][quiet[: max(quarter // 2, 10)]].mean()
        # within 5 standard errors, plus 0.5 % of F0 for the ring's estimate of the glow under the cell
        limit = (
            5 * np.sqrt(np.mean(sigma[cell, : max(quarter // 2, 10)] ** 2) / max(quarter // 2, 10)) + 0.005
        )
        assert abs(early) <= limit, f"cell {cell + 1}: expected ΔF/F₀ 0 at rest early on, got {early:+.3f}"


def _check_events(namespace: dict) -> None:
    planted = sorted(TRUTH["onsets"])
    found = sorted((int(cell), float(onset)) for cell, onset, _ in namespace["bleach_events"])
    frame_s = TRUTH["frame_s"]
    unmatched = list(found)
    for cell, onset, snr in planted:
        near = [f for f in unmatched if f[0] == cell and abs(f[1] - onset) <= 1.01 * frame_s]
        if snr < 8 and not near:
            continue
        assert near, (
            f"expected the event of cell {cell} at {onset:.1f} s among the detected events, got {found}"
        )
        unmatched.remove(near[0])
    assert not unmatched, (
        f"expected only the {len(planted)} planted events; false events (cell, onset s): {unmatched}"
    )


def check(namespace: dict) -> None:
    _check_traces(namespace)
    _check_events(namespace)
    fit = namespace["bleach_fit"]
    assert fit["model"] == "one rate", (
        f"expected one bleaching rate chosen for single-rate data, got {fit['model']}"
    )
    assert abs(fit["tau_s"] - 60.0) <= 4 * fit["tau_se_s"] + 0.03 * 60.0, (
        f"expected a bleaching time of 60 s, the fit gives {fit['tau_s']:.1f} ± {fit['tau_se_s']:.1f} s"
    )


@_cached
def _gcamp() -> dict[str, object]:
    # 5 frames/s, 2 min; slow GCaMP transients (3 s window): the old noise estimate was zero at frame 0
    return _build(
        seed=5,
        n_frames=600,
        frame_s=0.2,
        shape=(64, 96),
        centres=[(16, 16), (16, 48), (18, 80), (46, 20), (48, 52), (46, 82)],
        bleach=_one_rate(45.0, 0.3),
        events=((1, 0.8, (30.0, 80.0)), (4, 1.5, (55.0,))),
        decay_s=0.8,
        event_duration_s=3.0,
    )


def _check_gcamp(namespace: dict) -> None:
    _check_traces(namespace)
    _check_events(namespace)


@_cached
def _two_rates() -> dict[str, object]:
    return _build(seed=8, bleach=_two_rate)


def _check_two_rates(namespace: dict) -> None:
    _check_traces(namespace)
    _check_events(namespace)
    fit = namespace["bleach_fit"]
    assert fit["model"] == "two rates", f"expected two bleaching rates chosen, got {fit['model']}"
    assert abs(fit["tau_fast_s"] - 8.0) <= 4 * fit["tau_fast_se_s"] + 0.8, (
        f"expected the fast bleaching time 8 s, got {fit['tau_fast_s']:.1f} ± {fit['tau_fast_se_s']:.1f} s"
    )
    assert abs(fit["tau_s"] - 90.0) <= 4 * fit["tau_se_s"] + 9.0, (
        f"expected the slow bleaching time 90 s, got {fit['tau_s']:.1f} ± {fit['tau_se_s']:.1f} s"
    )


@_cached
def _prestimulus() -> dict[str, object]:
    # a stimulus at 30 s; three cells respond after it; F0 from the 30 s before
    return _build(
        seed=13,
        events=((0, 0.7, (31.0, 80.0)), (2, 1.2, (40.0,)), (5, 0.4, (33.0, 100.0))),
        extra={"f0_mode": "prestimulus", "stimulus_s": 30.0},
    )


def _check_prestimulus(namespace: dict) -> None:
    _check_traces(namespace)
    _check_events(namespace)
    assert namespace["bleach_f0"].shape == TRUTH["dff"].shape, "expected F₀ per cell and frame"


@_cached
def _running() -> dict[str, object]:
    # cell 3 slowly loses focus: its baseline sinks 4 % more than the bleaching law over the movie
    law = _one_rate()

    def per_cell(i: int, t_s: np.ndarray) -> np.ndarray:
        return law(t_s) * (1 - 0.04 * t_s / t_s[-1]) if i == 2 else law(t_s)

    return _build(seed=17, per_cell_bleach=per_cell, extra={"f0_mode": "running"})


def _check_running(namespace: dict) -> None:
    # ΔF/F₀ follows the truth (relative to each cell's own drifting rest) for every cell
    dff, sigma = TRUTH["dff"], TRUTH["sigma"]
    got = namespace["bleach_dff"]
    for cell in range(dff.shape[0]):
        ratio = np.sqrt(np.mean((got[cell] - dff[cell]) ** 2) / np.mean(sigma[cell] ** 2))
        assert ratio <= 1.5, f"cell {cell + 1}: expected ΔF/F₀ within the noise of the truth, got {ratio:.2f}"
    _check_events(namespace)


@_cached
def _twelve_bit() -> dict[str, object]:
    # a 12-bit camera in uint16 (gain 0.5 count/photon) at a quarter of the photons
    return _build(seed=29, gain=0.5, rest_range=(60.0, 180.0), full_scale=4095)


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return seeded_in(TRUTH, lambda: _build(seed=seed), check)


VARIANTS = {
    "GCaMP at 5 frames/s: no false events early": (_gcamp, _check_gcamp),
    "two-rate bleaching": (_two_rates, _check_two_rates),
    "pre-stimulus F0 window": (_prestimulus, _check_prestimulus),
    "running F0 for a drifting cell": (_running, _check_running),
    "12-bit camera, low photon counts": (
        _twelve_bit,
        lambda namespace: (_check_traces(namespace), _check_events(namespace)),
    ),
}


@_cached
def _too_short() -> dict[str, object]:
    # 20 s of a 200 s decay: a straight line, where tau and the stable level trade off freely
    return _build(
        seed=3, n_frames=40, bleach=_one_rate(200.0, 0.0), events=((1, 1.0, (8.0,)),), event_duration_s=4.0
    )


@_cached
def _packed() -> dict[str, object]:
    # cells touching each other over the whole field (tissue): no cell-free ring around them
    centres = [(y, x) for y in range(8, 96, 15) for x in range(8, 128, 15)]
    return _build(seed=4, centres=centres, radius=7.0, events=((1, 1.0, (20.0,)),))


@_cached
def _uneven_bleach() -> dict[str, object]:
    # half the cells bleach three times slower than the others (a focus or illumination gradient)
    def per_cell(i: int, t_s: np.ndarray) -> np.ndarray:
        return _one_rate(60.0 if i % 2 else 180.0)(t_s)

    return _build(seed=6, per_cell_bleach=per_cell)


REFUSALS = {
    "recording sees too little of the decay": (_too_short, r"undetermined.*too little of the decay"),
    "packed cells, no background ring": (_packed, r"background ring|cell-free"),
    "bleaching differs between cells": (_uneven_bleach, r"still drift after correction"),
}

# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "one background value per cell for the whole movie (issue 20)",
        "trim_mean(bleach_flat[:, bleach_ring.ravel() == k], 0.1, axis=1)",
        "trim_mean(bleach_flat[:, bleach_ring.ravel() == k], 0.1, axis=None) * np.ones(bleach_n_frames)",
    ),
    (
        "one background value per frame for the whole field",
        "bleach_flat[:, bleach_ring.ravel() == k]",
        "bleach_flat[:, bleach_ring.ravel() > 0]",
    ),
    (
        "time in frames, not seconds",
        "bleach_time_s = np.arange(bleach_n_frames) * frame_interval_s",
        "bleach_time_s = np.arange(bleach_n_frames) * 1.0",
    ),
    (
        "noise SD left in raw counts, not divided by the bleaching model (too small late)",
        "/ 4)) / bleach_model",
        "/ 4))",
    ),
    (
        "events by a fixed 10 % ΔF/F₀ instead of 3 noise SDs (misses the weak event)",
        "bleach_hot = bleach_corrected > bleach_f0 + 3 * bleach_sd",
        "bleach_hot = bleach_corrected > bleach_f0 * 1.1",
    ),
    (
        "single-frame events counted",
        "if bleach_held[bleach_i, bleach_run[0]].any():",
        "if bleach_hot[bleach_i, bleach_run[0]].any():",
    ),
    (
        "one bleaching rate forced on two-rate data",
        'if bleach_fit["f_test_p"] < 1e-3:',
        "if False:",
        "two-rate bleaching",
    ),
    (
        "local noise SD replaced by one SD for the whole trace",
        "bleach_sd = 1.4826 / np.sqrt(2) * ndi.median_filter(",
        "bleach_sd = 0 * bleach_steps + 1.4826 / np.sqrt(2) * np.median(bleach_steps, axis=1, keepdims=True)"
        " + 0 * ndi.median_filter(",
    ),
]
