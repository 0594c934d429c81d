"""Scenes that take seconds to build, built once per test session."""

from __future__ import annotations

import functools
from collections.abc import Callable

Scene = Callable[[], dict[str, object]]


def cached_in(truth: dict[str, object]) -> Callable[[Scene], Scene]:
    """A decorator for a scene module whose planted truth lives in ``truth`` (its ``TRUTH``): the
    scene is built once, and each call restores the truth that build planted, for the check."""

    def cached(make: Scene) -> Scene:
        built = functools.cache(lambda: (make(), dict(truth)))

        @functools.wraps(make)
        def scene_fn() -> dict[str, object]:
            inputs, planted = built()
            truth.clear()
            truth.update(planted)
            return dict(inputs)

        return scene_fn

    return cached


def seeded_in(
    truth: dict[str, object], build: Scene, check: Callable[[dict], None]
) -> tuple[Scene, Callable[[dict], None]]:
    """``(make, check)`` for a scene module whose check reads its ``TRUTH``: ``build`` (the main scene
    with another random seed) runs once, and the check runs against the truth that build planted,
    whatever was built since (``benchmarks/seed_sweep.py``)."""
    make = cached_in(truth)(build)

    def check_own(namespace: dict) -> None:
        make()  # restores this build's truth
        check(namespace)

    return make, check_own


def built_when_run(
    build: Callable[[], tuple[dict[str, object], object]],
    check_of: Callable[[object], Callable[[dict], None]],
) -> tuple[Scene, Callable[[dict], None]]:
    """``(make, check)`` for a variant whose builder returns ``(inputs, truth)``: nothing is built
    when the module is imported (collection would pay for every variant, in every test process),
    and a test that makes the scene then checks it builds it once."""
    truths: list[object] = []

    def make() -> dict[str, object]:
        inputs, truth = build()
        truths[:] = [truth]
        return inputs

    def check(namespace: dict) -> None:
        check_of(truths.pop() if truths else build()[1])(namespace)

    return make, check
