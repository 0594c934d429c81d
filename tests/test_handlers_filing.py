"""The REST API and the index edits of issue 22: old/new quoted from the rendered index (items 2)
and the filing edit a create returns (item 4), through a real Jupyter Server."""

from __future__ import annotations

import json

import pytest

from biopb_kernel_docs.core.index import parse_index

from .conftest import build_tiers

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def server_tiers(tmp_path):
    return build_tiers(tmp_path / "docs")


@pytest.fixture
def jp_server_config(server_tiers):
    return {
        "ServerApp": {"jpserver_extensions": {"biopb_kernel_docs": True}},
        "DocStore": {"docs_local_dir": str(server_tiers.local), "shipped_dir": str(server_tiers.shipped)},
    }


async def _put(jp_fetch, doc_id, body):
    response = await jp_fetch(
        "biopb-kernel-docs", "api", "docs", doc_id, method="PUT", body=json.dumps(body), raise_error=False
    )
    return response.code, json.loads(response.body)


async def test_old_new_with_a_marked_line_lands_and_the_json_says_which_marker(jp_fetch, server_tiers):
    server_tiers.seed()  # a read creates nothing
    server_tiers.put_local("index", server_tiers.local_text("index") + "- lab/soon: to write\n")
    code, result = await _put(
        jp_fetch, "index", {"old": "- lab/soon: to write (missing)", "new": "- lab/soon: next week (missing)"}
    )
    assert code == 200, result
    assert result["rendered_markers"] == ["(missing)"]
    assert server_tiers.local_text("index").endswith("- lab/soon: next week\n")
    code, refusal = await _put(jp_fetch, "index", {"old": "- lab/never: here (missing)", "new": "x"})
    assert (code, refusal["kind"]) == (409, "EditRefused")


async def test_a_create_returns_the_filing_edit_and_it_lands_as_given(jp_fetch, server_tiers):
    await jp_fetch("biopb-kernel-docs", "api", "index")
    code, created = await _put(
        jp_fetch, "lab/cells", {"body": "---\ndescription: mean GFP per cell\n---\n# C\n"}
    )
    assert code == 200, created
    move = created["move"]
    assert (move["type"], move["heading"], move["removes_unfiled"]) == ("IndexMove", "## Procedures", True)
    code, moved = await _put(jp_fetch, "index", {"old": move["old"], "new": move["new"]})
    assert code == 200, moved
    index = server_tiers.local_text("index")
    (entry,) = [e for e in parse_index(index).entries if e.doc_id == "lab/cells"]
    assert entry.heading == "## Procedures"
    assert "## Unfiled" not in index
