"""Reductions whose results are constants: ``argmax``/``argmin`` (integer positions; ties
give the first occurrence, as NumPy), ``any``/``all`` (bool) and ``count_nonzero``
(integer). None has a VJP: their results carry no gradient, even from a tracked input.

``any``, ``all`` and ``count_nonzero`` take complex tensors (an element is true where it is
not 0j). ``argmax``/``argmin`` refuse them: complex numbers have no order (the array API's
rule; NumPy's lexicographic one is not it), so take ``s.abs`` or ``s.real`` first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import (
    NO_ORDER,
    ArgumentError,
    AxisError,
    DTypeError,
    ErrorInput,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    batching,
    reduced,
)

from .axes import check_keepdims
from .reductions import reduction_errors, samples


def normalize_axis(axis: Any, ndim: int, op: str) -> int:
    """One axis (possibly negative) as a non-negative int; AxisError otherwise."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise AxisError(f"{op}: axis must be an int (or None where allowed), got {axis!r}")
    if not -ndim <= axis < ndim:
        raise AxisError(
            f"{op}: axis {int(axis)} is out of range for a tensor with {ndim} dims (valid: {-ndim}..{ndim - 1})"
        )
    return int(axis) % ndim


def _arg_extremum(name: str, fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def forward(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
        keep = check_keepdims(keepdims, name)
        if axis is not None:
            axis = normalize_axis(axis, x.ndim, name)
        if (0 in np.shape(x)) if axis is None else (np.shape(x)[axis] == 0):
            raise ShapeMismatch(f"{name}: cannot take the position of an extremum over an axis of size 0")
        return fn(x, axis=axis, keepdims=keep)

    return forward


def _arg_sample() -> Any:
    from hypothesis import strategies as st

    from tenferro.testing.strategies import SHAPES, floats_array

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = draw(SHAPES)
        # values on a coarse grid: ties are common, and must resolve to the first occurrence
        x = np.asarray(np.round(draw(floats_array(shape, -2.0, 2.0))))
        axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1))) if shape else None
        return SampleInput((x,), {"axis": axis, "keepdims": draw(st.booleans())})

    return sample()


def _arg_reference(pick: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """Brute force: the first index (in C order) of the extreme value of each slice."""

    def reference(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
        x = np.asarray(x)
        if axis is None:
            flat = x.reshape(-1).tolist()
            out = np.array(flat.index(pick(flat)))
            return out.reshape((1,) * x.ndim) if keepdims else out
        moved = np.moveaxis(x, axis, -1)
        rows = moved.reshape(-1, moved.shape[-1]).tolist()
        out = np.array([row.index(pick(row)) for row in rows], dtype=np.intp).reshape(moved.shape[:-1])
        return np.expand_dims(out, axis) if keepdims else out

    return reference


def _arg_errors(name: str) -> Callable[[], list[ErrorInput]]:
    def errors() -> list[ErrorInput]:
        x = np.zeros((2, 3))
        return [
            ErrorInput((x,), {"axis": 2}, AxisError, "out of range"),
            ErrorInput((x,), {"axis": (0, 1)}, AxisError, "axis must be an int"),
            ErrorInput((np.zeros((2, 0)),), {"axis": 1}, ShapeMismatch, "axis of size 0"),
            ErrorInput((x,), {"axis": 0, "keepdims": None}, ArgumentError, "keepdims must be True or False"),
            ErrorInput((np.zeros(2, complex),), {}, DTypeError, "complex numbers have no order"),
        ]

    return errors


def _arg_spec(name: str, fn: Callable[..., np.ndarray], pick: Callable[..., Any], what: str) -> OpSpec:
    return OpSpec(
        batch=batching.over_axes("axis", none_is_all=False),
        name=name,
        inputs=("x",),
        params={"axis": None, "keepdims": False},
        forward=_arg_extremum(name, fn),
        accepts="biuf",
        refuses=NO_ORDER,
        sample=_arg_sample,
        reference=_arg_reference(pick),
        error_inputs=_arg_errors(name),
        doc=f"Index of the {what} along `axis` (None: into the flattened tensor), an integer constant. "
        "Ties give the first occurrence (NumPy's); a nan counts as the extremum.",
    )


def _mostly_zero(x: np.ndarray, bools: bool) -> np.ndarray:
    """Samples with many zeros (or False): rounded to integers in [-3, 3]."""
    x = np.asarray(np.round(x))
    return np.asarray(np.not_equal(x, 0)) if bools else x


def _complex_mostly_zero() -> Any:
    """Complex samples with many exact zeros: real and imaginary parts rounded to integers."""
    from hypothesis import strategies as st

    from tenferro.testing.strategies import floats_array

    @st.composite
    def sample(draw: Any) -> SampleInput:
        smp = draw(samples()())
        x = smp.args[0]
        imaginary = draw(floats_array(np.shape(x), -2.0, 2.0))
        return SampleInput((np.asarray(np.round(x) + 1j * np.round(imaginary)),), smp.params)

    return sample()


def _logical(
    name: str, fn: Callable[..., np.ndarray], reference: Callable[..., np.ndarray], doc: str, bools: bool = True
) -> OpSpec:
    def forward(x: np.ndarray, axes: Any = None, keepdims: bool = False) -> np.ndarray:
        from tenferro.extend import normalize_axes

        return fn(x, axis=normalize_axes(axes, x.ndim, name), keepdims=check_keepdims(keepdims, name))

    def ref(x: np.ndarray, axes: Any = None, keepdims: bool = False) -> np.ndarray:
        from tenferro.extend import normalize_axes

        return reference(np.asarray(x), normalize_axes(axes, np.ndim(x), "reference"), keepdims)

    def errors() -> list[ErrorInput]:
        return reduction_errors(name, bools=True)()

    return OpSpec(
        name=name,
        inputs=("x",),
        params={"axes": None, "keepdims": False},
        forward=forward,
        accepts="biufc",
        sample=lambda: samples()().map(lambda smp: SampleInput((_mostly_zero(smp.args[0], bools),), smp.params)),
        complex_sample=_complex_mostly_zero,
        reference=ref,
        error_inputs=errors,
        doc=doc,
    )


def _count(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
    # np.count_nonzero returns a NumPy int for a full reduction, even of another engine's array
    return reduced(np.add, np.not_equal(x, 0), axis=axis, keepdims=keepdims, dtype=np.intp)


def _loop_reference(combine: Callable[[list[Any]], Any], dtype: Any) -> Callable[..., np.ndarray]:
    """Reduce each slice in Python (np.moveaxis to the end, then a list per slice)."""

    def reference(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        rest = [a for a in range(x.ndim) if a not in axes]
        moved = np.transpose(x, rest + list(axes))
        rows = moved.reshape(int(np.prod([x.shape[a] for a in rest], dtype=np.int64)), -1)
        out = np.array([combine(row.tolist()) for row in rows], dtype=dtype).reshape([x.shape[a] for a in rest])
        if keepdims:
            out = out.reshape([1 if a in axes else n for a, n in enumerate(x.shape)])
        return out

    return reference


SPECS = [
    _arg_spec("argmax", np.argmax, max, "largest element"),
    _arg_spec("argmin", np.argmin, min, "smallest element"),
    _logical(
        "any",
        np.any,
        _loop_reference(lambda row: any(row), bool),
        "Whether any element along `axes` is nonzero (true), as a bool constant.",
    ),
    _logical(
        "all",
        np.all,
        _loop_reference(lambda row: all(row), bool),
        "Whether every element along `axes` is nonzero (true), as a bool constant.",
    ),
    _logical(
        "count_nonzero",
        _count,
        _loop_reference(lambda row: sum(1 for v in row if v), np.intp),
        "The number of nonzero (true) elements along `axes`, as an integer constant.",
        bools=False,
    ),
]
