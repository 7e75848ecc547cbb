"""Exact combinatorial analysis of every wager, for any shoe composition.

Layer: above the rules core, beside the table; it reads the same rule data
(:mod:`baccarat.core.tableau`, the games in :mod:`baccarat.core.registry`) and asks the
engine's own coup and wager classifiers for every outcome.

* :func:`baccarat.analysis.analyze.analyze`: return tables, house edges,
  effects of removal and Lucky Draw's strategy (``baccarat analyze``).
* :mod:`baccarat.analysis.batch`: expected values of the wagers of a punto banco
  game for many shoe compositions at once (numpy in, numpy out).
"""
