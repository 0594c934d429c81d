"""Scenes for dna-content: DAPI fields of an asynchronous population with a planted cell cycle.

Six 320 x 320 px fields at 0.65 µm/px (a 10x objective on a 6.5 µm camera pixel), each with 80
nuclei placed at random, 8 px apart at least (a background ring each), centres anywhere in the
field, so the border cuts some, large ones more often. Each nucleus draws its phase with the planted
fractions (G1 0.55, S 0.25, G2/M 0.20) and its DNA: G1 = 1 unit, G2/M = 2 units (the 2:1 ratio), S
uniform between them, each times a staining spread of CV 4 %. Nuclear area grows with DNA (G2 1.6 x
G1), so a mean intensity cannot stand in for the content. Five per cent of the objects are doublets
the doc says it catches: two round G1 nuclei side by side, pressed (centres 1.9-2 radii apart,
solidity 0.84-0.88), under one label. The field is blurred (PSF SD 1.2 px) on an uneven background
(a ramp from 60 to 160 counts above a 100-count camera offset), with shot and read noise, on a
12-bit camera (clipped at 4095).

Truth: per object its phase, or "doublet"; the planted fractions among all single nuclei drawn,
whole or cut by the border (what the edge-corrected fit estimates).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi

from ._cache import built_when_run


def _disc(shape, centre, semi, angle):
    """An ellipse mask drawn in a window around its centre (fast for many small nuclei)."""
    mask = np.zeros(shape, bool)
    reach = int(np.ceil(max(semi))) + 1
    top, left = (max(int(c) - reach, 0) for c in centre)
    bottom, right = (min(int(c) + reach + 1, n) for c, n in zip(centre, shape, strict=True))
    yy, xx = np.mgrid[top:bottom, left:right]
    dy, dx = yy - centre[0], xx - centre[1]
    u, v = np.cos(angle) * dx + np.sin(angle) * dy, -np.sin(angle) * dx + np.cos(angle) * dy
    mask[top:bottom, left:right] = (u / semi[0]) ** 2 + (v / semi[1]) ** 2 <= 1.0
    return mask


PIXEL_SIZE_UM = 0.65
FIELD = (320, 320)
FRACTIONS = {"G1": 0.55, "S": 0.25, "G2/M": 0.20}
OFFSET = 100.0


def _place(rng, reaches, field, gap):
    """Centres anywhere in the field (border nuclei cut, as in a real field), ``gap`` px between any
    two nuclei's reaches; each nucleus is tried until it fits, so none is dropped for its size."""
    centres = np.zeros((len(reaches), 2))
    for i, reach in enumerate(reaches):
        for _ in range(20000):
            c = rng.uniform(0, field, 2)
            if i == 0 or (np.hypot(*(centres[:i] - c).T) >= reaches[:i] + reach + gap).all():
                break
        else:
            raise RuntimeError("the field is too crowded to place every nucleus: fewer per field")
        centres[i] = c
    return centres


@cache
def _build(
    seed: int = 21,
    fields: int = 6,
    per_field: int = 80,
    g1_density: float = 140.0,
    bits: int = 12,
    doublets: float = 0.05,
) -> tuple[dict, dict]:
    """``g1_density``: a G1 nucleus's mean counts above background (its DNA spread over its area)."""
    rng = np.random.default_rng(seed)
    shape, field = FIELD, FIELD[0]
    images, label_images, phases = [], [], []
    for _ in range(fields):
        signal = np.zeros(shape)
        labels = np.zeros(shape, np.int32)
        field_phase = {}
        grain = ndi.gaussian_filter(rng.normal(size=shape), 1.0)
        grain /= grain.std()  # chromatin texture, SD 1
        drawn = []
        for _ in range(per_field):
            if rng.random() < doublets:  # two G1 nuclei side by side, pressed, under one label
                radius = rng.normal(7.0, 0.4)
                apart = rng.uniform(1.9, 2.0) * radius  # solidity 0.86-0.90
                drawn.append(("doublet", 1.0, (radius, radius), rng.uniform(0, np.pi), apart))
                continue
            phase = rng.choice(list(FRACTIONS), p=list(FRACTIONS.values()))
            dna = {"G1": 1.0, "G2/M": 2.0}.get(phase) or rng.uniform(1.0, 2.0)
            dna *= rng.normal(1.0, 0.04)
            area_scale = 1 + 0.6 * (dna - 1)  # G2 nuclei 1.6 x the area of G1
            radius = rng.normal(7.0, 0.4) * np.sqrt(area_scale)
            aspect = rng.uniform(1.0, 1.25)
            drawn.append(
                (phase, dna, (radius * np.sqrt(aspect), radius / np.sqrt(aspect)), rng.uniform(0, np.pi), 0)
            )
        reaches = np.array([semi[0] + apart / 2 for _, _, semi, _, apart in drawn])
        centres = _place(rng, reaches, field, gap=8.0)  # a background ring around each
        for (phase, dna, semi, angle, apart), centre in zip(drawn, centres, strict=True):
            label = len(field_phase) + 1
            if phase == "doublet":
                offset = apart / 2 * np.array([np.sin(angle), np.cos(angle)])
                parts = [_disc(shape, centre + sign * offset, semi, 0.0) & (labels == 0) for sign in (-1, 1)]
                for part in parts:
                    if part.any():
                        signal[part] += g1_density * np.pi * 7.0**2 * rng.normal(1.0, 0.04) / part.sum()
            else:
                parts = [_disc(shape, centre, semi, angle) & (labels == 0)]
                texture = 1 + 0.15 * grain[parts[0]]
                signal[parts[0]] += dna * g1_density * np.pi * 7.0**2 * texture / texture.sum()
            for part in parts:
                labels[part] = label
            field_phase[label] = phase
        yy, xx = np.mgrid[:field, :field]
        background = 60 + 100 * (xx + yy) / (2 * field)
        counts = rng.poisson(ndi.gaussian_filter(signal, 1.2) + background) + OFFSET + rng.normal(0, 2, shape)
        images.append(np.clip(counts, 0, 2**bits - 1).astype(np.uint16))
        label_images.append(labels)
        phases.append(field_phase)
    inputs = {
        "dna_stain": images,
        "nuclei_labels": label_images,
        "pixel_size_um": PIXEL_SIZE_UM,
        "saturation_counts": 2**bits - 1,
        "dna_acquisition": "widefield",
        "resolution_um": 2.355 * 1.2 * PIXEL_SIZE_UM,
    }
    return inputs, {"phases": phases, "pixel_size_um": PIXEL_SIZE_UM}


def scene() -> dict[str, object]:
    return _build()[0]


def _planted(phases) -> dict[str, float]:
    singles = [p for field in phases for p in field.values() if p != "doublet"]
    return {phase: singles.count(phase) / len(singles) for phase in FRACTIONS}


def check_truth(truth: dict):
    def check(namespace: dict) -> None:
        planted = _planted(truth["phases"])
        found = namespace["dna_fractions"]
        n = len(namespace["dna_table"]["label"])
        for phase, value in planted.items():
            # the ~370 whole nuclei sample the ~470 drawn, and the fit shares nuclei where S meets
            # the two peaks: SD 0.013-0.02 over seeds 1-30
            assert abs(found[phase] - value) <= 0.04, (
                f"expected a {phase} fraction of {value:.3f} ± 0.04 (planted), "
                f"got {found[phase]:.3f} over {n} nuclei"
            )
        ratio = namespace["dna_fit"]["g2_g1_ratio"]
        assert abs(ratio - 2.0) <= 0.06, f"expected the G2/G1 ratio of 2.00 ± 0.06 planted, got {ratio:.3f}"
        table = namespace["dna_table"]
        kept = {(f, int(label)) for f, label in zip(table["field"], table["label"], strict=True)}
        doublets = {
            (f, label)
            for f, field in enumerate(truth["phases"])
            for label, p in field.items()
            if p == "doublet"
        }
        assert not kept & doublets, f"expected every doublet excluded; {len(kept & doublets)} kept"
        g1_rows = [
            i
            for i, (f, label) in enumerate(zip(table["field"], table["label"], strict=True))
            if truth["phases"][f].get(int(label)) == "G1"
        ]
        g1_n = np.median(np.asarray(table["dna_n"])[g1_rows])
        assert abs(g1_n - 2.0) <= 0.05, (
            f"expected G1 nuclei at 2N after normalisation, got a median of {g1_n:.3f}N"
        )
        g1_um2 = np.median(np.asarray(table["area_um2"])[g1_rows])
        planted_um2 = np.pi * 7.0**2 * truth["pixel_size_um"] ** 2
        assert abs(g1_um2 / planted_um2 - 1) <= 0.1, (
            f"expected G1 nuclei of {planted_um2:.0f} µm² (± 10 %: the outline falls within a pixel), "
            f"got {g1_um2:.0f}"
        )

    return check


def check(namespace: dict) -> None:
    check_truth(_build()[1])(namespace)


def _variant(**kwargs):
    return built_when_run(lambda: _build(**kwargs), check_truth)


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return _variant(seed=seed)


def _shaded() -> dict[str, object]:
    """Flat-field correction skipped: 35 % vignetting towards the corners of every field."""
    inputs = dict(_build()[0])
    yy, xx = np.mgrid[: FIELD[0], : FIELD[1]]
    shading = 1 - 0.35 * (np.hypot(yy - FIELD[0] / 2, xx - FIELD[1] / 2) / np.hypot(*FIELD) * 2) ** 2
    inputs["dna_stain"] = [
        ((f.astype(float) - OFFSET) * shading + OFFSET).astype(np.uint16) for f in inputs["dna_stain"]
    ]
    return inputs


VARIANTS = {
    "14-bit camera, 8x brighter": _variant(g1_density=1100.0, bits=14, seed=22),
    "dim stain: G1 at 30 counts per pixel": _variant(g1_density=30.0, seed=23),
    "no doublets, 7 fields": _variant(doublets=0.0, fields=7, seed=24),
    # seeds 10 and 19 read G2/M 0.045 low and kept a doublet on the former grid of nuclei
    "seed 10": _variant(seed=10),
    "seed 19": _variant(seed=19),
}

REFUSALS = {
    "saturated DAPI (12-bit camera clipped at 4095)": (
        lambda: _build(g1_density=3000.0, seed=25)[0],
        r"reach 4095 counts.*shorter exposure",
    ),
    "too few nuclei for a histogram (one field)": (lambda: _build(fields=1, seed=26)[0], r"too few to fit"),
    "a maximum projection": (lambda: {**_build()[0], "dna_acquisition": "max_projection"}, r"sum a z-stack"),
    "flat-field correction skipped": (_shaded, r"illumination is uneven"),
}

MUTATIONS = [
    (
        "mean intensity instead of the integrated one",
        'dna_all["integrated"] = dna_all["total"] - dna_all["background"] * dna_all["grown_px"]',
        'dna_all["integrated"] = (dna_all["total"] - dna_all["background"] * dna_all["grown_px"])'
        ' / dna_all["grown_px"]',
    ),
    (
        "no background subtracted",
        'dna_all["total"] - dna_all["background"] * dna_all["grown_px"]',
        'dna_all["total"] - 0 * dna_all["grown_px"]',
    ),
    (
        "one background value for the whole field",
        "background=np.asarray(ndi.median(dna_image, dna_ring, dna_ids))",
        "background=np.full(dna_ids.size, np.median(dna_image[dna_ring > 0]))",
    ),
    (
        "mask not grown past the segmented edge",
        "dna_grow_px = int(np.ceil(1.3 * resolution_um / pixel_size_um))",
        "dna_grow_px = 0",
    ),
    ("doublets kept", "dna_keep = dna_usable & ~dna_doublet", "dna_keep = dna_usable"),
    ("area in µm instead of µm²", "* pixel_size_um**2", "* pixel_size_um"),
]
