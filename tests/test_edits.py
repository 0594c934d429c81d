"""What a write may be: the line cap counts a last line with no newline."""

from __future__ import annotations

import pytest

from biopb_kernel_docs.core.edits import BODY_LINE_CAP, line_count
from biopb_kernel_docs.core.errors import LimitExceeded


def test_a_last_line_without_a_newline_counts_as_a_line():
    assert line_count("a\nb") == 2
    assert line_count("a\nb\n") == 2
    assert line_count("") == 0


def test_an_old_new_edit_leaving_301_lines_and_no_final_newline_is_refused(tiers, docs):
    text = "".join(f"line {n}\n" for n in range(1, BODY_LINE_CAP + 1))
    tiers.put_local("long", text)
    with pytest.raises(LimitExceeded, match="'long' would be 301 lines; the cap is 300"):
        docs.write_doc("long", old="line 300\n", new="line 300\nline 301")
    assert tiers.local_text("long") == text
    docs.write_doc("long", old="line 300\n", new="line 300, the last")  # 300 lines, no newline: fits
    assert tiers.local_text("long").endswith("line 299\nline 300, the last")


def test_a_replace_keeps_the_trailing_indentation_of_old_and_new(tiers, docs):
    tiers.put_local("code", "# Code\n\n```python\ndef f():\n    return 1\n```\n")
    docs.write_doc("code", old="def f():\n    ", new="def f():\n    x = 1\n    ")
    assert tiers.local_text("code") == "# Code\n\n```python\ndef f():\n    x = 1\n    return 1\n```\n"
