"""``tf.flatten``: a pytree of arrays as one float64 vector and the function that gives the
tree back (``jax.flatten_util.ravel_pytree``, HIPS autograd's ``flatten``), both made of
tenferro ops, so derivatives flow through them either way."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.core.eager import EagerTensor
from tenferro.core.errors import DTypeError, ShapeMismatch
from tenferro.core.tensor import describe, freeze

from ._trees import as_value, runtime_of_trees, where_in
from ._trees import flatten as leaves_of
from ._trees import unflatten as tree_of

FLOAT64 = np.dtype(np.float64)


def flatten(tree: Any) -> tuple[EagerTensor, Callable[[Any], Any]]:
    """``vector, unflatten = tf.flatten(tree)``: the leaves of ``tree`` (real arrays: NumPy
    arrays, tenferro arrays, Python numbers) raveled in C order and concatenated, in optree's
    leaf order (dict keys sorted), as one float64 tenferro array; ``unflatten(v)`` makes a
    vector of that length back into the tree, every leaf of its shape and dtype, as tenferro
    arrays. Both are differentiable: ``tf.grad`` of a function of ``unflatten(v)`` is taken
    with respect to ``v``, and a gradient flows from the vector back to the leaves."""
    leaves, spec = leaves_of(tree)
    rt = runtime_of_trees([tree])
    tensors = []
    for i, leaf in enumerate(leaves):
        what = lambda i=i: where_in("tf.flatten", "tree", tree, i)  # noqa: E731
        if type(leaf) is EagerTensor:
            as_value(leaf, rt, "tf.flatten", what)  # refuses a leaf of another runtime
            tensor = leaf
        else:
            tensor = EagerTensor(as_value(leaf, rt, "tf.flatten", what), rt)
        if tensor.dtype.kind == "c":
            raise DTypeError(
                f"tf.flatten: {what()} is {describe(tensor.shape, tensor.dtype)}; the vector is float64: split a "
                f"complex leaf into its real and imaginary parts (tnp.real, tnp.imag) first",
                argument="tree",
            )
        tensors.append(tensor)
    s = rt.current_session()
    pieces = [s.reshape(t if t.dtype == FLOAT64 else s.astype(t, FLOAT64), (-1,)) for t in tensors]
    vector = s.concat(pieces) if pieces else EagerTensor(freeze(np.zeros(0)), rt)
    layout = [(t.shape, t.dtype, math.prod(t.shape)) for t in tensors]
    size = vector.shape[0]

    def unflatten(v: Any) -> Any:
        """``v`` (a 1-D array of the flattened length) made back into the tree that was
        flattened, each leaf a tenferro array of its shape and dtype."""
        if type(v) is not EagerTensor:
            v = EagerTensor(as_value(v, rt, "unflatten", lambda: "v"), rt)
        if v.shape != (size,) or v.dtype.kind not in "fiu":
            raise ShapeMismatch(
                f"unflatten: v is {describe(v.shape, v.dtype)}, but the flattened tree is f64[{size}]; pass a "
                f"real vector of that length",
                argument="v",
            )
        session = v.runtime.current_session()
        out, start = [], 0
        for shape, dtype, n in layout:
            piece = session.reshape(session.slice(v, (slice(start, start + n),)), shape)
            out.append(piece if piece.dtype == dtype else session.astype(piece, dtype))
            start += n
        return tree_of(spec, out)

    return vector, unflatten
