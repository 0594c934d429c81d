"""Scene for ``track-objects``: a time-lapse of fluorescent nuclei crawling, appearing and leaving.

A 160 x 160 px field at 1 µm/px, 14 frames one minute apart. Fifteen nuclei (round, 10 µm across,
brightness varying from cell to cell) move by a persistent random walk at about 1.5 µm/min, loosely
tethered to a home position and never closer than 16 µm centre to centre. Track events the
procedure must handle: one nucleus enters across the left border, one appears mid-movie (as after
a division or entering the focal plane), one disappears mid-movie (dies or leaves focus).
Background 100 counts, Poisson noise.

Variants: the review's case (25 nuclei at 0.65 µm/px, 30 frames 30 s apart, a sheet migrating at
4.5 µm/min, each nucleus dropping out of detection for one or two frames twice, as a cell leaving
focus does: 75 tracks for 25 cells and every gate passed before gap closing), and a 12-bit camera
at low photon counts. Refusals: nuclei that vanish for four to six frames (fragmented tracks),
nuclei that move over half their spacing per frame, and a blank frame.

Ground truth planted (not passed to the procedure): ``TRUTH["pos"]``, (frames, nuclei, 2)
positions in px (y, x), and ``TRUTH["visible"]``, (frames, nuclei). ``check`` asserts
that each nucleus is followed by one track from its first to its last frame with no identity swap,
and that the net and path speeds match the true ones.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import ndimage as ndi

from ._cache import cached_in, seeded_in

TRUTH: dict[str, object] = {}


def _walks(
    rng: np.random.Generator,
    n_frames: int,
    field: int,
    grid: int,
    pitch: float,
    step_px: float,
    min_gap: float,
    tether: float = 0.1,
    flow: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """Positions (frames, nuclei, 2) of persistent random walks tethered to a grid (moving by
    ``flow`` px per frame, as in collective migration), kept apart."""
    n = grid * grid
    for _ in range(500):
        home = np.stack(np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij"), -1).reshape(-1, 2)
        start = (field - (grid - 1) * pitch) / 2 + home * pitch + rng.uniform(-5, 5, size=(n, 2))
        heading = rng.uniform(0, 2 * np.pi, size=n)
        pos = np.zeros((n_frames, n, 2))
        pos[0] = start
        for t in range(1, n_frames):
            heading += rng.normal(0, 0.5, size=n)
            pos[t] = (
                pos[t - 1]
                + step_px * np.stack([np.sin(heading), np.cos(heading)], -1)
                + tether * (start + t * np.array(flow) - pos[t - 1])
            )
        gaps = np.linalg.norm(pos[:, :, None] - pos[:, None], axis=-1) + 1e9 * np.eye(n)
        if gaps.min() >= min_gap:
            return pos
    raise RuntimeError("no well-separated walks found: loosen the scene")


def _render(rng, pos, visible, diameter_px, field, levels, background, gain=1.0, full_scale=65535):
    yy, xx = np.mgrid[:field, :field]
    movie = np.zeros((pos.shape[0], field, field), dtype=np.uint16)
    for t in range(pos.shape[0]):
        frame = np.zeros((field, field))
        for i, level in enumerate(levels):
            if visible[t, i]:
                cy, cx = pos[t, i]
                frame += level * ((yy - cy) ** 2 + (xx - cx) ** 2 <= (diameter_px / 2) ** 2)
        photons = rng.poisson(ndi.gaussian_filter(frame, 1.2) + background)
        movie[t] = np.clip(np.round(gain * photons), 0, full_scale).astype(np.uint16)
    return movie


_cached = cached_in(TRUTH)


def _crawling(seed: int = 3) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    n_frames, field, diameter = 14, 160, 10
    entering = np.array([[80.0, -4.0 + 2.5 * t] for t in range(n_frames)])[:, None]  # crawls in from the left
    while True:  # 15 walkers, none closer than 16 px to the one crawling in
        pos = _walks(rng, n_frames, field, 4, 38.0, 2.0, 16.0)[:, :15]
        if np.linalg.norm(pos - entering, axis=-1).min() >= 16:
            break
    pos = np.concatenate([pos, entering], axis=1)
    visible = np.ones(pos.shape[:2], dtype=bool)
    visible[:5, 3] = False  # appears at frame 5
    visible[8:, 9] = False  # gone after frame 7
    visible[:, 15] = pos[:, 15, 1] > -diameter / 2
    levels = rng.uniform(250, 600, size=pos.shape[1])
    movie = _render(rng, pos, visible, diameter, field, levels, 100)
    TRUTH.clear()
    TRUTH.update(pos=pos, visible=visible, pixel_size_um=1.0, frame_s=60.0, diameter_px=diameter, field=field)
    return {
        "movie": movie,
        "pixel_size_um": 1.0,
        "frame_interval_s": 60.0,
        "max_speed_um_per_min": 4.0,  # the fastest plausible speed, not a multiple of it
        "object_diameter_um": 10.0,
    }


@_cached
def scene() -> dict[str, object]:
    return _crawling()


def _true_tracks() -> list[tuple[int, np.ndarray]]:
    """(nucleus, frames it must be tracked over) for every nucleus: its centre inside the field
    (one cut deeper by the border may fall below the minimum area, and may or may not be tracked)."""
    pos, visible, field, diameter = TRUTH["pos"], TRUTH["visible"], TRUTH["field"], TRUTH["diameter_px"]
    inside = (pos[..., 1] >= diameter / 2 - 1) & (pos[..., 1] < field - diameter / 2 + 1)
    return [(i, np.flatnonzero(visible[:, i] & inside[:, i])) for i in range(pos.shape[1])]


def check(namespace: dict, speed_tol: float = 0.1) -> None:
    points, summary = namespace["track_points"], namespace["track_summary"]
    pos, field, diameter = TRUTH["pos"], TRUTH["field"], TRUTH["diameter_px"]
    truth = _true_tracks()
    assert len(summary) == len(truth), f"expected {len(truth)} tracks, one per nucleus, got {len(summary)}"
    minutes_per_frame = TRUTH["frame_s"] / 60
    pixel_um = TRUTH["pixel_size_um"]
    owner: dict[int, int] = {}
    for nucleus, frames in truth:
        ids = []
        for t in frames:
            here = points[points[:, 1] == t]
            k = np.argmin(np.hypot(*(here[:, 3:] - pos[t, nucleus]).T))
            assert np.hypot(*(here[k, 3:] - pos[t, nucleus])) < diameter / 2, (
                f"nucleus {nucleus} not detected in frame {t}"
            )
            ids.append(int(here[k, 0]))
        assert len(set(ids)) == 1, (
            f"nucleus {nucleus} seen in frames {frames[0]}-{frames[-1]}: expected one track over them, got "
            f"{len(set(ids))} tracks {sorted(set(ids))}"
        )
        track_id = ids[0]
        assert owner.setdefault(track_id, nucleus) == nucleus, (
            f"track {track_id} follows nuclei {owner[track_id]} and {nucleus}: an identity swap"
        )
        rows = points[points[:, 0] == track_id]
        true_yx = pos[rows[:, 1].astype(int), nucleus]
        assert np.hypot(*(rows[:, 3:] - true_yx).T).max() < diameter / 2, (
            f"track {track_id} wanders off nucleus {nucleus}: an identity swap"
        )
        whole = (true_yx[:, 1] > diameter / 2) & (true_yx[:, 1] < field - diameter / 2)
        error = np.hypot(*(rows[:, 3:] - true_yx).T)[whole]
        assert error.max() < 0.5, f"track {track_id:.0f}: centroids up to {error.max():.2f} px off the truth"
        if whole.all():
            elapsed = (rows[-1, 1] - rows[0, 1]) * minutes_per_frame
            net = np.hypot(*(true_yx[-1] - true_yx[0])) * pixel_um / elapsed
            path = np.hypot(*np.diff(true_yx, axis=0).T).sum() * pixel_um / elapsed
            got = summary[summary[:, 0] == track_id][0]
            # centroids are good to ~0.1 px here: speeds to under speed_tol µm/min
            message = (
                f"track {track_id:.0f}: expected net {net:.2f} and path {path:.2f} µm/min, "
                f"got {got[3]:.2f} and {got[4]:.2f}"
            )
            assert abs(got[3] - net) < speed_tol, message
            assert abs(got[4] - path) < speed_tol, message


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return seeded_in(TRUTH, lambda: _crawling(seed), check)


def _blinking(
    gap_frames: tuple[int, ...], seed: int, gain: float = 1.0, low: bool = False
) -> dict[str, object]:
    """25 nuclei at 0.65 µm/px, 30 frames 30 s apart; each drops out twice for ``gap_frames``."""
    rng = np.random.default_rng(seed)
    n_frames, field, pixel_um, diameter = 30, 240, 0.65, 10 / 0.65
    # the sheet migrates to the right at 1.5 px a frame (4.5 µm/min), each nucleus wandering in it
    pos = _walks(rng, n_frames, field, 5, 46.0, 2.0, diameter + 6, tether=0.25, flow=(0.0, 1.5)) - (0.0, 22.0)
    visible = np.ones(pos.shape[:2], dtype=bool)
    for i in range(pos.shape[1]):
        for block in (rng.integers(3, 12), rng.integers(16, 26)):
            visible[block : block + rng.choice(gap_frames), i] = False
    if low:  # a 12-bit camera at 2 counts/photon: 25-50 photons over 8
        levels, background, full_scale = rng.uniform(25, 50, size=pos.shape[1]), 8, 4095
    else:
        levels, background, full_scale = rng.uniform(250, 600, size=pos.shape[1]), 100, 65535
    movie = _render(rng, pos, visible, diameter, field, levels, background, gain, full_scale)
    TRUTH.clear()
    TRUTH.update(
        pos=pos, visible=visible, pixel_size_um=pixel_um, frame_s=30.0, diameter_px=diameter, field=field
    )
    return {
        "movie": movie,
        "pixel_size_um": pixel_um,
        "frame_interval_s": 30.0,
        "max_speed_um_per_min": 8.0,
        "object_diameter_um": 10.0,
    }


@_cached
def _review() -> dict[str, object]:
    return _blinking((1, 2), seed=16)


@_cached
def _low_photons() -> dict[str, object]:
    return _blinking((1,), seed=23, gain=2.0, low=True)


VARIANTS = {
    "25 nuclei dropping out for 1-2 frames (the review's fragments)": (_review, check),
    # at ~40 photons a centroid is good to ~0.2 px: speeds over 29 frames to ~0.15 µm/min
    "12-bit camera, low photon counts": (_low_photons, functools.partial(check, speed_tol=0.15)),
}


@_cached
def _long_dropouts() -> dict[str, object]:
    return _blinking((4, 5, 6), seed=31)


@_cached
def _too_fast() -> dict[str, object]:
    # each nucleus jumps up to 14 px a frame around its home; homes 32 px apart
    rng = np.random.default_rng(9)
    n_frames, field, diameter = 10, 160, 10
    home = 32.0 + 32.0 * np.stack(np.meshgrid(np.arange(4), np.arange(4), indexing="ij"), -1).reshape(-1, 2)
    pos = np.zeros((n_frames, 16, 2))
    for t in range(n_frames):
        while True:
            angle, radius = rng.uniform(0, 2 * np.pi, 16), 14 * np.sqrt(rng.uniform(0, 1, 16))
            pos[t] = home + radius[:, None] * np.stack([np.sin(angle), np.cos(angle)], -1)
            if (np.linalg.norm(pos[t][:, None] - pos[t][None], axis=-1) + 1e9 * np.eye(16)).min() >= 13:
                break
    visible = np.ones(pos.shape[:2], dtype=bool)
    movie = _render(rng, pos, visible, diameter, field, rng.uniform(250, 600, size=16), 100)
    return {
        "movie": movie,
        "pixel_size_um": 1.0,
        "frame_interval_s": 60.0,
        "max_speed_um_per_min": 30.0,
        "object_diameter_um": 10.0,
    }


@_cached
def _blank_frame() -> dict[str, object]:
    inputs = dict(scene())
    movie = inputs["movie"].copy()
    movie[6] = np.random.default_rng(2).poisson(100, movie[6].shape)  # the shutter did not open
    inputs["movie"] = movie
    return inputs


@_cached
def _nanometres() -> dict[str, object]:
    inputs = dict(scene())
    inputs["pixel_size_um"] = 1000.0  # the metadata's nm read as µm
    return inputs


REFUSALS = {
    "pixel size in nm": (_nanometres, r"outside 0.02-20 µm.*nm"),
    "nuclei vanish for 4-6 frames (fragmented tracks)": (_long_dropouts, r"fragmented"),
    "nuclei move over half their spacing per frame": (_too_fast, r"links are ambiguous"),
    "a blank frame": (_blank_frame, r"Frames \[6\] hold"),
}

# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "net speed computed as path length",
        "track_net_um = np.hypot(*(track_rows[-1, 3:] - track_rows[0, 3:])) * pixel_size_um",
        "track_net_um = np.hypot(*np.diff(track_rows[:, 3:], axis=0).T).sum() * pixel_size_um",
    ),
    (
        "link cap halved",
        "track_max_disp_um = max_speed_um_per_min * frame_interval_s / 60",
        "track_max_disp_um = max_speed_um_per_min * frame_interval_s / 120",
    ),
    (
        "no gap closing",
        "track_max_gap = 2\n",
        "track_max_gap = 0\n",
        "25 nuclei dropping out for 1-2 frames (the review's fragments)",
    ),
    (
        "elapsed time from the number of detections, not the frames spanned",
        "track_minutes = (track_rows[-1, 1] - track_rows[0, 1]) * frame_interval_s / 60",
        "track_minutes = (len(track_rows) - 1) * frame_interval_s / 60",
        "25 nuclei dropping out for 1-2 frames (the review's fragments)",
    ),
    (
        "path length left in pixels (no µm conversion)",
        "track_path_um = np.hypot(*np.diff(track_rows[:, 3:], axis=0).T).sum() * pixel_size_um",
        "track_path_um = np.hypot(*np.diff(track_rows[:, 3:], axis=0).T).sum()",
        "25 nuclei dropping out for 1-2 frames (the review's fragments)",
    ),
    (
        "a gap's displacement not divided by the frames it spans",
        "track_d2 / np.maximum(track_skip, 1) ** 2",
        "track_d2",
        "25 nuclei dropping out for 1-2 frames (the review's fragments)",
    ),
]
