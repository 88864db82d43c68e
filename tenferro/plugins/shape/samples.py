"""Hypothesis sample strategies of the shape ops (imported only when samples are drawn:
hypothesis is a test-only dependency)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from tenferro.extend import SampleInput
from tenferro.testing.strategies import SHAPES, floats_array

Draw = Callable[[Any], Any]
AT_LEAST_1D = SHAPES.filter(lambda shape: len(shape) >= 1)
AT_LEAST_2D = SHAPES.filter(lambda shape: len(shape) >= 2)


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


@st.composite
def reshape(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    remaining, dims = x.size, []
    for _ in range(draw(st.integers(0, 3))):
        d = draw(st.sampled_from(_divisors(remaining)))
        dims.append(d)
        remaining //= d
    dims.append(remaining)
    if draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    return SampleInput((x,), {"shape": tuple(dims)})


@st.composite
def permutation(draw: Draw, optional: bool = False) -> SampleInput:
    x = draw(floats_array(SHAPES))
    if optional and draw(st.booleans()):
        return SampleInput((x,), {"axes": None})
    perm = draw(st.permutations(range(x.ndim)))
    return SampleInput((x,), {"axes": tuple(p - x.ndim if draw(st.booleans()) else p for p in perm)})


@st.composite
def expand_dims(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    count = draw(st.integers(1, 2))
    out_ndim = x.ndim + count
    axes = draw(st.lists(st.integers(0, out_ndim - 1), min_size=count, max_size=count, unique=True))
    axes = [a - out_ndim if draw(st.booleans()) else a for a in axes]
    return SampleInput((x,), {"axis": axes[0] if count == 1 and draw(st.booleans()) else tuple(axes)})


@st.composite
def squeeze(draw: Draw) -> SampleInput:
    shape = list(draw(SHAPES))
    for _ in range(draw(st.integers(0, 2))):
        shape.insert(draw(st.integers(0, len(shape))), 1)
    x = draw(floats_array(tuple(shape)))
    ones = [i for i, n in enumerate(shape) if n == 1]
    if not ones or draw(st.booleans()):
        return SampleInput((x,), {"axis": None})
    chosen = draw(st.lists(st.sampled_from(ones), min_size=1, unique=True))
    return SampleInput((x,), {"axis": chosen[0] if len(chosen) == 1 else tuple(chosen)})


@st.composite
def moveaxis(draw: Draw) -> SampleInput:
    x = draw(floats_array(AT_LEAST_1D))
    count = draw(st.integers(1, x.ndim))
    source = draw(st.lists(st.integers(0, x.ndim - 1), min_size=count, max_size=count, unique=True))
    destination = draw(
        st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=count, max_size=count).filter(
            lambda d: len({a % x.ndim for a in d}) == len(d)
        )
    )
    if count == 1 and draw(st.booleans()):
        return SampleInput((x,), {"source": source[0], "destination": destination[0]})
    return SampleInput((x,), {"source": tuple(source), "destination": tuple(destination)})


@st.composite
def axes_or_none(
    draw: Draw, shapes: Any = SHAPES, extra: Callable[[Draw, np.ndarray], dict] | None = None
) -> SampleInput:
    x = draw(floats_array(shapes))
    params = {} if extra is None else extra(draw, x)
    if x.ndim == 0 or draw(st.booleans()):
        axis = None
    else:
        axes = draw(st.lists(st.integers(0, x.ndim - 1), min_size=1, unique=True))
        axis = axes[0] if len(axes) == 1 else tuple(axes)
    return SampleInput((x,), {"axis": axis, **params})


def flip() -> Any:
    return axes_or_none()


@st.composite
def roll(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    if x.ndim == 0 or draw(st.booleans()):
        return SampleInput((x,), {"shift": draw(st.integers(-5, 5)), "axis": None})
    axes = draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=3))
    shifts = draw(st.lists(st.integers(-5, 5), min_size=len(axes), max_size=len(axes)))
    if len(axes) == 1 and draw(st.booleans()):
        return SampleInput((x,), {"shift": shifts[0], "axis": axes[0]})
    return SampleInput((x,), {"shift": tuple(shifts), "axis": tuple(axes)})


@st.composite
def repeat(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    axis = None if x.ndim == 0 or draw(st.booleans()) else draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.size if axis is None else x.shape[axis]
    if draw(st.booleans()):
        repeats: Any = draw(st.integers(0, 3))
    else:
        repeats = tuple(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    return SampleInput((x,), {"repeats": repeats, "axis": axis})


def unrepeat() -> Any:
    @st.composite
    def sample(draw: Draw) -> SampleInput:
        base = draw(repeat())
        x = base.args[0]
        out_shape = np.repeat(x, base.params["repeats"], base.params["axis"]).shape
        g = draw(floats_array(out_shape))
        return SampleInput((g,), {"shape": x.shape, **base.params})

    return sample()


@st.composite
def tile(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    reps = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=4)))
    return SampleInput((x,), {"reps": reps[0] if len(reps) == 1 and draw(st.booleans()) else reps})


@st.composite
def pad(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    form = draw(st.sampled_from(["int", "pair", "pairs"]))
    if form == "int":
        width: Any = draw(st.integers(0, 2))
    elif form == "pair":
        width = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    else:
        width = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(x.ndim))
    return SampleInput((x,), {"pad_width": width, "constant_values": draw(st.sampled_from([0.0, 1.5, -2.0]))})


@st.composite
def triangle(draw: Draw) -> SampleInput:
    x = draw(floats_array(AT_LEAST_2D))
    return SampleInput((x,), {"k": draw(st.integers(-3, 3))})


@st.composite
def diagonal(draw: Draw) -> SampleInput:
    x = draw(floats_array(AT_LEAST_2D))
    axis1, axis2 = draw(
        st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=2, max_size=2).filter(
            lambda a: a[0] % x.ndim != a[1] % x.ndim
        )
    )
    return SampleInput((x,), {"offset": draw(st.integers(-3, 3)), "axis1": axis1, "axis2": axis2})


def undiagonal() -> Any:
    @st.composite
    def sample(draw: Draw) -> SampleInput:
        base = draw(diagonal())
        x = base.args[0]
        g = draw(floats_array(np.diagonal(x, **base.params).shape))
        return SampleInput((g,), {"shape": x.shape, **base.params})

    return sample()


def _bound(draw: Draw, size: int) -> Any:
    return draw(st.one_of(st.none(), st.integers(-size - 2, size + 2)))


def _item(draw: Draw, size: int) -> Any:
    kind = draw(st.sampled_from(["int", "slice", "slice", "triple"]))
    if kind == "int":
        return draw(st.integers(-size, size - 1))
    step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
    bounds = (_bound(draw, size), _bound(draw, size), step)
    return slice(*bounds) if kind == "slice" else bounds


@st.composite
def index(draw: Draw, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """A basic index for ``shape``: per axis an int, a slice (any bounds, nonzero step) or
    nothing; new axes and at most one Ellipsis anywhere."""
    consumed = draw(st.integers(0, len(shape)))
    ellipsis = draw(st.booleans())
    head = draw(st.integers(0, consumed)) if ellipsis else consumed  # items before the Ellipsis
    axes = [*range(head), *range(len(shape) - (consumed - head), len(shape))]
    items: list[Any] = [_item(draw, shape[a]) for a in axes]
    if ellipsis:
        items.insert(head, Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if len(items) == 1 and draw(st.booleans()) and not isinstance(items[0], tuple):
        return items[0]
    return tuple(items)


@st.composite
def slicing(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    return SampleInput((x,), {"index": draw(index(x.shape))})


@st.composite
def slice_scatter(draw: Draw) -> SampleInput:
    shape = draw(SHAPES)
    key = draw(index(shape))
    from .slicing import parse_index

    g = draw(floats_array(parse_index(key, shape, "slice_scatter")[1]))
    return SampleInput((g,), {"shape": shape, "index": key})


@st.composite
def concat(draw: Draw) -> SampleInput:
    """One to three tensors whose shapes agree except along the joined axis (or any shapes,
    flattened, for axis None)."""
    count = draw(st.integers(1, 3))
    if draw(st.integers(0, 4)) == 0:
        return SampleInput(tuple(draw(floats_array(SHAPES)) for _ in range(count)), {"axis": None})
    shape = draw(AT_LEAST_1D)
    axis = draw(st.integers(0, len(shape) - 1))
    arrays = []
    for _ in range(count):
        own = list(shape)
        own[axis] = draw(st.integers(0, 3))
        arrays.append(draw(floats_array(tuple(own))))
    return SampleInput(tuple(arrays), {"axis": axis - len(shape) if draw(st.booleans()) else axis})


@st.composite
def stack(draw: Draw) -> SampleInput:
    shape = draw(SHAPES)
    arrays = tuple(draw(floats_array(shape)) for _ in range(draw(st.integers(1, 3))))
    axis = draw(st.integers(0, len(shape)))
    return SampleInput(arrays, {"axis": axis - len(shape) - 1 if draw(st.booleans()) else axis})


@st.composite
def split(draw: Draw) -> SampleInput:
    x = draw(floats_array(AT_LEAST_1D))
    axis = draw(st.integers(0, x.ndim - 1))
    size = x.shape[axis]
    if draw(st.booleans()):
        sections: Any = draw(st.sampled_from(_divisors(size)))
    else:
        sections = tuple(sorted(draw(st.lists(st.integers(0, size), max_size=3))))
    return SampleInput((x,), {"indices_or_sections": sections, "axis": axis - x.ndim if draw(st.booleans()) else axis})


@st.composite
def unstack(draw: Draw) -> SampleInput:
    x = draw(floats_array(AT_LEAST_1D))
    axis = draw(st.integers(0, x.ndim - 1))
    return SampleInput((x,), {"axis": axis - x.ndim if draw(st.booleans()) else axis})


def _complexified(draw: Draw, x: np.ndarray) -> np.ndarray:
    """x with an imaginary part in [-1, 1] added."""
    return np.asarray(x + 1j * draw(floats_array(x.shape, -1.0, 1.0)))


@st.composite
def complex_pad(draw: Draw) -> SampleInput:
    """pad's complex samples: a complex x with a real or complex constant, or a real x that
    a complex constant pads into a complex result."""
    base = draw(pad())
    x, value = base.args[0], base.params["constant_values"]
    kind = draw(st.sampled_from(["complex x", "complex both", "complex constant"]))
    if kind != "complex constant":
        x = _complexified(draw, x)
    if kind != "complex x":
        value = complex(value, draw(st.sampled_from([0.5, -1.0])))
    return SampleInput((x,), {**base.params, "constant_values": value})


def mixed_join(join: str) -> Any:
    """Complex samples of a join: each tensor complex or left real (at least one complex), so
    real and complex tensors join into a complex one."""

    @st.composite
    def sample(draw: Draw) -> SampleInput:
        base = draw({"concat": concat, "stack": stack}[join]())
        which = [draw(st.booleans()) for _ in base.args]
        which[draw(st.integers(0, len(which) - 1))] = True
        args = tuple(_complexified(draw, x) if make else x for x, make in zip(base.args, which))
        return SampleInput(args, base.params)

    return sample()
