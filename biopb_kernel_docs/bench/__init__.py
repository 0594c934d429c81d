"""The §6 ablation bench: isolated trees, cases, agents, the runner, its statistics and report.

``biopb-kernel-docs bench setup`` writes one isolated config tree per arm; ``bench run`` runs
every case through the real ``biopb-kernel-docs mcp`` server in a fresh tree, with pluggable
agents, and writes ``report.json`` and ``report.md``. Nothing here is imported by the store.
"""
