"""Fast full-shoe simulation with the casino procedure, and card-counting studies.

Layer: above the exact analysis (it takes the coup table, the strategies and
the exact values from it).  :mod:`baccarat.sim.kernels` are numba-compiled;
:mod:`baccarat.sim.run` splits a run into fixed chunks with one seed stream
each and runs them here, in local processes or on a Dask cluster.
"""
