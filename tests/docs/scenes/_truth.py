"""Comparisons of a doc's results with the ground truth its scene planted (shared by the checks)."""

from __future__ import annotations

import numpy as np


def best_iou(found: np.ndarray, truth: np.ndarray) -> dict[int, tuple[int, float]]:
    """For each true label, the found label overlapping it most and their intersection over union."""
    found, truth = np.asarray(found, dtype=np.int64), np.asarray(truth, dtype=np.int64)
    both = (found > 0) & (truth > 0)
    n_found = int(found.max()) + 1
    keys, overlap = np.unique(truth[both] * n_found + found[both], return_counts=True)
    true_ids, found_ids = np.divmod(keys, n_found)
    true_area, found_area = np.bincount(truth.ravel()), np.bincount(found.ravel(), minlength=n_found)
    iou = overlap / (true_area[true_ids] + found_area[found_ids] - overlap)
    best: dict[int, tuple[int, float]] = {int(t): (0, 0.0) for t in np.unique(truth[truth > 0])}
    for t, f, value in zip(true_ids.tolist(), found_ids.tolist(), iou.tolist(), strict=True):
        if value > best[t][1]:
            best[t] = (f, value)
    return best


def matched(found: np.ndarray, truth: np.ndarray, min_iou: float = 0.5) -> dict[int, tuple[int, float]]:
    """True label -> (found label, IoU) for the pairs above ``min_iou`` (one-to-one above 0.5)."""
    return {t: fi for t, fi in best_iou(found, truth).items() if fi[1] > min_iou}


def nearest_pairs(found: np.ndarray, truth: np.ndarray, max_distance: float) -> list[tuple[int, int]]:
    """Greedy one-to-one pairs (found index, true index) of points closer than ``max_distance``."""
    found, truth = (
        np.asarray(found, dtype=float).reshape(-1, 2),
        np.asarray(truth, dtype=float).reshape(-1, 2),
    )
    if not found.size or not truth.size:
        return []
    distance = np.hypot(*(found[:, None, :] - truth[None, :, :]).transpose(2, 0, 1))
    pairs, used_f, used_t = [], set(), set()
    for flat in np.argsort(distance, axis=None):
        f, t = np.unravel_index(flat, distance.shape)
        if distance[f, t] > max_distance:
            break
        if f not in used_f and t not in used_t:
            pairs.append((int(f), int(t)))
            used_f.add(f)
            used_t.add(t)
    return pairs
