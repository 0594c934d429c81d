"""A doc as read: whole, as its outline, or one section (§3, §7), built from its derived facts.

The file is read on every call (``Store.read``); what is computed from its bytes comes from
``derived``, and a value already built from the same bytes, tier, shadowing and date is reused
(values are frozen, so handing out the same one twice is safe).
"""

from __future__ import annotations

from .derived import Derived, derived
from .reconcile import mtime_date
from .sections import find_section, section_text
from .store import DocFile
from .values import DocView, OutlineView, SectionView


def facts_of(doc: DocFile) -> Derived:
    return derived(doc.path, doc.doc_id, doc.data, lambda: doc.text)


def doc_view(doc: DocFile, shadows_shipped: bool, facts: Derived | None = None) -> DocView:
    facts = facts or facts_of(doc)
    updated = facts.info.updated or mtime_date(doc)
    key = (shadows_shipped, updated, doc.path)  # the path names the tier
    view = facts.views.get(key)
    if view is None:
        parsed = facts.frontmatter
        view = DocView(
            id=doc.doc_id,
            tier=doc.tier.value,
            title=facts.info.title,
            description=facts.info.description,
            updated=updated,
            shadows_shipped=shadows_shipped,
            sha256=facts.sha256,
            text=facts.text,  # the same bytes, decoded once
            body=parsed.body,
            frontmatter=tuple(
                (k, v if isinstance(v, str) else ", ".join(v)) for k, v in parsed.fields.items()
            ),
            links=facts.links,
            path=doc.path,
            sections=len(facts.outline),
        )
        facts.views[key] = view
    return view  # type: ignore[return-value]


def outline_view(doc: DocFile, shadows_shipped: bool, facts: Derived | None = None) -> OutlineView:
    facts = facts or facts_of(doc)
    return OutlineView(
        id=doc.doc_id,
        tier=doc.tier.value,
        title=facts.info.title,
        updated=facts.info.updated or mtime_date(doc),
        shadows_shipped=shadows_shipped,
        sha256=facts.sha256,
        lines=facts.line_count,
        entries=facts.outline,
        path=doc.path,
    )


def section_view(
    doc: DocFile, shadows_shipped: bool, selector: str, facts: Derived | None = None
) -> SectionView:
    """The section ``selector`` names (refused with the nearest headings when none matches)."""
    facts = facts or facts_of(doc)
    updated = facts.info.updated or mtime_date(doc)
    key = (selector, shadows_shipped, updated, doc.path)
    view = facts.views.get(key)
    if view is None:
        outline = facts.outline
        position, also = find_section(doc.doc_id, outline, selector)
        entry = outline[position]
        view = SectionView(
            id=doc.doc_id,
            tier=doc.tier.value,
            title=facts.info.title,
            updated=updated,
            shadows_shipped=shadows_shipped,
            sha256=facts.sha256,
            lines=facts.line_count,
            section=entry,
            position=position + 1,
            of=len(outline),
            also=also,
            text=section_text(facts.text, facts.line_starts, entry),
            path=doc.path,
        )
        if len(facts.views) < 64:  # a bound: the selectors one doc is asked for
            facts.views[key] = view
    return view  # type: ignore[return-value]
