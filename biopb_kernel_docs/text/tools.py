"""The MCP tools' descriptions: what the agent reads about each tool before it calls one.

Each stays under 2 KB (some hosts cut longer ones); the operation list (``surfaces/operations``)
attaches them to read_doc, search_docs, write_doc and restore_doc.
"""

READ_DOC_DESCRIPTION = """\
Read one doc of the biopb knowledge store you share with the user: its text under a one-line \
header (origin shipped or local, when it was updated, and "shadows shipped" when your local copy \
hides a shipped doc).

- read_doc("index") re-renders the index the handshake showed: your entries with (missing) and \
(local copy) markers, then two tails the loader adds: new shipped docs to file or ignore, and \
local copies a release may have left behind.
- read_doc("<id>@diff") diffs your local copy against the shipped text it shadows (it mixes your \
edits with the release's).
- read_doc("<id>@history") lists the doc's kept versions (who wrote each, when, lines changed); \
read_doc("<id>@v12") reads one; restore_doc puts one back. The index has a history too.
- read_doc("<id>#") outlines a doc: every heading, its length and the call that reads it; \
read_doc("<id>#Steps/Confirm input") reads one section (case and punctuation ignored; \
"#Example[2]" picks a repeated heading).
- read_doc("<segment>/") lists the docs of a collection the index names as "- <segment>/: ...".
- Ids look like "kernel" or "my-lab/nuclei". A doc links another as [[id]] or [[id#heading]]: \
read_doc it when the step you are on depends on it.
"""

SEARCH_DOCS_DESCRIPTION = """\
Find lines in the biopb docs: an exception's name, a config key, a log line, a function. Searches \
the docs the index lists (and those under its collections) and the index itself.

- Literal and case-insensitive; a query with an upper-case letter is case-sensitive.
- regex=true takes an RE2 pattern (no backreferences or lookaround); a match stays within a line.
- Returns matching lines grouped by doc and section, "L42: the line", each group with the \
read_doc("<id>#<heading>") call that reads that section; at most 8 lines a doc and 40 in all.
"""

WRITE_DOC_DESCRIPTION = """\
Write a doc of the biopb knowledge store you share with the user; returns the unified diff of \
what changed.

Before writing:
- Write only a multi-step procedure that was validated end to end on the user's data.
- Never write a dataset-specific one: no paths, sample names or numbers that fit one experiment.
- Phrase the index hook (frontmatter description:, else the first paragraph) as the user's \
request, e.g. "correct uneven illumination in my tiles".
- Update an existing doc rather than write a near-duplicate: read the index first, and prefer an \
old/new edit to a new file.
- Verify that every name, flag or call the doc quotes still exists before relying on it: a local \
doc has no contract test behind it.

How to call:
- write_doc(id, body=...) creates or replaces the doc; a new id gets a line under ## Unfiled in \
the index. read_doc("authoring") has the shape: checkpoints, parameters as derivation rules.
- write_doc(id, old=..., new=...) replaces exactly one occurrence of old, copied exactly from \
read_doc without its header line; refused when old is absent or matches twice. Use it for edits, \
the index included: write_doc("index", old="- x: ...", new="- x: ...").
- Writing to a shipped id makes a local copy that shadows it; shipped text is never changed.
- There is no delete: retire a doc by removing its index line, a shipped one by adding its id to \
the ignored: line.
- Limits: 300 lines and 64 KiB per doc, 1 KiB per index line, 200 index entries.
"""

RESTORE_DOC_DESCRIPTION = """\
Put an earlier version of a doc of the biopb knowledge store back: its text is written again as \
a new version (nothing is rewound or lost), and the result is the diff, like write_doc's.

- read_doc("<id>@history") lists the versions kept (who wrote each, when, lines changed); \
read_doc("<id>@v12") shows one before you restore it.
- restore_doc(id="flatfield", version=12) writes v12's text back; the index too: \
restore_doc(id="index", version=3).
- Refused when the doc changed since you last read it: read it again first.
"""
