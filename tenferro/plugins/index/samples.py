"""Hypothesis sample strategies of the index family (hypothesis is imported only when a
strategy is built: it is a test-only dependency).

Index tensors hold every valid position, negative ones and repeats included (repeats are
where scatter-adds accumulate). Values that an op compares (scatter's min/max, sort) are
pairwise apart, so no sample sits on a tie.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import SampleInput

MODES = ("set", "add", "mul", "min", "max")


def _strategies() -> tuple[Any, Any, Any]:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from tenferro.testing import strategies

    return st, hnp, strategies


def positions(draw: Any, shape: tuple[int, ...], n: int) -> np.ndarray:
    """int64 positions in ``[-n, n)`` (every valid one, counted from either end)."""
    st, hnp, _ = _strategies()
    return draw(hnp.arrays(np.int64, shape, elements=st.integers(-n, n - 1)))


def _index_shape(draw: Any, max_dims: int = 2) -> tuple[int, ...]:
    st, hnp, _ = _strategies()
    return draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=3))


def _array_shape(draw: Any, min_dims: int = 0) -> tuple[int, ...]:
    st, hnp, _ = _strategies()
    return draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=1, max_side=4))


def _axis(draw: Any, ndim: int) -> int:
    st, _, _ = _strategies()
    return draw(st.integers(-ndim, ndim - 1))


def nd_indices(draw: Any, shape: tuple[int, ...], axis: int) -> np.ndarray:
    """Indices of the ``"nd"`` layout for an array of ``shape`` from ``axis`` (>= 0) on:
    a batch of k coordinates, stacked in the last axis."""
    st, _, _ = _strategies()
    k = draw(st.integers(1, len(shape) - axis))
    batch = _index_shape(draw)
    columns = [positions(draw, batch, shape[axis + i]) for i in range(k)]
    return np.stack(columns, axis=-1)


def take_sample() -> Any:
    st, _, strategies = _strategies()

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = _array_shape(draw)
        axis = None if not shape or draw(st.booleans()) else _axis(draw, len(shape))
        n = int(np.prod(shape, dtype=np.int64)) if axis is None else shape[axis]
        x = draw(strategies.floats_array(shape))
        return SampleInput((x, positions(draw, _index_shape(draw), n)), {"axis": axis})

    return sample()


def along_sample(values: str = "floats") -> Any:
    """x, indices for ``take_along_axis``; with ``values="distinct"`` just x and an axis
    (sort, argsort), x's elements pairwise apart."""
    st, _, strategies = _strategies()

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = _array_shape(draw, min_dims=1)
        axis = _axis(draw, len(shape))
        if values == "distinct":
            x = draw(strategies.distinct_array(shape))
            return SampleInput((x,), {"axis": axis, "descending": draw(st.booleans())})
        x = draw(strategies.floats_array(shape))
        index_shape = list(shape)
        index_shape[axis] = draw(st.integers(0, 4))
        return SampleInput((x, positions(draw, tuple(index_shape), shape[axis])), {"axis": axis})

    return sample()


def gather_sample() -> Any:
    st, _, strategies = _strategies()

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = _array_shape(draw, min_dims=1)
        axis = draw(st.integers(0, len(shape) - 1))
        indices = nd_indices(draw, shape, axis)
        x = draw(strategies.floats_array(shape))
        return SampleInput((x, indices), {"axis": axis - len(shape) if draw(st.booleans()) else axis})

    return sample()


def _broadcastable_to(draw: Any, target: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``target``: some leading axes dropped, some sizes 1."""
    st, _, _ = _strategies()
    kept = target[draw(st.integers(0, len(target))) :]
    return tuple(1 if draw(st.booleans()) else n for n in kept)


def scatter_sample(complex_: bool = False) -> Any:
    """x, gather's indices and updates for every mode; with ``complex_``, for the modes that
    take complex values (set, add, mul): a complex x, with complex or real updates."""
    st, _, strategies = _strategies()
    from .positions import picked_shape

    @st.composite
    def sample(draw: Any) -> SampleInput:
        mode = draw(st.sampled_from(MODES[:3] if complex_ else MODES))
        shape = _array_shape(draw, min_dims=1)
        axis = draw(st.integers(0, len(shape) - 1))
        indices = nd_indices(draw, shape, axis)
        target = picked_shape(shape, indices.shape, axis, "nd")
        updates_shape = target if draw(st.booleans()) else _broadcastable_to(draw, target)
        size = int(np.prod(shape, dtype=np.int64))
        if mode in ("min", "max"):  # no ties between x and the updates, or among updates
            pool = draw(strategies.distinct_array((size + int(np.prod(updates_shape, dtype=np.int64)),)))
            x, updates = np.reshape(pool[:size], shape), np.reshape(pool[size:], updates_shape)
        else:  # mul: away from 0, where the exact first-order rule's own derivative is not smooth
            avoid = (0.0,) if mode == "mul" else ()
            x = draw(strategies.floats_array(shape, -2.0, 2.0))
            updates = draw(strategies.floats_array(updates_shape, -2.0, 2.0, avoid=avoid))
        if complex_:
            x = np.asarray(x + 1j * draw(strategies.floats_array(shape, -1.0, 1.0)))
            if draw(st.booleans()):
                updates = np.asarray(updates + 1j * draw(strategies.floats_array(updates_shape, -1.0, 1.0)))
        if updates.size == 1 and not updates.ndim and draw(st.booleans()):
            updates = updates.item()  # a Python number: a constant, like x.at[i].set(0.0)
        return SampleInput((x, indices, updates), {"axis": axis, "mode": mode})

    return sample()


def scatter_add_to_sample() -> Any:
    st, _, strategies = _strategies()
    from .positions import picked_shape

    @st.composite
    def sample(draw: Any) -> SampleInput:
        layout = draw(st.sampled_from(("take", "along", "nd")))
        shape = _array_shape(draw, min_dims=1)
        axis = draw(st.integers(0, len(shape) - 1))
        if layout == "nd":
            indices = nd_indices(draw, shape, axis)
        elif layout == "along":
            index_shape = list(shape)
            index_shape[axis] = draw(st.integers(0, 4))
            indices = positions(draw, tuple(index_shape), shape[axis])
        else:
            if draw(st.booleans()):
                axis = None
            n = int(np.prod(shape, dtype=np.int64)) if axis is None else shape[axis]
            indices = positions(draw, _index_shape(draw), n)
        updates = draw(strategies.floats_array(picked_shape(shape, indices.shape, axis, layout)))
        return SampleInput((updates, indices), {"shape": shape, "axis": axis, "layout": layout})

    return sample()


def _window(draw: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """A start (possibly counted from the end) and sizes of a window that fits ``shape``."""
    st, _, _ = _strategies()
    sizes = tuple(draw(st.integers(0, n)) for n in shape)
    start = [draw(st.integers(0, n - m)) for n, m in zip(shape, sizes)]
    start = [b - n if b and draw(st.booleans()) else b for b, n in zip(start, shape)]
    return np.array(start, dtype=np.int64), sizes


def dynamic_slice_sample() -> Any:
    st, _, strategies = _strategies()

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = _array_shape(draw)
        start, sizes = _window(draw, shape)
        return SampleInput((draw(strategies.floats_array(shape)), start), {"sizes": sizes})

    return sample()


def dynamic_pad_sample() -> Any:
    st, _, strategies = _strategies()

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = _array_shape(draw)
        start, sizes = _window(draw, shape)
        return SampleInput((draw(strategies.floats_array(sizes)), start), {"shape": shape})

    return sample()


def boolean_mask_sample() -> Any:
    st, hnp, strategies = _strategies()

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = _array_shape(draw, min_dims=1)
        k = draw(st.integers(1, len(shape)))
        mask = draw(hnp.arrays(np.bool_, shape[:k]))
        return SampleInput((draw(strategies.floats_array(shape)), mask))

    return sample()


def argwhere_sample(complex_: bool = False) -> Any:
    st, hnp, _ = _strategies()
    values = [0.0, 1.5, -2.0, 2j, 1 - 1j] if complex_ else [0.0, 1.5, -2.0]
    return hnp.arrays(
        complex if complex_ else np.float64,
        hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
        elements=st.sampled_from(values),
    ).map(lambda x: SampleInput((x,)))


def nonzero_sample(complex_: bool = False) -> Any:
    return argwhere_sample(complex_).filter(lambda smp: np.ndim(smp.args[0]) > 0)


def winners_sample() -> Any:
    st, _, _ = _strategies()

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = _array_shape(draw, min_dims=1)
        axis = draw(st.integers(0, len(shape) - 1))
        return SampleInput((nd_indices(draw, shape, axis),), {"shape": shape, "axis": axis})

    return sample()


def filled_sample() -> Any:
    st, _, strategies = _strategies()

    @st.composite
    def sample(draw: Any) -> SampleInput:
        like = draw(strategies.floats_array())
        return SampleInput((like,), {"value": draw(st.sampled_from([0.0, 1.0, -2.5])), "shape": _array_shape(draw)})

    return sample()
