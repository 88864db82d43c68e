"""Hypothesis sample strategies of the contract ops (imported only when samples are drawn:
hypothesis is a test-only dependency)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tenferro.extend import SampleInput
from tenferro.testing.strategies import floats_array

Draw = Callable[[Any], Any]
SIDES = st.integers(1, 3)

#: einsum subscripts the samples draw from: pairs, chains, batches, outer and Hadamard
#: products, implicit outputs, ellipses, diagonals, traces, sums, transposes and outputs
#: that repeat a label (diagonal embeddings).
EINSUM_CASES = [
    "ij,jk->ik",
    "ij,jk",
    "ij,kj->ki",
    "i,i->",
    "i,j->ij",
    "bij,bjk->bik",
    "ij,ij->ij",
    "ij,jk,kl->il",
    "abc,cd,bd->a",
    "i,i,i->i",
    "ii->i",
    "ii->",
    "iij->j",
    "ii,i->i",
    "ij->ji",
    "ijk->",
    "ij->j",
    "...ij,...jk->...ik",
    "...i,...i->...",
    "i...,i->...",
    ",i->i",
    "i->ii",
    "ij->jii",
    "ij,jk->kiki",
    "ii->ii",
    "...i->...ii",
]


def _with_dots(term: str, sizes: dict[str, int], dots: tuple[int, ...]) -> list[int]:
    head, _, tail = term.partition("...")
    return [sizes[c] for c in head] + list(dots) + [sizes[c] for c in tail]


@st.composite
def einsum(draw: Draw) -> SampleInput:
    subscripts = draw(st.sampled_from(EINSUM_CASES))
    lhs = subscripts.split("->")[0]
    sizes = {c: draw(SIDES) for c in sorted(set(lhs) - set(",."))}
    batch = tuple(draw(st.lists(SIDES, max_size=2)))
    operands = []
    for term in lhs.split(","):
        dots = batch
        if "..." in term and batch and draw(st.booleans()):  # broadcast: drop or shrink leading dims
            dots = batch[1:] if draw(st.booleans()) else (1,) + batch[1:]
        # a named label's axis of size 1 broadcasts too (one that is not a repeated label's)
        own = {c: 1 if term.count(c) == 1 and draw(st.integers(0, 5)) == 0 else sizes[c] for c in set(term) - {"."}}
        shape = tuple(_with_dots(term, own, dots)) if "..." in term else tuple(own[c] for c in term)
        operands.append(draw(floats_array(shape)))
    return SampleInput(tuple(operands), {"subscripts": subscripts})


@st.composite
def dot_general(draw: Draw) -> SampleInput:
    nb, nc = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    na_free, nb_free = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    shared = [draw(SIDES) for _ in range(nb + nc)]
    a_dims = shared + [draw(SIDES) for _ in range(na_free)]
    b_dims = shared + [draw(SIDES) for _ in range(nb_free)]
    a_perm = draw(st.permutations(range(len(a_dims))))
    b_perm = draw(st.permutations(range(len(b_dims))))
    a = draw(floats_array(tuple(a_dims[p] for p in a_perm)))
    b = draw(floats_array(tuple(b_dims[p] for p in b_perm)))
    where_a = {p: i for i, p in enumerate(a_perm)}
    where_b = {p: i for i, p in enumerate(b_perm)}
    batch = (tuple(where_a[i] for i in range(nb)), tuple(where_b[i] for i in range(nb)))
    contracting = (tuple(where_a[i] for i in range(nb, nb + nc)), tuple(where_b[i] for i in range(nb, nb + nc)))
    params = {"contracting": contracting, "batch": batch}
    for flag in ("conj_a", "conj_b"):
        if draw(st.booleans()):
            params[flag] = draw(st.booleans())
    return SampleInput((a, b), params)


@st.composite
def tensordot(draw: Draw) -> SampleInput:
    n = draw(st.integers(0, 2))
    shared = [draw(SIDES) for _ in range(n)]
    a = draw(floats_array(tuple([draw(SIDES) for _ in range(draw(st.integers(0, 2)))] + shared)))
    if draw(st.booleans()):
        b = draw(floats_array(tuple(shared + [draw(SIDES) for _ in range(draw(st.integers(0, 1)))])))
        return SampleInput((a, b), {"axes": n})
    order = draw(st.permutations(range(n)))
    b_shape = [shared[i] for i in order] + [draw(SIDES)]
    b = draw(floats_array(tuple(b_shape)))
    a_axes = tuple(a.ndim - n + i for i in order)
    return SampleInput((a, b), {"axes": (a_axes, tuple(range(n)))})


@st.composite
def matmul(draw: Draw) -> SampleInput:
    m, k, n = draw(SIDES), draw(SIDES), draw(SIDES)
    batch = tuple(draw(st.lists(SIDES, max_size=2)))
    a_shape = (k,) if draw(st.integers(0, 3)) == 0 else _broadcastable(draw, batch) + (m, k)
    b_shape = (k,) if draw(st.integers(0, 3)) == 0 else _broadcastable(draw, batch) + (k, n)
    params = {}  # a matrix operand given transposed, as the VJPs give theirs
    if len(a_shape) > 1 and draw(st.integers(0, 2)) == 0:
        a_shape, params["transpose_a"] = a_shape[:-2] + a_shape[:-3:-1], True
    if len(b_shape) > 1 and draw(st.integers(0, 2)) == 0:
        b_shape, params["transpose_b"] = b_shape[:-2] + b_shape[:-3:-1], True
    return SampleInput((draw(floats_array(a_shape)), draw(floats_array(b_shape))), params)


def _broadcastable(draw: Draw, batch: tuple[int, ...]) -> tuple[int, ...]:
    """``batch``, or a shape that broadcasts to it (leading dims dropped, some set to 1)."""
    dims = batch[draw(st.integers(0, len(batch))) :]
    return tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in dims)


@st.composite
def vecdot(draw: Draw) -> SampleInput:
    batch = tuple(draw(st.lists(SIDES, max_size=2)))
    k = draw(SIDES)
    ndim = len(batch) + 1
    axis = draw(st.integers(-ndim, -1))
    full = list(batch)
    full.insert(ndim + axis, k)
    a_shape = tuple(full)
    b_shape = tuple(1 if i != ndim + axis and draw(st.integers(0, 3)) == 0 else d for i, d in enumerate(full))
    if axis == -1 and draw(st.booleans()):
        b_shape = b_shape[draw(st.integers(0, len(b_shape) - 1)) :]
    return SampleInput((draw(floats_array(a_shape)), draw(floats_array(b_shape))), {"axis": axis})


@st.composite
def outer(draw: Draw) -> SampleInput:
    shapes = st.lists(SIDES, max_size=2).map(tuple)
    return SampleInput((draw(floats_array(shapes)), draw(floats_array(shapes))))


_IMAGINARY = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)


@st.composite
def mixed_complex(draw: Draw, name: str) -> SampleInput:
    """A float sample of ``name`` with an imaginary part added to some of its operands (at
    least one): real and complex operands mixed, as NumPy promotes them (a real operand's
    cotangent must come back real)."""
    sample = draw(globals()[name]())
    arrays = [k for k, x in enumerate(sample.args) if isinstance(x, np.ndarray)]
    if not arrays:
        return sample
    chosen = {k for k in arrays if draw(st.booleans())} or {draw(st.sampled_from(arrays))}
    args = list(sample.args)
    for k in chosen:
        x = args[k]
        args[k] = np.asarray(x + 1j * draw(hnp.arrays(np.float64, x.shape, elements=_IMAGINARY)))
    return SampleInput(tuple(args), sample.params)
