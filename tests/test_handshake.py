from __future__ import annotations

from biopb_kernel_docs.handshake import HEADER, RULES, budget_for, compose_instructions

INDEX = "# Docs\n\n## References\n" + "".join(f"- doc-{n:03d}: what doc {n} is for\n" for n in range(100))


def test_full_instructions_put_header_rules_then_the_index():
    text = compose_instructions(INDEX)
    assert text.split("\n")[: 1 + len(RULES)] == [HEADER, *RULES]
    assert text.endswith(INDEX.rstrip("\n"))


def test_a_budget_keeps_whole_lines_from_the_top_and_counts_what_it_left_out():
    text = compose_instructions(INDEX, budget=1500)
    assert len(text) <= 1500
    lines = text.split("\n")
    assert lines[0] == HEADER
    kept = sum(line.startswith("- doc-") for line in lines)
    assert lines[1] == (
        f"This copy is cut to fit this host: {100 - kept} index entries are left out below; "
        'read_doc("index") has them all.'
    )
    assert all(line in INDEX.split("\n") for line in lines[2 + len(RULES) :])


def test_every_prefix_cut_still_starts_with_the_header_and_the_ask_first_rule():
    full = compose_instructions(INDEX, budget=2048)
    for cut in (200, 400, 800):
        assert full[:cut].startswith(HEADER)
    assert "always ask the user first" in full[: len(HEADER) + 300]


def test_a_tiny_budget_keeps_the_header():
    assert compose_instructions(INDEX, budget=len(HEADER) + 5).startswith(HEADER)


def test_an_index_that_could_not_load_says_why_and_how_to_retry():
    text = compose_instructions(None, problem="the kernel did not start")
    assert (
        text.split("\n")[1]
        == 'The index could not be loaded (the kernel did not start). Call read_doc("index") to retry.'
    )


def test_budget_is_chosen_by_declared_client_name():
    budgets = {"claude-code": 2048}
    assert budget_for("claude-code", budgets) == 2048
    assert budget_for("Claude-Code", budgets) == 2048
    assert budget_for("cursor", budgets) is None
    assert budget_for(None, budgets) is None
