"""The error for a name a tenferro namespace does not have (``tnp.array``, ``tf.no_gard``):
what to write instead where tenferro spells it differently, the close matches otherwise,
and for a NumPy name tenferro.numpy lacks, how to compute it on values that need no
gradient. Each namespace's module ``__getattr__`` calls :func:`missing`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from .core.errors import UnknownName


def missing(
    namespace: str, name: str, names: Iterable[str], instead: Mapping[str, str] = {}, numpy: object = None
) -> AttributeError:
    """The UnknownName (an AttributeError) for ``namespace.name``; ``instead`` maps names
    users bring from NumPy, PyTorch or JAX to tenferro's way of writing them, ``numpy`` is
    the NumPy module of the same name (``numpy.linalg`` for ``tnp.linalg``), if any."""
    if name.startswith("__"):  # a protocol probe (copy, pickle, doctest): a plain miss
        return AttributeError(f"{namespace} has no attribute {name!r}")
    if name in instead:
        hint = f"; write {instead[name]}"
    elif numpy is not None and callable(getattr(numpy, name, None)):
        hint = (
            f" yet; NumPy's {getattr(numpy, '__name__', 'numpy')}.{name} is not in tenferro.numpy, so no derivative "
            f"flows through it: on values that need no gradient, call NumPy's own on np.asarray(x)"
        )
    else:
        close = difflib.get_close_matches(name, [n for n in names if not n.startswith("_")], n=3)
        hint = f"; did you mean {' or '.join(f'{namespace}.{c}' for c in close)}?" if close else ""
    return UnknownName(f"{namespace} has no {name!r}{hint}")


#: NumPy's and autograd's names that tenferro.numpy spells as the array API does.
NUMPY_NAMES = {
    "array": "tnp.asarray(obj) (tenferro arrays are immutable, so it never needs to copy)",
    "amax": "tnp.max",
    "amin": "tnp.min",
    "ravel": "tnp.reshape(x, -1) or x.ravel()",
    "diagonal": "tnp.linalg.diagonal(x, offset=k) (the last two axes)",
    "trace": "tnp.linalg.trace(x, offset=k) (the last two axes)",
    "asanyarray": "tnp.asarray",
    "asfarray": "tnp.asarray(obj, dtype=tnp.float64)",
    "dot": "x @ y or tnp.matmul (tnp.tensordot for other axes)",
}

#: PyTorch's and JAX's names that tenferro spells its own way.
TOP_NAMES = {
    "tensor": "tf.variable(a) (requires grad) or tf.constant(a)",
    "Variable": "tf.variable(a)",
    "enable_grad": "leave the rt.no_grad() block (recording is on everywhere else)",
    "autograd": "tf.grad / tf.vjp, or loss.backward() and x.grad()",
}
