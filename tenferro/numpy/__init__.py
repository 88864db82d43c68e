"""``tenferro.numpy``: the Python array API standard (2024.12) on tenferro's ops.

``import tenferro.numpy as tnp``. Its arrays are ``EagerTensor``s; every function with a
derivative records on the current session of its arguments' runtime (an open
``rt.eager_session`` in this thread, else the runtime's implicit session, which runs each
op at once), so ``tnp.sin(x) * x`` can be differentiated with ``backward()`` or
``rt.grad``. Functions without a derivative (comparisons, ``argmax``, ``unique_values``)
return constants. Arguments that are NumPy arrays become constants of that runtime; with
no tenferro argument at all, the default runtime (``tenferro.default_runtime()``) is used.
See docs/numpy.md.
"""

import sys as _sys

from .. import _array, _operators
from ..core.eager import EagerTensor as _EagerTensor
from ..core.errors import UnknownName as _UnknownName
from . import (  # noqa: F401 (the methods call _at, _dispatch, _keys)
    _at,
    _creation,
    _dispatch,
    _dtypes,
    _elementwise,
    _indexing,
    _info,
    _keys,
    _linear,
    _manipulation,
    _numpy_dispatch,
    _searching,
    _statistical,
    _utility,
    fft,
    linalg,
    random,
)
from ._creation import *  # noqa: F403
from ._dtypes import *  # noqa: F403
from ._elementwise import *  # noqa: F403
from ._indexing import *  # noqa: F403
from ._info import *  # noqa: F403
from ._linear import *  # noqa: F403
from ._manipulation import *  # noqa: F403
from ._searching import *  # noqa: F403
from ._statistical import *  # noqa: F403
from ._utility import *  # noqa: F403

__array_api_version__ = "2024.12"
__all__ = [
    *_creation.__all__,
    *_dtypes.__all__,
    *_elementwise.__all__,
    *_indexing.__all__,
    *_info.__all__,
    *_linear.__all__,
    *_manipulation.__all__,
    *_searching.__all__,
    *_statistical.__all__,
    *_utility.__all__,
    "fft",
    "linalg",
    "random",
]

# NumPy's names beyond the array API (docs/numpy.md, "NumPy's namespace beyond the array API")
from . import (  # noqa: E402
    _aliases,
    _constants,
    _elementwise_more,
    _nan_reductions,
    _polynomials,
    _products,
    _quantiles,
    _rearranging,
    _selection,
    _sets,
    _signal,
    _stacking,
    _statistics_more,
)
from ._aliases import *  # noqa: E402, F403
from ._constants import *  # noqa: E402, F403
from ._elementwise_more import *  # noqa: E402, F403
from ._nan_reductions import *  # noqa: E402, F403
from ._polynomials import *  # noqa: E402, F403
from ._products import *  # noqa: E402, F403
from ._quantiles import *  # noqa: E402, F403
from ._rearranging import *  # noqa: E402, F403
from ._selection import *  # noqa: E402, F403
from ._sets import *  # noqa: E402, F403
from ._signal import *  # noqa: E402, F403
from ._stacking import *  # noqa: E402, F403
from ._statistics_more import *  # noqa: E402, F403

__all__ += [
    *_aliases.__all__,
    *_constants.__all__,
    *_elementwise_more.__all__,
    *_nan_reductions.__all__,
    *_polynomials.__all__,
    *_products.__all__,
    *_quantiles.__all__,
    *_rearranging.__all__,
    *_selection.__all__,
    *_sets.__all__,
    *_signal.__all__,
    *_stacking.__all__,
    *_statistics_more.__all__,
]


#: NumPy's and autograd's names that tenferro.numpy spells as the array API does.
_SPELLED_OTHERWISE = {
    "asanyarray": "tnp.asarray",
    "asfarray": "tnp.asarray(obj, dtype=tnp.float64)",
    "dot": "x @ y or tnp.matmul (tnp.tensordot for other axes)",
    "put": "x.at[indices].set(values) (tenferro arrays are immutable: a new array, which records)",
    "place": "x.at[mask].set(values) (tenferro arrays are immutable: a new array, which records)",
    "put_along_axis": "x.at[...].set(values) with take_along_axis's indices as a tuple (tenferro arrays are immutable)",
    "fill_diagonal": "x.at[tnp.diag_indices(n)].set(value) (tenferro arrays are immutable: a new array)",
}


def __getattr__(name: str) -> object:
    import numpy

    raise _UnknownName.of("tnp", name, __all__, _SPELLED_OTHERWISE, numpy)


_operators.bind(_sys.modules[__name__])
_array.bind(_sys.modules[__name__])
_numpy_dispatch.install(_EagerTensor)
