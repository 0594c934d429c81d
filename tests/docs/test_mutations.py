"""The procedure gate must see a wrong procedure: deliberate mistakes in the docs' code make it fail.

Each row edits one doc's python source by an exact text replacement (the original must occur once,
so an edit of the doc cannot make a mutation silently stop applying), then runs the doc on its
scene and its scene's ``check``. The run must stop on an ``AssertionError``: one of the doc's own
validate-and-gate checkpoints, or the check against the planted truth. Any other exception would
be the mutation breaking the code rather than the method, and fails this test too.
"""

from __future__ import annotations

import pytest

from .running import doc_blocks, mutated, run_doc
from .seed_docs import scene_module

MUTATIONS = [
    # (doc, what the mistake is, text in the doc's code, its replacement)
    (
        "count-foci",
        "LoG sign flipped (dark spots sought)",
        "response = -(log_sigma_px**2) * ndi.gaussian_laplace",
        "response = (log_sigma_px**2) * ndi.gaussian_laplace",
    ),
    (
        "count-foci",
        "LoG sigma x4",
        "log_sigma_px = spot_diameter_um / 2.355 / pixel_size_um",
        "log_sigma_px = 4 * spot_diameter_um / 2.355 / pixel_size_um",
    ),
    (
        "count-foci",
        "threshold x1.3",
        "foci_threshold = centre + k_noise * foci_noise[counted]",
        "foci_threshold = centre + 1.3 * k_noise * foci_noise[counted]",
    ),
    (
        "count-foci",
        "rim bands dropped (one baseline per nucleus)",
        "distance_transform_edt(counted > 0)), rim_px)",
        "distance_transform_edt(counted > 0)), 1)",
    ),
    (
        "segment-nuclei",
        "smoothing sigma x4",
        "sigma_px = max(radius_px / 8, 1.0)",
        "sigma_px = max(radius_px / 2, 1.0)",
    ),
    ("segment-nuclei", "holes left unfilled", "small_hole[0] = False", "small_hole[:] = False"),
    (
        "segment-nuclei",
        "debris filter dropped",
        "big_enough[0] = False",
        "big_enough[:] = True; big_enough[0] = False",
    ),
    (
        "count-foci",
        "excess-noise crowding test dropped",
        "foci_crowded = (occupancy > max_occupancy) | (excess_noise > max_excess_noise)",
        "foci_crowded = occupancy > max_occupancy",
    ),
    (
        "split-touching-objects",
        "neck rule loosened past 1 (every cut kept)",
        "neck_ratio = 0.9",
        "neck_ratio = 1.2",
    ),
    (
        "split-touching-objects",
        "marker spacing x4",
        "min_distance_px = max(int(round(radius_px / 2)), 1)",
        "min_distance_px = max(int(round(radius_px * 2)), 1)",
    ),
    (
        "segmentation-qc",
        "IoU match threshold lowered to 0.3",
        "tp = int(np.sum(iou > 0.5))",
        "tp = int(np.sum(iou > 0.3))",
    ),
    (
        "segmentation-qc",
        "split-suspect area rule x1/4",
        "(area < expected_area_px / 2) & touches_other",
        "(area < expected_area_px / 8) & touches_other",
    ),
    (
        "measure-physical-units",
        "voxel spacing dropped",
        "properties=measure_props, spacing=spacing)",
        "properties=measure_props)",
    ),
    (
        "measure-physical-units",
        "background removal dropped",
        "measure_background = float(np.median(measure_img[far]))",
        "measure_background = 0.0",
    ),
    (
        "background-subtraction",
        "background removal dropped (a constant subtracted)",
        "bg_corrected = bg_img - bg_estimate",
        "bg_corrected = bg_img - bg_estimate.mean()",
    ),
    (
        "background-subtraction",
        "disk radius x1/4",
        "radius_px = largest_object_um / pixel_size_um",
        "radius_px = largest_object_um / pixel_size_um / 4",
    ),
    ("background-subtraction", "smoothing sigma x4", "smooth_sigma_px = 2.0", "smooth_sigma_px = 8.0"),
    (
        "flatfield",
        "polynomial degree 6 -> 2",
        "min_fields, degree, step, min_gain = 10, 6,",
        "min_fields, degree, step, min_gain = 10, 2,",
    ),
    (
        "flatfield",
        "dark not subtracted from the blank",
        "blank = np.asarray(flat, dtype=np.float64) - dark_counts",
        "blank = np.asarray(flat, dtype=np.float64)",
    ),
    (
        "stitch-tiles",
        "sub-pixel refinement dropped",
        "offset = np.round(offset) + register(*shared_views(tile_a, tile_b, offset), None)",
        "offset = np.round(offset)",
    ),
    (
        "stitch-tiles",
        "measured offsets ignored",
        "targets.append(offset if use else nominal)",
        "targets.append(nominal)",
    ),
    (
        "drift-correction",
        "shading filter x400 wider (shading kept)",
        "shading_sigma_px = 1.0, min(height, width) / 20",
        "shading_sigma_px = 1.0, min(height, width) * 20",
    ),
    (
        "drift-correction",
        "sign of the correction flipped",
        "drift_correction_px[frame_t] = step",
        "drift_correction_px[frame_t] = -step",
    ),
    (
        "deconvolution",
        "stopping rule averaged over the whole field again",
        "discrepancy(observed[interior][deconv_foreground],\n"
        + " " * 38
        + "deconv_model[interior][deconv_foreground])",
        "discrepancy(observed[interior], deconv_model[interior])",
    ),
    (
        "deconvolution",
        "PSF sigma x1/2",
        "sigma_xy_um = 0.21 * emission_um / na",
        "sigma_xy_um = 0.105 * emission_um / na",
    ),
    (
        "colocalization",
        "control shift x1/4 (control overlaps the structures)",
        "control_shift_px = int(np.ceil(2 * structure_px))",
        "control_shift_px = int(np.ceil(0.5 * structure_px))",
    ),
    (
        "colocalization",
        "Costes thresholds replaced by the noise floor",
        "if correlated and cov > 0:",
        "if False:",
    ),
    (
        "track-objects",
        "net speed computed as path length",
        "net_um = np.hypot(*(rows[-1, 3:] - rows[0, 3:])) * pixel_size_um",
        "net_um = np.hypot(*np.diff(rows[:, 3:], axis=0).T).sum() * pixel_size_um",
    ),
    (
        "track-objects",
        "link cap halved",
        "max_disp_um = max_speed_um_per_min * frame_interval_s / 60",
        "max_disp_um = max_speed_um_per_min * frame_interval_s / 120",
    ),
    (
        "_ratiometric-fret",
        "validity gated on the corrected FRET signal again",
        "valid = dd_c > donor_needed[:, None, None]",
        "valid = (dd_c > donor_needed[:, None, None]) & (fc > 14 * noise_fc[:, None, None])",
    ),
]


def test_the_mutation_table_spreads_over_the_procedures():
    docs = {doc_id for doc_id, *_ in MUTATIONS}
    assert len(MUTATIONS) >= 12, f"only {len(MUTATIONS)} mutations"
    assert len(docs) >= 10, f"the mutations touch only {len(docs)} docs"


@pytest.mark.parametrize(
    ("doc_id", "what", "old", "new"), MUTATIONS, ids=[f"{m[0]}: {m[1]}" for m in MUTATIONS]
)
def test_the_gate_fails_on_a_mutated_procedure(doc_id, what, old, new):
    blocks = mutated(doc_blocks(doc_id), old, new)  # refuses text that is not there exactly once
    with pytest.raises(AssertionError):
        scene_module(doc_id).check(run_doc(doc_id, blocks=blocks))
