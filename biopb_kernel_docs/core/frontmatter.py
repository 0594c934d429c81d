"""The tolerant frontmatter parser and what the loader reads off a doc (§1).

Frontmatter is optional and small: ``key: value`` scalars and ``[a, b]`` inline lists between
``---`` lines at the very top. Unknown keys are kept but never interpreted, a line that is not a
``key: value`` pair is skipped, and nothing here raises: a doc with broken frontmatter is still a
doc, read as if it had none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .ids import ID_PATTERN

_FENCE = "---"
_CLOSING_FENCES = ("---", "...")
# Frontmatter longer than this is not frontmatter: a body that opens with a thematic break.
_MAX_FRONTMATTER_LINES = 60
_KEY_VALUE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(.*)")
_H1 = re.compile(r"#[ \t]+(.+?)[ \t#]*")
_CODE_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_FENCE_STARTS = frozenset(" `~")
_DESCRIPTION_LIMIT = 200

FieldValue = str | tuple[str, ...]


@dataclass(frozen=True)
class Frontmatter:
    """The parsed fields and the body that follows them."""

    fields: dict[str, FieldValue] = field(default_factory=dict)
    body: str = ""

    def text(self, key: str) -> str | None:
        """A field as one string (an inline list joined with ', '), or None when absent or empty."""
        value = self.fields.get(key)
        if isinstance(value, tuple):
            value = ", ".join(value)
        return value or None

    def items(self, key: str) -> tuple[str, ...]:
        """A field as a tuple: an inline list, or a scalar split on commas."""
        value = self.fields.get(key)
        if value is None:
            return ()
        if isinstance(value, tuple):
            return value
        return tuple(part.strip() for part in value.split(",") if part.strip())


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _parse_value(raw: str) -> FieldValue:
    value = raw.strip()
    if value.startswith("[") and value.endswith("]"):
        return tuple(_unquote(part.strip()) for part in value[1:-1].split(",") if part.strip())
    return _unquote(value)


def parse_frontmatter(text: str) -> Frontmatter:
    """Split ``text`` into frontmatter fields and body. Never raises."""
    start = 1 if text.startswith("\ufeff") else 0
    if not text.startswith(_FENCE, start):
        return Frontmatter({}, text)
    # Walk the head line by line; the rest of a long doc is never split.
    head: list[str] = []
    position = start
    for _ in range(_MAX_FRONTMATTER_LINES + 1):
        newline = text.find("\n", position)
        line = text[position:] if newline == -1 else text[position:newline]
        position = len(text) if newline == -1 else newline + 1
        if head and line.rstrip() in _CLOSING_FENCES:
            break
        head.append(line)
        if newline == -1:
            return Frontmatter({}, text)
    else:
        return Frontmatter({}, text)
    if head[0].rstrip() != _FENCE:
        return Frontmatter({}, text)
    fields: dict[str, FieldValue] = {}
    for line in head[1:]:
        match = _KEY_VALUE.fullmatch(line.rstrip())
        if match and not line.startswith((" ", "\t", "#")):
            fields[match.group(1)] = _parse_value(match.group(2))
    return Frontmatter(fields, text[position:])


def prose_lines(
    lines: Iterable[str], state: dict[str, int | None] | None = None
) -> Iterator[tuple[int, str]]:
    """``(number, line)`` for the lines outside fenced code blocks (markdown's own rule).

    When the walk ends, ``state["unclosed_fence"]`` holds the line where a fence that never
    closes opened, or None.
    """
    fence: str | None = None
    opened: int | None = None
    for number, line in enumerate(lines):
        if fence is None:
            match = _CODE_FENCE.match(line) if line[:1] in _FENCE_STARTS else None
            if match:
                fence, opened = match.group(1), number
            else:
                yield number, line
        elif line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            fence = opened = None
    if state is not None:
        state["unclosed_fence"] = opened


def scan_prose(lines: list[str]) -> tuple[list[tuple[int, str]], int | None]:
    """The lines outside fenced code blocks, and where an unclosed fence opens (or None)."""
    state: dict[str, int | None] = {}
    prose = list(prose_lines(lines, state))
    return prose, state["unclosed_fence"]


# [[id]], or [[id#heading]] for one section of it (§7: resolved as read_doc resolves it).
LINK = re.compile(rf"\[\[({ID_PATTERN}(?:#[^\[\]\n]+)?)\]\]")


def links_of(text: str) -> tuple[str, ...]:
    """The ``[[id]]`` and ``[[id#heading]]`` links a doc's prose makes, in order, each once (a
    ``[[x]]`` in code is code)."""
    if "[[" not in text:
        return ()
    if "```" not in text and "~~~" not in text:
        return tuple(dict.fromkeys(LINK.findall(text)))
    found = (link for _, line in prose_lines(iter_lines(text)) for link in LINK.findall(line))
    return tuple(dict.fromkeys(found))


def iter_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` one at a time: a reader that stops early never splits the rest."""
    start = 0
    while (end := text.find("\n", start)) != -1:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def first_h1(body: str) -> str | None:
    """The text of the first level-one ATX heading outside code, or None."""
    for _, line in prose_lines(iter_lines(body)):
        match = _H1.fullmatch(line.rstrip())
        if match:
            return match.group(1).strip()
    return None


def first_paragraph(body: str, limit: int = _DESCRIPTION_LIMIT) -> str:
    """The first prose paragraph on one line, cut at ``limit`` characters on a word boundary."""
    paragraph: list[str] = []
    for _, line in prose_lines(iter_lines(body)):
        stripped = line.strip()
        is_skippable = stripped.startswith(("#", "<!--", "|")) or stripped in ("---", "***", "___")
        if not stripped or is_skippable:
            if paragraph:
                break
            continue
        paragraph.append(re.sub(r"^(?:>\s*|[-*+]\s+|\d+[.)]\s+)", "", stripped))
    text = " ".join(" ".join(paragraph).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if text[limit - 1] != " ":  # a word runs past the cut: end at the space before it
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


@dataclass(frozen=True)
class DocInfo:
    """What the loader reads off a doc's text: title, description, declared packages, updated."""

    title: str
    description: str
    packages: tuple[str, ...]
    updated: str | None


def describe(doc_id: str, text: str, parsed: Frontmatter | None = None) -> DocInfo:
    """Title (first H1, else the id), description (frontmatter, else the first paragraph), and more.

    ``parsed`` is ``parse_frontmatter(text)`` when the caller has it already.
    """
    parsed = parsed or parse_frontmatter(text)
    title = first_h1(parsed.body) or doc_id
    description = " ".join((parsed.text("description") or "").split()) or first_paragraph(parsed.body)
    return DocInfo(
        title=title,
        description=description or title,
        packages=parsed.items("packages"),
        updated=parsed.text("updated"),
    )
