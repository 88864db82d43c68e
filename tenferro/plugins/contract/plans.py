"""Einsum subscripts: parsing (NumPy's grammar), planning and running a plan.

A :class:`Plan` is made once per (subscripts, shapes) and cached. It says, per operand,
how to make its labels unique and all needed (drop ellipsis axes of size 1 that broadcast,
take diagonals of repeated labels, sum labels no other operand or the output has), then
which pairs to contract in which order (NumPy's ``einsum_path(optimize="greedy")``), each
pair with the labels its result keeps. :func:`pair` contracts two arrays with one matrix
product (batch, free and contracted labels transposed and reshaped into a ``matmul``), the
same BLAS call NumPy's and PyTorch's einsum make.

An output that repeats a label (``i->ii``, which NumPy rejects) is the diagonal
embedding of the output without the repeats: the plan computes that (``i->i``), then
:func:`embed` places it on the diagonals (zeros elsewhere, as torch.diag_embed).

Labels are letters (``a-zA-Z``, as NumPy); the axes of an ellipsis get letters the
subscripts do not use. A label's sizes across operands must agree or be 1, which
broadcasts (as NumPy's einsum, named labels and ellipsis axes alike); an error names both
operands and the axes.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import string
import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, ShapeMismatch, copied, is_immutable

_NUMBERS = (int, float)
#: The labels, in ASCII order (the order of an implicit output, as NumPy's).
LETTERS = string.ascii_uppercase + string.ascii_lowercase


@dataclass(frozen=True)
class Prep:
    """Making one operand's labels unique and needed: reshape away broadcast axes of size 1
    (``shape``, or None), then a one-operand einsum ``subscripts`` (or None)."""

    shape: tuple[int, ...] | None
    subscripts: str | None
    labels: str  # the labels after both


@dataclass(frozen=True)
class Step:
    """Contract current operands ``i`` and ``j`` (positions in the working list, which
    drops both and appends the result) into ``subscripts`` (``"ab,bc->ac"``)."""

    i: int
    j: int
    subscripts: str


@dataclass(frozen=True)
class Plan:
    terms: tuple[str, ...]  # each operand's label per axis, ellipsis expanded
    out: str
    sizes: Mapping[str, int]  # read-only: plans are cached and shared
    preps: tuple[Prep | None, ...]
    steps: tuple[Step, ...]
    final: str | None  # a last one-operand einsum (a transpose), or None
    embed: str | None = None  # the output with repeated labels, when it has them (``out`` is without)


def _split_term(term: str, op: str, where: str) -> tuple[str, bool]:
    """A term's letters (``.`` marking the ellipsis) and whether it has one."""
    if term.count("...") > 1 or term.replace("...", "").count("."):
        raise ArgumentError(f"{op}: {where} {term!r} has more than one ellipsis or a stray '.'; use '...' once")
    for char in term.replace("...", ""):
        if char not in LETTERS:
            raise ArgumentError(f"{op}: {where} {term!r} has {char!r}; subscripts are letters a-z, A-Z and '...'")
    return term.replace("...", "."), "..." in term


def shape_of(x: Any) -> tuple[int, ...]:
    """An operand's shape: a tensor's, or () for a Python number."""
    return tuple(x.shape) if hasattr(x, "shape") else ()


def plan(subscripts: str, shapes: tuple[tuple[int, ...], ...], op: str = "einsum") -> Plan:
    """The plan of ``einsum(operands, subscripts)`` for operands of ``shapes``; the
    TenferroError that says what is wrong with the call otherwise. Cached: a training step
    asks for the same few plans every step (forward and VJP), and planning is pure."""
    if not isinstance(subscripts, str):
        raise ArgumentError(f"{op}: subscripts must be a string such as 'ij,jk->ik', got {subscripts!r}")
    return _plan(subscripts, tuple(map(tuple, shapes)), op)


@functools.lru_cache(maxsize=4096)
def _plan(subscripts: str, shapes: tuple[tuple[int, ...], ...], op: str) -> Plan:
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    if "->" in rhs or (not arrow and ("-" in text or ">" in text)):
        raise ArgumentError(f"{op}: subscripts {subscripts!r} must have at most one '->'")
    inputs = lhs.split(",")
    if len(inputs) != len(shapes):
        raise ArgumentError(
            f"{op}: subscripts {subscripts!r} name {len(inputs)} operands, but {len(shapes)} were given"
        )
    parsed = [_split_term(term, op, f"operands[{k}]'s subscripts") for k, term in enumerate(inputs)]
    used = set(lhs) | set(rhs)
    spare = iter(c for c in LETTERS if c not in used)
    ellipsis_ndim = 0
    for k, ((letters, has_dots), shape) in enumerate(zip(parsed, shapes)):
        named = len(letters) - has_dots
        if len(shape) < named or (not has_dots and len(shape) != named):
            raise ShapeMismatch(
                f"{op}: operands[{k}] has {len(shape)} dims (shape {list(shape)}) but its subscripts "
                f"{inputs[k]!r} name {named}{'' if has_dots else ' (add ... to cover the rest)'}"
            )
        if has_dots:
            ellipsis_ndim = max(ellipsis_ndim, len(shape) - named)
    dots = "".join(itertools.islice(spare, ellipsis_ndim))
    if ellipsis_ndim and len(dots) < ellipsis_ndim:
        raise ArgumentError(f"{op}: too many dims: an einsum has at most {len(LETTERS)} distinct labels")
    terms = []
    for (letters, has_dots), shape in zip(parsed, shapes):
        if has_dots:
            named = len(letters) - 1
            letters = letters.replace(".", dots[ellipsis_ndim - (len(shape) - named) :])
        terms.append(letters)
    if arrow:
        out_letters, out_dots = _split_term(rhs, op, "the output")
        out = out_letters.replace(".", dots)
        for char in out_letters.replace(".", ""):
            if char not in lhs:
                raise ArgumentError(f"{op}: output label {char!r} of {subscripts!r} is in no operand's subscripts")
        if ellipsis_ndim and not out_dots:
            raise ArgumentError(
                f"{op}: the operands of {subscripts!r} have ellipsis dims, but the output has no '...'; "
                f"write '...' in the output (or sum those dims afterwards)"
            )
    else:
        counts = {c: lhs.count(c) for c in set(lhs) if c in LETTERS}
        out = dots + "".join(c for c in LETTERS if counts.get(c) == 1)
    sizes = _sizes(terms, shapes, dots, op)
    unique = "".join(dict.fromkeys(out))
    p = _planned(tuple(terms), unique, sizes, shapes)
    return p if unique == out else dataclasses.replace(p, embed=out)


def _sizes(terms: list[str], shapes: tuple[tuple[int, ...], ...], dots: str, op: str) -> dict[str, int]:
    """Each label's size; a ShapeMismatch naming both operands and axes where they differ.
    An axis of size 1 broadcasts against the label's size in other operands, named labels
    and ellipsis axes alike (NumPy's, JAX's and PyTorch's einsum); a label repeated within
    one operand (a diagonal) must have one size there."""
    sizes: dict[str, int] = {}
    seen: dict[str, tuple[int, int]] = {}
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        own: dict[str, tuple[int, int]] = {}
        for axis, (label, size) in enumerate(zip(term, shape)):
            if label in own and own[label][0] != size:
                raise ShapeMismatch(
                    f"{op}: label {label!r} is repeated in operands[{k}] (shape {list(shape)}) with sizes "
                    f"{own[label][0]} (axis {own[label][1]}) and {size} (axis {axis}); a diagonal needs one size"
                )
            own[label] = (size, axis)
            if label not in sizes or sizes[label] == 1:
                sizes[label], seen[label] = size, (k, axis)
            elif size != sizes[label] and size != 1:
                k0, axis0 = seen[label]
                what = "ellipsis dims do not broadcast" if label in dots else f"label {label!r} differs"
                raise ShapeMismatch(
                    f"{op}: {what}: operands[{k0}] has size {sizes[label]} in axis {axis0} (shape "
                    f"{list(shapes[k0])}) but operands[{k}] has size {size} in axis {axis} (shape "
                    f"{list(shape)}); the operands' sizes of a label must be equal, or 1 to broadcast"
                )
    return sizes


def _planned(terms: tuple[str, ...], out: str, sizes: dict[str, int], shapes: tuple[tuple[int, ...], ...]) -> Plan:
    preps: list[Prep | None] = []
    labels: list[str] = []
    # an axis of size 1 that broadcasts is dropped first, so a label only a broadcast axis
    # shares with another operand is summed in that one's prep, as a label of its own
    squeezed_terms = [
        "".join(c for c, n in zip(term, shape) if not (n == 1 and sizes[c] != 1)) for term, shape in zip(terms, shapes)
    ]
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        squeezed = squeezed_terms[k]
        others = set(out).union(*(t for m, t in enumerate(squeezed_terms) if m != k))
        unique = "".join(dict.fromkeys(c for c in squeezed if c in others))
        shape_ = tuple(n for c, n in zip(term, shape) if not (n == 1 and sizes[c] != 1))
        subs = None if unique == squeezed else f"{squeezed}->{unique}"
        if len(terms) == 1:  # one operand: the final einsum does the rest
            unique, subs = squeezed, None
        preps.append(Prep(shape_, subs, unique) if subs or shape_ != shape else None)
        labels.append(unique)
    steps: list[Step] = []
    for i, j in _path(labels, out, sizes):
        a, b = labels[i], labels[j]
        rest = [t for m, t in enumerate(labels) if m not in (i, j)]
        if not rest:
            kept = out
        else:
            needed = set(out).union(*rest)
            batch = [c for c in a if c in b and c in needed]
            kept = "".join(
                batch + [c for c in a if c in needed and c not in b] + [c for c in b if c in needed and c not in a]
            )
        steps.append(Step(i, j, f"{a},{b}->{kept}"))
        labels = [*rest, kept]
    final = f"{labels[0]}->{out}" if labels[0] != out else None
    return Plan(terms, out, MappingProxyType(sizes), tuple(preps), tuple(steps), final)


def _path(labels: list[str], out: str, sizes: dict[str, int]) -> list[tuple[int, int]]:
    """The pairwise contraction order: NumPy's greedy path, a step of more than two
    operands (its memory limit) done left to right."""
    if len(labels) < 2:
        return []
    if len(labels) == 2:
        return [(0, 1)]
    views = [np.broadcast_to(np.empty(()), tuple(sizes[c] for c in t)) for t in labels]
    path = np.einsum_path(f"{','.join(labels)}->{out}", *views, optimize="greedy")[0][1:]
    pairs: list[tuple[int, int]] = []
    work = list(range(len(labels)))  # ids of NumPy's working list
    mine = list(range(len(labels)))  # ids of ours (the same, but a lone operand is not moved)
    fresh = len(labels)
    for step in path:
        members = [work[i] for i in step]
        work = [w for i, w in enumerate(work) if i not in step]
        acc = members[0]
        for other in members[1:]:
            i, j = sorted((mine.index(acc), mine.index(other)))
            pairs.append((i, j))
            mine = [m for k, m in enumerate(mine) if k not in (i, j)] + [fresh]
            acc, fresh = fresh, fresh + 1
        work.append(acc)
    return pairs


# -- running a plan ------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def _embedding(out: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """For an output ``out`` with repeated labels: the axes :func:`embed` inserts (each
    repeat of a label after its first) and the pairs of axes (first, repeat) whose indices
    must agree."""
    first = {c: out.index(c) for c in out}
    inserted = tuple(k for k, c in enumerate(out) if first[c] != k)
    return inserted, tuple((first[out[k]], k) for k in inserted)


def embed(x: Any, have: str, out: str, sizes: Mapping[str, int]) -> Any:
    """``x`` (labels ``have``: ``out``'s, once each, in order of first appearance) on the
    diagonals of ``out``'s repeated labels, zeros elsewhere (``i->ii``: diag(x)). A select,
    not a product with a delta tensor, so an inf or nan stays on its diagonal; the mask is
    made with ``like=x`` (another engine's array stays in its engine)."""
    inserted, pairs = _embedding(out)
    mask = None
    for i, k in pairs:
        n = sizes[out[k]]
        steps = np.arange(n, like=x)  # (np.eye(like=) is not dask's: its eye takes no order)
        eye = np.reshape(np.equal(steps[:, None], steps), [n if m in (i, k) else 1 for m in range(len(out))])
        mask = eye if mask is None else np.logical_and(mask, eye)
    return np.where(mask, np.expand_dims(x, inserted), 0)


@functools.lru_cache(maxsize=4096)
def _recipe(subscripts: str, xshape: tuple[int, ...], yshape: tuple[int, ...]) -> tuple[Any, ...]:
    """How :func:`pair` contracts ``subscripts`` (two operands of unique labels)."""
    lhs, kept = subscripts.split("->")
    a, b = lhs.split(",")
    size = dict(zip(a, xshape)) | dict(zip(b, yshape))
    sum_a = tuple(i for i, c in enumerate(a) if c not in b and c not in kept)
    sum_b = tuple(i for i, c in enumerate(b) if c not in a and c not in kept)
    a = "".join(c for c in a if c in b or c in kept)
    b = "".join(c for c in b if c in a or c in kept)
    batch = [c for c in a if c in b and c in kept]
    contracted = [c for c in a if c in b and c not in kept]
    free_a = [c for c in a if c not in b]
    free_b = [c for c in b if c not in a]
    order = "".join(batch + free_a + free_b)
    perm_out = tuple(order.index(c) for c in kept)
    perm_out = None if perm_out == tuple(range(len(kept))) else perm_out
    dims = tuple(size[c] for c in order)

    def perm(term: str, labels: list[str]) -> tuple[int, ...] | None:
        p = tuple(term.index(c) for c in labels)
        return None if p == tuple(range(len(term))) else p

    if not contracted:  # no sum: a broadcast product
        xs = tuple(size[c] for c in batch + free_a) + (1,) * len(free_b)
        ys = tuple(size[c] for c in batch) + (1,) * len(free_a) + tuple(size[c] for c in free_b)
        return ("mul", sum_a, sum_b, perm(a, batch + free_a), xs, perm(b, batch + free_b), ys, perm_out)
    nb, nm, nn, nk = (int(np.prod([size[c] for c in group])) for group in (batch, free_a, free_b, contracted))
    xs, ys = ((nb, nm, nk), (nb, nk, nn)) if batch else ((nm, nk), (nk, nn))
    return (
        "matmul",
        sum_a,
        sum_b,
        perm(a, batch + free_a + contracted),
        xs,
        perm(b, batch + contracted + free_b),
        ys,
        perm_out,
        dims,
    )


def pair(subscripts: str, x: Any, y: Any) -> Any:
    """``einsum(subscripts, x, y)`` for two operands of unique labels, as one matrix
    product (or a broadcast product when nothing is contracted)."""
    recipe = _recipe(subscripts, np.shape(x), np.shape(y))
    kind, sum_a, sum_b, perm_x, xs, perm_y, ys, perm_out = recipe[:8]
    if sum_a:
        x = np.sum(x, axis=sum_a)
    if sum_b:
        y = np.sum(y, axis=sum_b)
    if perm_x is not None:
        x = np.transpose(x, perm_x)
    if perm_y is not None:
        y = np.transpose(y, perm_y)
    if kind == "mul":  # a Python number stays one (a weak dtype: float32 stays float32)
        result = np.multiply(
            x if type(x) in _NUMBERS else np.reshape(x, xs), y if type(y) in _NUMBERS else np.reshape(y, ys)
        )
    else:
        result = np.matmul(x if np.shape(x) == xs else np.reshape(x, xs), y if np.shape(y) == ys else np.reshape(y, ys))
        if np.shape(result) != recipe[8]:  # a reshape only where needed: a view would be copied later
            result = np.reshape(result, recipe[8])
    return result if perm_out is None else np.transpose(result, perm_out)


# -- intermediates kept for the VJP ----------------------------------------------------------------
# The VJP of a multi-operand einsum redoes the forward's pairwise steps with session ops (so
# that they are recorded for higher derivatives). The forward keeps each intermediate here,
# keyed by its step and the identity of its operands (immutable arrays, checked with weak
# references): the VJP's call of the same step gets it back instead of computing it again,
# so forward + backward make as many matrix products as PyTorch's. An entry lives until it
# is used, until the einsum's result is freed (the trace keeps it), or until the stash
# exceeds STASH_BYTES (oldest first); a miss only costs the recomputation.
STASH_BYTES = 128 * 2**20
_stash: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Any, int]] = OrderedDict()
_stash_lock = threading.Lock()
_stashed_bytes = 0


def _reused(subscripts: str, operands: tuple[Any, ...]) -> Any:
    if not _stash:
        return None
    global _stashed_bytes
    with _stash_lock:
        entry = _stash.pop((subscripts, *map(id, operands)), None)
        if entry is None:
            return None
        _stashed_bytes -= entry[2]
    refs, value, _ = entry
    return value if all(ref() is x for ref, x in zip(refs, operands)) else None


def _keep(subscripts: str, operands: tuple[Any, ...], value: Any, keys: list[tuple[Any, ...]] | None) -> None:
    global _stashed_bytes
    if keys is None:  # an operand is mutable: keep nothing
        return
    size = getattr(value, "nbytes", None)
    if not isinstance(size, int) or size > STASH_BYTES // 4:
        return
    try:
        refs = tuple(weakref.ref(x) for x in operands)
    except TypeError:  # a Python scalar or an array type without weak references
        return
    key = (subscripts, *map(id, operands))
    with _stash_lock:
        old = _stash.pop(key, None)
        _stashed_bytes += size - (old[2] if old else 0)
        _stash[key] = (refs, value, size)
        while _stashed_bytes > STASH_BYTES and _stash:
            _stashed_bytes -= _stash.popitem(last=False)[1][2]
    keys.append(key)


def _forget(keys: list[tuple[Any, ...]]) -> None:
    global _stashed_bytes
    with _stash_lock:
        for key in keys:
            entry = _stash.pop(key, None)
            if entry is not None:
                _stashed_bytes -= entry[2]


def run(p: Plan, operands: list[Any]) -> Any:
    """The einsum a plan stands for, on the operands it was made for."""
    current = list(operands)
    fresh = [False] * len(current)
    # Intermediates are kept only when the operands can never change (tenferro's values):
    # a kernel called directly on writable arrays must not find a stale one later.
    keys: list[tuple[Any, ...]] | None = [] if all(map(is_immutable, operands)) else None
    for k, prep in enumerate(p.preps):
        if prep is not None:
            x = current[k]
            if prep.shape is not None and np.shape(x) != prep.shape:
                x = np.reshape(x, prep.shape)
            if prep.subscripts is not None:
                y = np.einsum(prep.subscripts, x)
                _keep(prep.subscripts, (x,), y, keys)
                x, fresh[k] = y, True
            current[k] = x
    last = len(p.steps) - 1
    for number, step in enumerate(p.steps):
        x, y = current[step.i], current[step.j]
        current = [t for m, t in enumerate(current) if m not in (step.i, step.j)]
        fresh = [f for m, f in enumerate(fresh) if m not in (step.i, step.j)] + [True]
        t = None if keys is None else _reused(step.subscripts, (x, y))
        if t is None:
            t = pair(step.subscripts, x, y)
            if number < last:
                _keep(step.subscripts, (x, y), t, keys)
        current.append(t)
    result = current[0]
    if p.final is not None:
        reused = None if keys is None else _reused(p.final, (result,))
        result, fresh[0] = (np.einsum(p.final, result), fresh[0]) if reused is None else (reused, True)
    if p.embed is not None:
        result, fresh[0] = embed(result, p.out, p.embed, p.sizes), True
    if not fresh[0]:  # a transpose, diagonal or reshape of an input: a view of it
        result = copied(result)
    if keys:
        try:
            weakref.finalize(result, _forget, keys)
        except TypeError:  # a NumPy scalar: nothing will look for the intermediates
            _forget(keys)
    return result
