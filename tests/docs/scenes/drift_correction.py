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

import numpy as np
from scipy import ndimage as ndi

N_FRAMES, FIELD = 16, 160
PIXEL_SIZE_UM = 0.325
FRAME_INTERVAL_S = 30.0
MAX_DRIFT_UM_PER_MIN = 1.0
t = np.arange(N_FRAMES)
TRUE_DRIFT_PX = np.stack([0.45 * t + 0.8 * np.sin(t / 3.0), -0.3 * t + 0.6 * (1 - np.cos(t / 4.0))], axis=1)


def _blobs(shape, centres, sigma, amplitude):
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    out = np.zeros(shape)
    for cy, cx in centres:
        out += amplitude * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * sigma**2))
    return out


def scene() -> dict[str, object]:
    rng = np.random.default_rng(11)
    margin = 16
    shape = (FIELD + 2 * margin, FIELD + 2 * margin)
    texture = ndi.gaussian_filter(rng.normal(size=shape), 3)
    fixed = 60 * np.clip(texture / texture.std() + 1, 0, None)
    fixed += _blobs(shape, rng.uniform(0, shape[0], size=(40, 2)), 3.0, 400)
    start = rng.uniform(margin + 20, margin + FIELD - 20, size=(4, 2))
    velocity = rng.uniform(-1.5, 1.5, size=(4, 2))
    yy, xx = (np.mgrid[:FIELD, :FIELD] - (FIELD - 1) / 2) / (FIELD / 2)
    shading = 1 - 0.15 * (yy**2 + xx**2)
    movie = np.zeros((N_FRAMES, FIELD, FIELD), dtype=np.uint16)
    for k in range(N_FRAMES):
        moving = _blobs(shape, start + k * velocity, 3.0, 400)
        specimen = (fixed + moving) * 0.98**k
        # the window's origin moves by +drift, so the content appears shifted by -drift
        view = ndi.shift(specimen, -TRUE_DRIFT_PX[k], order=3, mode="nearest")
        view = view[margin : margin + FIELD, margin : margin + FIELD] * shading + 80
        movie[k] = rng.poisson(np.clip(view, 0, None)).astype(np.uint16)
    return {
        "movie": movie,
        "pixel_size_um": PIXEL_SIZE_UM,
        "frame_interval_s": FRAME_INTERVAL_S,
        "max_drift_um_per_min": MAX_DRIFT_UM_PER_MIN,
    }


def check(namespace: dict) -> None:
    error = np.hypot(*(namespace["drift_correction_px"] - TRUE_DRIFT_PX).T)
    # textured fixed structure at ~100-400 photons a pixel registers to a few hundredths of a
    # pixel; the four crawling cells and the camera-fixed shading pull it by less than 0.1 px
    assert error.max() <= 0.1, (
        f"expected the drift within 0.1 px of the truth in every frame; worst frame "
        f"{int(error.argmax())} is {error.max():.2f} px off"
    )
    assert namespace["drift_reference_mode"] == "first", (
        "expected frames registered to the first (the structure persists), got "
        f"{namespace['drift_reference_mode']!r}"
    )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "shading filter x400 wider (shading kept)",
        "shading_sigma_px = 1.0, min(height, width) / 20",
        "shading_sigma_px = 1.0, min(height, width) * 20",
    ),
    (
        "sign of the correction flipped",
        "drift_correction_px[frame_t] = step",
        "drift_correction_px[frame_t] = -step",
    ),
]
