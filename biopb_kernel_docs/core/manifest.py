"""The change manifest (§4): which shipped docs the last version bump changed.

``.shipped-manifest.json`` sits in the local tier, hidden, never a doc. It holds a sha256 per
shipped id (banked ones included) and the package version they were taken under, plus the ids
that changed at the last bump. It is refreshed once per version: a session that never upgrades
reads one small file and hashes nothing. A first-ever run has nothing to diff against and
reports nothing changed. A shipped id that is new in this version counts as changed: a local doc
of the same name now shadows it, which is exactly what the stale tail must flag.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .errors import StoreUnavailable
from .store import MANIFEST_NAME, Store, Tier


@dataclass(frozen=True)
class Manifest:
    version: str
    hashes: dict[str, str]
    changed: frozenset[str]


def _load(store: Store) -> Manifest | None:
    data = store.read_state(MANIFEST_NAME)
    if data is None:
        return None
    try:
        raw = json.loads(data)
        return Manifest(str(raw["version"]), dict(raw["hashes"]), frozenset(raw["changed"]))
    except (ValueError, KeyError, TypeError):
        return None  # a damaged manifest is rebuilt as on a first run


def shipped_hashes(store: Store) -> dict[str, str]:
    """sha256 of every shipped doc's bytes, by id."""
    hashes = {}
    for doc_id in store.all_shipped_ids():
        doc = store.read(Tier.SHIPPED, doc_id)
        if doc is not None:
            hashes[doc_id] = doc.sha256
    return hashes


def _changes(manifest: Manifest | None, hashes: dict[str, str]) -> frozenset[str]:
    if manifest is None:
        return frozenset()
    return frozenset(i for i, digest in hashes.items() if manifest.hashes.get(i) != digest)


def changed_shipped_ids(store: Store) -> frozenset[str]:
    """Shipped ids whose text changed between the last version this ran under and this one.

    Where the local tier cannot be written, the answer is computed without being recorded.
    """
    manifest = _load(store)
    if manifest is not None and manifest.version == store.shipped_version:
        return manifest.changed
    if manifest is None and not store.local_dir.is_dir():
        return frozenset()  # a first run changes nothing, and a read creates no local tier
    try:
        with store.lock():
            manifest = _load(store)  # another process may have refreshed it while we waited
            if manifest is not None and manifest.version == store.shipped_version:
                return manifest.changed
            hashes = shipped_hashes(store)
            changed = _changes(manifest, hashes)
            payload = {"version": store.shipped_version, "hashes": hashes, "changed": sorted(changed)}
            store.write_state(MANIFEST_NAME, json.dumps(payload, indent=1, sort_keys=True).encode())
            return changed
    except StoreUnavailable:
        return _changes(manifest, shipped_hashes(store))
