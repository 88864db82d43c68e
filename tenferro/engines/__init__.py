"""Engines beyond NumPy on one thread, each behind the seam of ``tenferro.core.engine``.

``DaskEngine`` (values are dask arrays, optionally on a ``distributed`` cluster) imports
dask only when one is made, so ``import tenferro`` does not need the ``dask`` extra.
"""

from .dask import DaskEngine

__all__ = ["DaskEngine"]
