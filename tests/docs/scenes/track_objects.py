"""Scene for ``track-objects``: a time-lapse of fluorescent nuclei crawling, appearing and leaving.

A 160 x 160 px field at 1 µm/px, 14 frames one minute apart. Fifteen nuclei (round, 10 µm across,
brightness varying from cell to cell) move by a persistent random walk at about 1.5 µm/min, loosely
tethered to a home position and never closer than 16 µm centre to centre. Track events the
procedure must handle: one nucleus enters across the left border, one appears mid-movie (as after
a division or entering the focal plane), one disappears mid-movie (dies or leaves focus).
Background 100 counts, Poisson noise.

Ground truth planted (not passed to the procedure): ``TRUE_TRACKS``, a list of (first frame,
positions (n, 2) in px (y, x)) per nucleus, and ``N_TRUE_TRACKS`` (the number of nuclei seen).
``check`` asserts that each nucleus is followed by one track from its first to its last frame,
with no identity swap, and that the net and path speeds match the true ones.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

N_FRAMES, FIELD, DIAMETER_PX = 14, 160, 10
PIXEL_SIZE_UM = 1.0
FRAME_INTERVAL_S = 60.0
MAX_SPEED_UM_PER_MIN = 4.0  # the fastest plausible speed, not a multiple of it
OBJECT_DIAMETER_UM = 10.0
TRUE_TRACKS: list[tuple[int, np.ndarray]] = []
N_TRUE_TRACKS = 0


def _walks(rng: np.random.Generator) -> list[tuple[int, int, np.ndarray]]:
    """(first frame, last frame + 1, positions over all frames) per nucleus, well separated."""
    while True:
        grid = np.stack(np.meshgrid(np.arange(4), np.arange(4), indexing="ij"), -1).reshape(-1, 2)
        start = 22 + grid[:15] * 38 + rng.uniform(-5, 5, size=(15, 2))
        start = np.vstack([start, [[80.0, -4.0]]])  # the 16th enters from the left border
        heading = rng.uniform(0, 2 * np.pi, size=16)
        pos = np.zeros((N_FRAMES, 16, 2))
        pos[0] = start
        for t in range(1, N_FRAMES):
            heading += rng.normal(0, 0.5, size=16)
            step = 2.0 * np.stack([np.sin(heading), np.cos(heading)], -1) + 0.1 * (start - pos[t - 1])
            step[15] = (0.0, 2.5)  # the entering nucleus crawls steadily to the right
            pos[t] = pos[t - 1] + step
        spans = [(0, N_FRAMES)] * 16
        spans[3] = (5, N_FRAMES)  # appears at frame 5
        spans[9] = (0, 8)  # gone after frame 7
        present = np.array([[a <= t < b for a, b in spans] for t in range(N_FRAMES)])
        gaps = np.linalg.norm(pos[:, :, None] - pos[:, None], axis=-1)
        both = present[:, :, None] & present[:, None] & ~np.eye(16, dtype=bool)
        inside = (pos[:, :15] > 8).all() and (pos[:, :15] < FIELD - 8).all()
        if gaps[both].min() >= 16 and inside:
            return [(a, b, pos[:, i]) for i, (a, b) in enumerate(spans)]


def scene() -> dict[str, object]:
    global N_TRUE_TRACKS
    rng = np.random.default_rng(3)
    walks = _walks(rng)
    brightness = rng.uniform(250, 600, size=len(walks))
    yy, xx = np.mgrid[:FIELD, :FIELD]
    movie = np.zeros((N_FRAMES, FIELD, FIELD), dtype=np.uint16)
    for t in range(N_FRAMES):
        frame = np.zeros((FIELD, FIELD))
        for (first, end, pos), level in zip(walks, brightness, strict=True):
            if first <= t < end:
                cy, cx = pos[t]
                frame += level * ((yy - cy) ** 2 + (xx - cx) ** 2 <= (DIAMETER_PX / 2) ** 2)
        movie[t] = rng.poisson(ndi.gaussian_filter(frame, 1.2) + 100).astype(np.uint16)
    TRUE_TRACKS.clear()
    for first, end, pos in walks:
        seen = [t for t in range(first, end) if -DIAMETER_PX / 2 < pos[t, 1] < FIELD]
        TRUE_TRACKS.append((seen[0], pos[seen[0] : seen[-1] + 1]))
    N_TRUE_TRACKS = len(TRUE_TRACKS)
    return {
        "movie": movie,
        "pixel_size_um": PIXEL_SIZE_UM,
        "frame_interval_s": FRAME_INTERVAL_S,
        "max_speed_um_per_min": MAX_SPEED_UM_PER_MIN,
        "object_diameter_um": OBJECT_DIAMETER_UM,
    }


def check(namespace: dict) -> None:
    tracks, summary = namespace["tracks"], namespace["track_summary"]
    assert len(summary) == N_TRUE_TRACKS, (
        f"expected {N_TRUE_TRACKS} tracks, one per nucleus, got {len(summary)}"
    )
    minutes_per_frame = FRAME_INTERVAL_S / 60
    for first, true_yx in TRUE_TRACKS:
        last = first + len(true_yx) - 1
        end = tracks[tracks[:, 1] == last]
        track_id = end[np.argmin(np.hypot(*(end[:, 3:] - true_yx[-1]).T)), 0]
        rows = tracks[tracks[:, 0] == track_id]
        # one track follows the nucleus through every frame its centre is in the field (one cut
        # deeper by the border is below min_area_px and may start the track a frame later)
        inside = first + np.flatnonzero(true_yx[:, 1] >= 0)
        assert rows[0, 1] <= inside[0], (
            f"nucleus seen in frames {inside[0]}-{last}: expected one unbroken track over them, got track "
            f"{track_id:.0f} over frames {rows[0, 1]:.0f}-{rows[-1, 1]:.0f} ({len(rows)} detections)"
        )
        assert rows[-1, 1] == last, (
            f"nucleus seen in frames {inside[0]}-{last}: expected one unbroken track over them, got track "
            f"{track_id:.0f} over frames {rows[0, 1]:.0f}-{rows[-1, 1]:.0f} ({len(rows)} detections)"
        )
        assert len(rows) == last - rows[0, 1] + 1, (
            f"nucleus seen in frames {inside[0]}-{last}: expected one unbroken track over them, got track "
            f"{track_id:.0f} over frames {rows[0, 1]:.0f}-{rows[-1, 1]:.0f} ({len(rows)} detections)"
        )
        true_yx = true_yx[int(rows[0, 1]) - first :]
        whole = (true_yx[:, 1] > DIAMETER_PX / 2) & (true_yx[:, 1] < FIELD - DIAMETER_PX / 2)
        error = np.hypot(*(rows[:, 3:] - true_yx).T)[whole]
        assert error.max() < 0.5, f"track {track_id:.0f}: centroids up to {error.max():.2f} px off the truth"
        if whole.all():
            elapsed = (len(true_yx) - 1) * minutes_per_frame
            net = np.hypot(*(true_yx[-1] - true_yx[0])) * PIXEL_SIZE_UM / elapsed
            path = np.hypot(*np.diff(true_yx, axis=0).T).sum() * PIXEL_SIZE_UM / elapsed
            got = summary[summary[:, 0] == track_id][0]
            # centroids are good to ~0.1 px here: over 13 steps speeds to under 0.1 µm/min
            assert abs(got[3] - net) < 0.1, (
                f"track {track_id:.0f}: expected net {net:.2f} and path {path:.2f} µm/min, got "
                f"{got[3]:.2f} and {got[4]:.2f}"
            )
            assert abs(got[4] - path) < 0.1, (
                f"track {track_id:.0f}: expected net {net:.2f} and path {path:.2f} µm/min, got "
                f"{got[3]:.2f} and {got[4]:.2f}"
            )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "net speed computed as path length",
        "net_um = np.hypot(*(rows[-1, 3:] - rows[0, 3:])) * pixel_size_um",
        "net_um = np.hypot(*np.diff(rows[:, 3:], axis=0).T).sum() * pixel_size_um",
    ),
    (
        "link cap halved",
        "max_disp_um = max_speed_um_per_min * frame_interval_s / 60",
        "max_disp_um = max_speed_um_per_min * frame_interval_s / 120",
    ),
]
