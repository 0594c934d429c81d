"""Shapes the synthetic scenes share."""

from __future__ import annotations

import numpy as np


def ellipse_mask(shape, centre, semi_axes, angle):
    """A filled ellipse: ``semi_axes`` (along, across) in px, rotated by ``angle`` radians."""
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    dy, dx = yy - centre[0], xx - centre[1]
    c, s = np.cos(angle), np.sin(angle)
    u, v = c * dx + s * dy, -s * dx + c * dy
    return (u / semi_axes[0]) ** 2 + (v / semi_axes[1]) ** 2 <= 1.0
