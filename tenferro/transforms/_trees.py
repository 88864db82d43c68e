"""What a transform takes and gives: pytrees of arrays (optree's, as PyTorch uses), their
leaves checked and read as arrays, and the words errors name a leaf with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import optree

from tenferro.core import engine as engines
from tenferro.core.eager import EagerTensor, held
from tenferro.core.errors import ArgumentError, DTypeError
from tenferro.core.runtime import EagerRuntime, default_runtime
from tenferro.core.tensor import TRACKED, Tensor, describe, dtype_name, freeze

#: Python numbers accepted as array leaves (NumPy's dtypes: float64, int64, complex128, bool).
NUMBERS = (bool, int, float, complex)


#: The structure of a pytree that is one leaf, and the types that are always one: the
#: common argument and output of a transformed function, flattened without optree's call.
LEAF = optree.tree_structure(0.0)
LEAF_TYPES = frozenset({EagerTensor, np.ndarray, float, int})


def flatten(tree: Any) -> tuple[list[Any], Any]:
    """The leaves of a pytree (dicts, lists, tuples, namedtuples; None is an empty subtree,
    as in JAX) and its structure."""
    if type(tree) in LEAF_TYPES:
        return [tree], LEAF
    return optree.tree_flatten(tree)


def unflatten(spec: Any, leaves: Sequence[Any]) -> Any:
    if spec is LEAF:
        (leaf,) = leaves
        return leaf
    return optree.tree_unflatten(spec, list(leaves))


def where_in(transform: str, what: str, tree: Any, index: int) -> str:
    """``argument 0 at ['W1']``: how an error names leaf ``index`` of ``tree``."""
    paths = optree.tree_paths(tree)
    path = "".join(f"[{key!r}]" for key in paths[index]) if index < len(paths) else ""
    return f"{what} at {path}" if path else what


def runtime_of_trees(trees: Sequence[Any]) -> EagerRuntime:
    """The runtime of the first EagerTensor among the leaves of ``trees``, else the default."""
    for tree in trees:
        if type(tree) in LEAF_TYPES:
            if type(tree) is EagerTensor:
                return tree.runtime
            continue
        for leaf in optree.tree_leaves(tree):
            if type(leaf) is EagerTensor:
                return leaf.runtime
    return default_runtime()


#: What a transform says of a leaf that is not an array, by the role of the leaf.
_NOT_AN_ARRAY = {
    "argument": "the arguments of a transformed function are pytrees (dicts, lists, tuples, namedtuples) of "
    "arrays (NumPy arrays, tenferro arrays, Python numbers); pass other values as arguments outside argnums, "
    "or close over them",
    "output": "a transformed function returns a pytree (dicts, lists, tuples, namedtuples) of arrays (NumPy "
    "arrays, tenferro arrays, Python numbers); return other values as aux (has_aux=True)",
    "tangent": "tangents and cotangents are pytrees of arrays, one per leaf of the primal or output",
    "parameter": "parameters, gradients and updates are pytrees (dicts, lists, tuples, namedtuples) of float "
    "arrays (NumPy arrays, tenferro arrays, Python floats)",
}


def as_value(
    leaf: Any, rt: EagerRuntime, transform: str, what: Callable[[], str], role: str = "argument"
) -> np.ndarray:
    """The read-only array a leaf holds (an EagerTensor's value, a copy of anything else
    array-like), or the ArgumentError that names the leaf (its ``role`` says what to do)."""
    if type(leaf) is EagerTensor:
        if leaf.runtime is not rt:
            raise ArgumentError(
                f"{transform}: {what()} belongs to {leaf.runtime!r}, but the other arrays to {rt!r}; tensors of two "
                f"runtimes cannot be mixed"
            )
        return held(leaf)
    if isinstance(leaf, Tensor):
        return np.asarray(leaf)  # its read-only array, not a copy
    if isinstance(leaf, (np.ndarray, np.generic, *NUMBERS)):
        array = np.array(leaf)
        if array.dtype.kind in "biufc":
            return freeze(array)
    kept = engines.kept(leaf)  # an engine's array is recognised, never computed here
    if engines.ENGINE_ARRAYS and isinstance(kept, engines.ENGINE_ARRAYS):
        raise ArgumentError(
            f"{transform}: {what()} is a {type(leaf).__module__}.{type(leaf).__name__}, an engine's array; make it "
            f"a tensor of the engine's runtime first (rt.variable_from(a) or rt.constant_from(a), with "
            f"rt = EagerRuntime(engine=...)), so that it is not computed into this process"
        )
    name = type(leaf).__name__
    got = (
        f"an array of dtype {leaf.dtype}"
        if isinstance(leaf, np.ndarray)
        else f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
    )
    raise ArgumentError(f"{transform}: {what()} is {got}, not an array of numbers; {_NOT_AN_ARRAY[role]}")


def check_dtype(value: np.ndarray, transform: str, what: Callable[[], str], complex_inputs: str) -> None:
    """A differentiated leaf must be float32/64 or complex64/128 (see :class:`Call` for
    ``complex_inputs``), as JAX's transforms require."""
    if complex_inputs == "require" and value.dtype.kind != "c":
        raise DTypeError(
            f"{transform}: {what()} has dtype {dtype_name(value.dtype)}; {transform} with holomorphic=True needs "
            f"complex inputs (cast it to complex, or leave holomorphic=False for a real function)"
        )
    if value.dtype in TRACKED and (complex_inputs != "refuse" or value.dtype.kind != "c"):
        return
    if value.dtype.kind == "c":
        raise DTypeError(
            f"{transform}: {what()} is {describe(value.shape, value.dtype)}; {transform} of a complex input needs "
            f"holomorphic=True (the function must then be holomorphic), or split it into real and imaginary parts"
        )
    hint = (
        "an integer or bool input has no derivative: pass it outside argnums or close over it"
        if value.dtype.kind in "biu"
        else "differentiated inputs are float32, float64, complex64 or complex128: cast it first"
    )
    raise DTypeError(f"{transform}: {what()} has dtype {dtype_name(value.dtype)}; {hint}")
