"""gpusim's benchmarks: one area per comparison, each rerun by ``python -m benchmarks AREA [--quick]``.

See ``benchmarks/__main__.py`` for the areas and ``benchmarks/RESULTS.md`` for the figures they produced.
"""
