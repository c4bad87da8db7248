"""Load-test assets for ``scripts/bench.py``: the bare baseline app and wrk scripts."""
