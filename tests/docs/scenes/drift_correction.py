"""Scene for ``drift-correction``: a short fluorescence time-lapse whose field drifts with the stage.

A 2-D specimen (a fine textured background of fixed structures plus 40 fixed bright cells) is
imaged for 16 frames at 30 s intervals through a 160 x 160 px window that follows a smooth stage
drift: a steady creep of about 0.5 px per frame plus a slow wobble, sub-pixel throughout, about
7 px in total. Four extra cells crawl across the field on their own (sample motion that the
procedure must not mistake for drift), the signal bleaches by 2 % per frame, the illumination
falls off by 30 % towards the corners (shading fixed to the camera, which pulls a naive
registration towards zero shift), and every frame gets Poisson noise.

Ground truth planted (not passed to the procedure): ``TRUE_DRIFT_PX``, (t, 2) position of the
imaging window relative to frame 0 in specimen pixels (y, x). The correction that registers frame
t back onto frame 0 is ``+TRUE_DRIFT_PX[t]`` (frame t shows specimen point p at p - drift).
``check`` asserts the measured correction against it, frame by frame.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import ndimage as ndi

from ._cache import cached_in, seeded_in

N_FRAMES, FIELD = 16, 160
PIXEL_SIZE_UM = 0.325
FRAME_INTERVAL_S = 30.0
MAX_DRIFT_UM_PER_MIN = 1.0
t = np.arange(N_FRAMES)
TRUE_DRIFT_PX = np.stack([0.45 * t + 0.8 * np.sin(t / 3.0), -0.3 * t + 0.6 * (1 - np.cos(t / 4.0))], axis=1)
TRUTH: dict[str, object] = {}


def _blobs(shape, centres, sigma, amplitude):
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    out = np.zeros(shape)
    for cy, cx in centres:
        out += amplitude * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * sigma**2))
    return out


def _make(
    *,
    seed: int = 11,
    drift_px: np.ndarray = TRUE_DRIFT_PX,
    pixel_size_um: float = PIXEL_SIZE_UM,
    frame_interval_s: float = FRAME_INTERVAL_S,
    max_drift_um_per_min: float = MAX_DRIFT_UM_PER_MIN,
    photons: float = 1.0,
    gain: float = 1.0,
    offset: float = 80.0,
    full_scale: int = 65535,
    turnover: bool = False,
    movers: bool = True,
) -> dict[str, object]:
    """The drifting specimen seen through the camera window; ``turnover`` replaces the fixed
    structure by a new one over the movie (cells remodelling), so the last frame no longer
    resembles the first."""
    rng = np.random.default_rng(seed)
    n_frames = len(drift_px)
    margin = max(16, int(np.ceil(np.abs(drift_px).max())) + 8)
    shape = (FIELD + 2 * margin, FIELD + 2 * margin)
    texture = ndi.gaussian_filter(rng.normal(size=shape), 3)
    fixed = 60 * np.clip(texture / texture.std() + 1, 0, None)
    fixed += _blobs(shape, rng.uniform(0, shape[0], size=(40, 2)), 3.0, 400)
    start = rng.uniform(margin + 20, margin + FIELD - 20, size=(4, 2))
    velocity = rng.uniform(-1.5, 1.5, size=(4, 2))
    later = fixed
    if turnover:
        texture2 = ndi.gaussian_filter(rng.normal(size=shape), 3)
        later = 60 * np.clip(texture2 / texture2.std() + 1, 0, None)
        later += _blobs(shape, rng.uniform(0, shape[0], size=(40, 2)), 3.0, 400)
    yy, xx = (np.mgrid[:FIELD, :FIELD] - (FIELD - 1) / 2) / (FIELD / 2)
    shading = 1 - 0.15 * (yy**2 + xx**2)
    movie = np.zeros((n_frames, FIELD, FIELD), dtype=np.uint16)
    for k in range(n_frames):
        moving = _blobs(shape, start + k * velocity, 3.0, 400 if movers else 0)
        share = k / (n_frames - 1) if turnover else 0.0
        specimen = ((1 - share) * fixed + share * later + moving) * 0.98**k
        # the window's origin moves by +drift, so the content appears shifted by -drift
        view = ndi.shift(specimen, -drift_px[k], order=3, mode="nearest")
        view = view[margin : margin + FIELD, margin : margin + FIELD] * shading * photons
        counts = gain * rng.poisson(np.clip(view + offset / gain, 0, None))
        movie[k] = np.clip(np.round(counts), 0, full_scale).astype(np.uint16)
    TRUTH.clear()
    TRUTH.update(drift_px=np.asarray(drift_px, dtype=float))
    return {
        "movie": movie,
        "pixel_size_um": pixel_size_um,
        "frame_interval_s": frame_interval_s,
        "max_drift_um_per_min": max_drift_um_per_min,
    }


_cached = cached_in(TRUTH)


@_cached
def scene() -> dict[str, object]:
    return _make()


def check(namespace: dict, tolerance_px: float = 0.15, mode: str = "first") -> None:
    error = np.hypot(*(namespace["drift_correction_px"] - TRUTH["drift_px"]).T)
    # textured fixed structure at ~100-400 photons a pixel registers to a few hundredths of a pixel;
    # the four crawling cells and the camera-fixed shading pulled the tiled estimate by at most
    # 0.1 px over 10 random layouts (a whole-frame estimate: up to 1.4 px)
    assert error.max() <= tolerance_px, (
        f"expected the drift within {tolerance_px} px of the truth in every frame; worst frame "
        f"{int(error.argmax())} is {error.max():.2f} px off"
    )
    assert namespace["drift_reference_mode"] == mode, (
        f"expected frames registered to the {mode!r} reference, got {namespace['drift_reference_mode']!r}"
    )
    corrected = namespace["drift_corrected"]
    assert corrected.shape[0] == len(TRUTH["drift_px"]), "expected one corrected frame per input frame"
    span = np.ptp(TRUTH["drift_px"], axis=0)
    assert corrected.shape[1] >= FIELD - span[0] - 2, (
        f"expected the crop to keep the common area, got {corrected.shape}"
    )
    assert corrected.shape[2] >= FIELD - span[1] - 2, (
        f"expected the crop to keep the common area, got {corrected.shape}"
    )


# 100x objective: 0.108 µm pixels, a frame every 10 s, a stage creeping at 1.5 µm/min (2.3 px/frame)
_FAST = np.stack([2.3 * t + 0.5 * np.sin(t / 2.0), -0.8 * t + 0.4 * np.cos(t / 3.0) - 0.4], axis=1)


@_cached
def _fine_pixels() -> dict[str, object]:
    return _make(
        seed=12, drift_px=_FAST, pixel_size_um=0.108, frame_interval_s=10.0, max_drift_um_per_min=2.0
    )


@_cached
def _crawlers() -> dict[str, object]:
    # the layout of 10 tried where the crawling cells pulled a whole-frame estimate most (1.4 px)
    return _make(seed=20)


@_cached
def _low_photons() -> dict[str, object]:
    # a 12-bit camera at 2 counts per photon and a tenth of the light: 6-40 photons a pixel
    return _make(seed=13, photons=0.1, gain=2.0, offset=100.0, full_scale=4095)


@_cached
def _turnover() -> dict[str, object]:
    return _make(seed=14, turnover=True, movers=False)


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return seeded_in(TRUTH, lambda: _make(seed=seed), check)


VARIANTS = {
    "crawling cells where they pull hardest": (_crawlers, check),
    "0.108 µm pixels, fast drift in pixels": (_fine_pixels, check),
    # at tens of photons a pixel: 0.3 px allowed
    "12-bit camera, low photon counts": (_low_photons, functools.partial(check, tolerance_px=0.4)),
    # chained steps: errors add up over 15 steps (0.04 px a step here, 0.6 px at the end)
    "structure replaced over the movie (previous-frame mode)": (
        _turnover,
        functools.partial(check, tolerance_px=0.8, mode="previous"),
    ),
}


@_cached
def _stage_jump() -> dict[str, object]:
    jumped = TRUE_DRIFT_PX.copy()
    jumped[9:] += (12.0, -9.0)  # someone moved the stage between frames 8 and 9
    return _make(seed=15, drift_px=jumped)


@_cached
def _blank_frame() -> dict[str, object]:
    inputs = dict(scene())
    movie = inputs["movie"].copy()
    movie[7] = np.random.default_rng(3).poisson(80, movie[7].shape)  # the shutter did not open
    inputs["movie"] = movie
    return inputs


@_cached
def _nanometres() -> dict[str, object]:
    inputs = dict(scene())
    inputs["pixel_size_um"] = 325.0  # the metadata's nm read as µm
    return inputs


REFUSALS = {
    "the stage moved between two frames": (_stage_jump, r"Frame 9 jumps"),
    "a blank frame": (_blank_frame, r"Frame [78] jumps|still moves"),
    "pixel size in nm": (_nanometres, r"outside 0.02-20 µm.*nm"),
}


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "tiles that disagree kept (crawling cells pull the shift)",
        "np.maximum(0.25, 3 * 1.4826 * np.median(off, axis=0))",
        "np.maximum(99.0, 3 * 1.4826 * np.median(off, axis=0))",
        "crawling cells where they pull hardest",
    ),
    (
        "no noise smoothing before correlating",
        "drift_noise_sigma_px, drift_shading_sigma_px = 1.0,",
        "drift_noise_sigma_px, drift_shading_sigma_px = 0.0,",
        "12-bit camera, low photon counts",
    ),
    (
        "sign of the correction flipped",
        "drift_correction_px[drift_t] = drift_step",
        "drift_correction_px[drift_t] = -drift_step",
    ),
    (
        "µm/min turned into px with the pixel size multiplied, not divided",
        "frame_interval_s / 60 / pixel_size_um + 1",
        "frame_interval_s / 60 * pixel_size_um + 1",
        "0.108 µm pixels, fast drift in pixels",
    ),
    (
        "reference chosen by a correlation threshold of 0.9, not 0.5",
        'drift_reference_mode = "first" if drift_persistence >= 0.5 else "previous"',
        'drift_reference_mode = "first" if drift_persistence >= 0.9 else "previous"',
    ),
    (
        "steps not accumulated in previous-frame mode",
        "drift_correction_px[drift_t] = drift_correction_px[drift_t - 1] + drift_step",
        "drift_correction_px[drift_t] = drift_step",
        "structure replaced over the movie (previous-frame mode)",
    ),
    (
        "crop taken from the wrong side",
        "drift_y0, drift_x0 = np.ceil(np.maximum(drift_correction_px.max(0), 0)).astype(int)",
        "drift_y0, drift_x0 = np.ceil(np.maximum(-drift_correction_px.min(0), 0)).astype(int)",
    ),
]
