"""The bilinear contractions: ``dot_general`` (the seed's op, JAX's ``lax.dot_general``
dimension numbers, with tenferro-rs's optional conjugation of either operand),
``tensordot``, ``matmul`` (NumPy's: 1-D promotion, batch broadcasting), ``vecdot`` (the
array API's: conjugates its first operand) and ``outer`` (NumPy's: flattens).

``dot_general`` and ``tensordot`` are einsums with generated subscripts: their kernels run
one matrix product (:func:`.plans.pair`) and their VJPs are the two einsums of that pair.
``matmul``'s VJP is two matmuls with a transposed operand, read through its
``transpose_a``/``transpose_b`` flags (no transpose op: BLAS reads the transposed view
without a copy), summed back over broadcast batch dims. Every op is linear in each
operand (``multilinear=True``; over the reals, for a conjugated operand), so the suite
checks its VJP as its exact transpose. Shape errors name both operands, their shapes and
the contracted axes.

Complex operands: cotangents live in the real inner product Re(conj(a)·b), so the VJP of
C = A·B is G·B^H for A and A^H·G for B (the other operand conjugated); a conjugated
operand's cotangent is the conjugate of that. :func:`tenferro.extend.conj` is no op on a
real operand, so real inputs run exactly the rules they ran before; a real operand of a
complex product gets the real part of its cotangent (``unbroadcast`` casts it).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    AxisError,
    DTypeError,
    ErrorInput,
    OpSpec,
    ShapeMismatch,
    batching,
    broadcastable,
    conj,
    unbroadcast,
    whole,
)

from .plans import LETTERS, pair, shape_of


def _lazy(name: str, *args: Any) -> Any:
    def make() -> Any:
        from . import samples

        return getattr(samples, name)(*args)

    return make


def _axes(axes: Any, ndim: int, op: str, what: str) -> tuple[int, ...]:
    """A sequence of axes of an operand of ``ndim`` dims, non-negative; AxisError naming
    ``what`` ("a's contracting axes") for one out of range or not an int."""
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        axes = (axes,)
    try:
        items = tuple(axes)
    except TypeError:
        raise ArgumentError(f"{op}: {what} must be a tuple of ints, got {axes!r}") from None
    result = []
    for axis in items:
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise ArgumentError(f"{op}: {what} must be a tuple of ints, got {axes!r}")
        if not -ndim <= axis < ndim:
            raise AxisError(f"{op}: {what} include axis {int(axis)}, out of range for a tensor with {ndim} dims")
        result.append(int(axis) % ndim)
    return tuple(result)


def _pair_of(value: Any, op: str, name: str) -> tuple[Any, Any]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ArgumentError(f"{op}: {name} must be a pair ((axes of a), (axes of b)), got {value!r}")
    return value[0], value[1]


@functools.lru_cache(maxsize=1024)
def _dot_subscripts(a_shape: tuple[int, ...], b_shape: tuple[int, ...], contracting: Any, batch: Any, op: str) -> str:
    """The einsum subscripts of ``dot_general(a, b, contracting, batch)``: result axes are
    the batch axes, then a's free axes, then b's (each in order)."""
    na, nb = len(a_shape), len(b_shape)
    ca, cb = _pair_of(contracting, op, "contracting")
    ba, bb = _pair_of(batch, op, "batch")
    ca, cb = _axes(ca, na, op, "a's contracting axes"), _axes(cb, nb, op, "b's contracting axes")
    ba, bb = _axes(ba, na, op, "a's batch axes"), _axes(bb, nb, op, "b's batch axes")
    for kind, xa, xb in (("contracting", ca, cb), ("batch", ba, bb)):
        if len(xa) != len(xb):
            raise ArgumentError(
                f"{op}: {kind} names {len(xa)} axes of a but {len(xb)} of b; give one of b per axis of a"
            )
    for who, axes in (("a", ca + ba), ("b", cb + bb)):
        if len(set(axes)) != len(axes):
            raise AxisError(f"{op}: {who}'s contracting and batch axes {axes} name an axis twice")
    if na + nb - len(ca) - len(ba) > len(LETTERS):
        raise ArgumentError(f"{op}: too many dims (at most {len(LETTERS)} distinct axes)")
    for kind, xa, xb in (("contracted", ca, cb), ("batch", ba, bb)):
        sizes_a, sizes_b = [a_shape[i] for i in xa], [b_shape[i] for i in xb]
        if sizes_a != sizes_b:
            raise ShapeMismatch(
                f"{op}: a's axes {xa} (sizes {sizes_a}) are {kind} with b's axes {xb} (sizes {sizes_b}), "
                f"but the sizes differ (a has shape {list(a_shape)}, b has shape {list(b_shape)})"
            )
    letters = iter(LETTERS)
    sa = [next(letters) for _ in range(na)]
    sb = [""] * nb
    for i, j in zip(ca + ba, cb + bb):
        sb[j] = sa[i]
    sb = [c or next(letters) for c in sb]
    out = [sa[i] for i in ba]
    out += [sa[i] for i in range(na) if i not in ca and i not in ba]
    out += [sb[j] for j in range(nb) if j not in cb and j not in bb]
    return f"{''.join(sa)},{''.join(sb)}->{''.join(out)}"


def _tensordot_subscripts(a_shape: tuple[int, ...], b_shape: tuple[int, ...], axes: Any) -> str:
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if not 0 <= n <= min(len(a_shape), len(b_shape)):
            raise AxisError(
                f"tensordot: axes={n} contracts the last {n} axes of a (shape {list(a_shape)}) with the first "
                f"{n} of b (shape {list(b_shape)}); it must be between 0 and {min(len(a_shape), len(b_shape))}"
            )
        contracting = (tuple(range(len(a_shape) - n, len(a_shape))), tuple(range(n)))
    else:
        xa, xb = _pair_of(axes, "tensordot", "axes")
        contracting = (xa, xb)
    return _dot_subscripts(a_shape, b_shape, contracting, ((), ()), "tensordot")


def _bilinear(name: str, subscripts: Any, **fields: Any) -> OpSpec:
    """An op that is one pairwise einsum with subscripts ``subscripts(a_shape, b_shape,
    **params)``; its VJPs are the pair's two einsums. An op with the params ``conj_a`` and
    ``conj_b`` conjugates that operand first."""

    def forward(a: Any, b: Any, conj_a: bool = False, conj_b: bool = False, **params: Any) -> Any:
        for flag, value in (("conj_a", conj_a), ("conj_b", conj_b)):
            if not isinstance(value, (bool, np.bool_)):
                raise ArgumentError(f"{name}: {flag} must be True or False, got {value!r}")
        if conj_a and np.iscomplexobj(a):
            a = np.conjugate(a)
        if conj_b and np.iscomplexobj(b):
            b = np.conjugate(b)
        return pair(subscripts(np.shape(a), np.shape(b), **params), a, b)

    def parts(a: Any, b: Any, params: dict[str, Any]) -> tuple[str, str, str]:
        lhs, out = subscripts(shape_of(a), shape_of(b), **params).split("->")
        sa, sb = lhs.split(",")
        return sa, sb, out

    # C = op_a(A)·op_b(B): op_a(A)'s cotangent is G·conj(op_b(B)), so A's is that, conjugated
    # when op_a conjugates; B's likewise. conj is no op on real tensors.
    def rule_a(
        s: Any, g: Any, out: Any, a: Any, b: Any, conj_a: bool = False, conj_b: bool = False, **params: Any
    ) -> Any:
        sa, sb, t = parts(a, b, params)
        g, b = (conj(s, g) if conj_a else g), (conj(s, b) if conj_a == conj_b else b)
        return unbroadcast(s, s.einsum([g, b], f"{t},{sb}->{sa}"), a)

    def rule_b(
        s: Any, g: Any, out: Any, a: Any, b: Any, conj_a: bool = False, conj_b: bool = False, **params: Any
    ) -> Any:
        sa, sb, t = parts(a, b, params)
        a, g = (conj(s, a) if conj_a == conj_b else a), (conj(s, g) if conj_b else g)
        return unbroadcast(s, s.einsum([a, g], f"{sa},{t}->{sb}"), b)

    return OpSpec(
        name=name,
        inputs=("a", "b"),
        forward=forward,
        vjps=(rule_a, rule_b),
        multilinear=True,
        residuals=("a", "b"),
        accepts="fiuc",
        sample=_lazy(name),
        complex_sample=_lazy("mixed_complex", name),
        **fields,
    )


def _dot_reference(
    a: Any, b: Any, contracting: Any, batch: Any = ((), ()), conj_a: bool = False, conj_b: bool = False
) -> Any:
    """lax.dot_general as a loop over the batch index of tensordots (an independent path)."""
    a, b = np.asarray(a), np.asarray(b)
    a, b = (np.conj(a) if conj_a else a), (np.conj(b) if conj_b else b)
    (ca, cb), (ba, bb) = contracting, batch
    ca, ba = [x % a.ndim for x in ca], [x % a.ndim for x in ba]
    cb, bb = [x % b.ndim for x in cb], [x % b.ndim for x in bb]
    fa = [i for i in range(a.ndim) if i not in ca and i not in ba]
    fb = [i for i in range(b.ndim) if i not in cb and i not in bb]
    a, b = np.transpose(a, ba + fa + ca), np.transpose(b, bb + cb + fb)
    batch_shape = a.shape[: len(ba)]
    out = np.empty(
        batch_shape + tuple(a.shape[len(ba) : len(ba) + len(fa)]) + tuple(b.shape[len(bb) + len(cb) :]),
        np.result_type(a, b, np.float64),
    )
    for index in np.ndindex(*batch_shape):
        out[index] = np.tensordot(a[index], b[index], axes=len(ca))
    return out


_A, _B = np.zeros((2, 3)), np.zeros((4, 5))

DOT_GENERAL = _bilinear(
    "dot_general",
    lambda a_shape, b_shape, contracting, batch=((), ()): _dot_subscripts(
        a_shape, b_shape, contracting, batch, "dot_general"
    ),
    params={"contracting": REQUIRED, "batch": ((), ()), "conj_a": False, "conj_b": False},
    reference=_dot_reference,
    error_inputs=lambda: [
        ErrorInput(
            (_A, _B),
            {"contracting": ((1,), (0,))},
            ShapeMismatch,
            "a's axes (1,) (sizes [3]) are contracted with b's axes (0,) (sizes [4])",
        ),
        ErrorInput((_A, _B), {"contracting": ((2,), (0,))}, AxisError, "a's contracting axes include axis 2"),
        ErrorInput((_A, _B), {"contracting": ((1,), ())}, ArgumentError, "names 1 axes of a but 0 of b"),
        ErrorInput((_A, _A), {"contracting": ((1,), (1,)), "batch": ((1,), (0,))}, AxisError, "name an axis twice"),
        ErrorInput((_A, _B), {"contracting": (1, 0, 2)}, ArgumentError, "must be a pair"),
        ErrorInput((_A, _A), {"contracting": ((1,), (1,)), "conj_a": 1}, ArgumentError, "conj_a must be True or False"),
    ],
    doc="Contraction of a and b over the axis pairs `contracting` = ((a axes), (b axes)), batched "
    "over `batch` (the same form), as JAX's lax.dot_general: result axes are the batch axes, then "
    "a's free axes, then b's. `conj_a`/`conj_b` conjugate that operand first (as tenferro-rs; no "
    "effect on a real operand): conj_a=True with a's rows contracted is A^H·B.",
)

TENSORDOT = _bilinear(
    "tensordot",
    _tensordot_subscripts,
    params={"axes": 2},
    batch=batching.tensordot,
    reference=lambda a, b, axes=2: np.tensordot(np.asarray(a), np.asarray(b), axes),
    error_inputs=lambda: [
        ErrorInput(
            (_A, _B),
            {"axes": 1},
            ShapeMismatch,
            "a's axes (1,) (sizes [3]) are contracted with b's axes (0,) (sizes [4])",
        ),
        ErrorInput((_A, _B), {"axes": 3}, AxisError, "between 0 and 2"),
        ErrorInput((_A, _B), {"axes": ((0,), (3,))}, AxisError, "b's contracting axes include axis 3"),
    ],
    doc="Sum of products over axes: `axes`=N contracts a's last N axes with b's first N, or "
    "`axes`=((a axes), (b axes)), as NumPy's tensordot; result axes are a's free, then b's.",
)


# -- matmul --------------------------------------------------------------------------------------
def _matmul_forward(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False) -> Any:
    if transpose_a:  # (the method on an ndarray: 0.4 µs less than np.swapaxes, on every matmul VJP)
        a = a.swapaxes(-1, -2) if type(a) is np.ndarray else np.swapaxes(a, -1, -2)
    if transpose_b:
        b = b.swapaxes(-1, -2) if type(b) is np.ndarray else np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def _matmul_explain(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False) -> Any:
    sa, sb = list(np.shape(a)), list(np.shape(b))
    for name, shape, transposed in (("a", sa, transpose_a), ("b", sb, transpose_b)):
        if not shape:
            return ArgumentError(f"matmul: {name} is 0-d (a scalar); matmul needs 1-D or higher tensors (use mul)")
        if transposed is not False and transposed is not True:
            return ArgumentError(f"matmul: transpose_{name} must be True or False, got {transposed!r}")
        if transposed and len(shape) < 2:
            return ArgumentError(
                f"matmul: transpose_{name}=True needs a matrix (2-D or more), but {name} has shape {shape}"
            )
    if transpose_a:
        sa = sa[:-2] + sa[:-3:-1]
    if transpose_b:
        sb = sb[:-2] + sb[:-3:-1]
    ka, kb = sa[-1], sb[-2] if len(sb) > 1 else sb[-1]
    if ka != kb:
        where = "second-to-last axis" if len(sb) > 1 else "only axis"
        return ShapeMismatch(
            f"matmul: a's last axis (size {ka}) is contracted with b's {where} (size {kb}), but the sizes "
            f"differ (a has shape {sa}, b has shape {sb}{', as transposed' if transpose_a or transpose_b else ''})"
        )
    if not broadcastable([tuple(sa[:-2]), tuple(sb[:-2])]):
        return ShapeMismatch(
            f"matmul: the batch dims {sa[:-2]} of a and {sb[:-2]} of b do not broadcast together "
            f"(a has shape {sa}, b has shape {sb})"
        )
    return None


def _matmul_parts(s: Any, g: Any, a: Any, b: Any) -> tuple[Any, Any, Any]:
    """g, a and b with 1-D operands promoted as NumPy does (a to a row, b to a column)."""
    if a.ndim == 1 and b.ndim == 1:
        g = s.reshape(g, (1, 1))
    elif a.ndim == 1:
        g = s.expand_dims(g, -2)
    elif b.ndim == 1:
        g = s.expand_dims(g, -1)
    return (
        g,
        (s.reshape(a, (1, a.shape[0])) if a.ndim == 1 else a),
        (s.reshape(b, (b.shape[0], 1)) if b.ndim == 1 else b),
    )


def _summed_back(s: Any, ct: Any, x: Any, promoted: tuple[int, ...]) -> Any:
    if ct.shape != promoted:
        ct = s.sum_to(ct, promoted)
    if promoted != x.shape:
        ct = s.reshape(ct, x.shape)
    return unbroadcast(s, ct, x)


def _promoted(x: Any, row: bool) -> tuple[int, ...]:
    """A 1-D operand's shape as matmul promotes it (a row for a, a column for b)."""
    if x.ndim != 1:
        return x.shape
    return (1, x.shape[0]) if row else (x.shape[0], 1)


# With A = aᵀ where transpose_a (B likewise), C = A·B: the cotangent of A is G·Bᴴ and of B
# Aᴴ·G, each one matmul whose flags read the operands transposed (no transpose op); an
# operand given transposed gets the transpose of its cotangent, also by the flags:
# (G·Bᴴ)ᵀ = B̄·Gᵀ and (Aᴴ·G)ᵀ = Gᵀ·Ā. A matrix beside a vector (``X @ w``, ``tnp.dot``) takes one op
# per cotangent, not four: the vector's is a matrix-vector product, the other an outer
# product (each bitwise the promoted form's where BLAS forwards a one-column product to gemv,
# as OpenBLAS does; every product of an outer one is a single rounding either way).
def _matmul_rule_a(
    s: Any, g: Any, out: Any, a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False
) -> Any:
    if b.ndim == 1 and a.ndim <= 2 and not transpose_a:  # an outer product (a dot product's g·b̄)
        ct = s.mul(g if a.ndim == 1 else s.expand_dims(g, -1), conj(s, b))
        return unbroadcast(s, ct, a)
    if a.ndim == 1 and b.ndim == 2 and not transpose_b:  # B̄·g, one matrix-vector product
        return unbroadcast(s, s.matmul(conj(s, b), g), a)
    g2, _, b2 = _matmul_parts(s, g, a, b)
    if transpose_a:
        ct = s.matmul(conj(s, b2), g2, transpose_b, True)
    else:
        ct = s.matmul(g2, conj(s, b2), False, not transpose_b)
    return _summed_back(s, ct, a, _promoted(a, row=True))


def _matmul_rule_b(
    s: Any, g: Any, out: Any, a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False
) -> Any:
    if a.ndim == 1 and b.ndim <= 2 and not transpose_b:  # an outer product (a dot product's ā·g)
        ct = s.mul(conj(s, a) if b.ndim == 1 else s.expand_dims(conj(s, a), -1), g)
        return unbroadcast(s, ct, b)
    if b.ndim == 1 and a.ndim == 2 and not transpose_a:  # Aᴴ·g, one matrix-vector product
        return unbroadcast(s, s.matmul(conj(s, a), g, True), b)
    g2, a2, _ = _matmul_parts(s, g, a, b)
    if transpose_b:
        ct = s.matmul(g2, conj(s, a2), True, transpose_a)
    else:
        ct = s.matmul(conj(s, a2), g2, not transpose_a, False)
    return _summed_back(s, ct, b, _promoted(b, row=False))


MATMUL = OpSpec(
    name="matmul",
    batch=batching.matmul,
    inputs=("a", "b"),
    forward=_matmul_forward,
    params={"transpose_a": False, "transpose_b": False},
    vjps=(_matmul_rule_a, _matmul_rule_b),
    multilinear=True,
    residuals=("a", "b"),
    accepts="fiuc",
    explain=_matmul_explain,
    sample=_lazy("matmul"),
    complex_sample=_lazy("mixed_complex", "matmul"),
    reference=lambda a, b, transpose_a=False, transpose_b=False: _matmul_forward(
        np.asarray(a), np.asarray(b), transpose_a, transpose_b
    ),
    error_inputs=lambda: [
        ErrorInput(
            (_A, _B), {}, ShapeMismatch, "a's last axis (size 3) is contracted with b's second-to-last axis (size 4)"
        ),
        ErrorInput((_A, np.zeros(4)), {}, ShapeMismatch, "b's only axis (size 4)"),
        ErrorInput((np.zeros((2, 2, 3)), np.zeros((3, 3, 1))), {}, ShapeMismatch, "batch dims [2] of a and [3] of b"),
        ErrorInput((_A, 2.0), {}, ArgumentError, "b is 0-d"),
        ErrorInput((_A, np.zeros(3)), {"transpose_b": True}, ArgumentError, "transpose_b=True needs a matrix"),
        ErrorInput((_A, _B), {"transpose_a": True}, ShapeMismatch, "as transposed"),
    ],
    doc="Matrix product as NumPy's matmul (a @ b): 1-D operands promoted to a row / column and "
    "dropped again, leading batch dims broadcast; `transpose_a`/`transpose_b` read a matrix "
    "operand with its last two axes swapped (aᵀ·b without a transpose op: the VJPs use them).",
)


# -- vecdot --------------------------------------------------------------------------------------
def _vecdot_axis(a_shape: tuple[int, ...], b_shape: tuple[int, ...], axis: Any) -> int:
    """``axis`` as a negative axis valid for both operands (the array API's form), checked."""
    least = min(len(a_shape), len(b_shape))
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise ArgumentError(f"vecdot: axis must be an int, got {axis!r}")
    if 0 <= axis < least and len(a_shape) == len(b_shape):
        axis = axis - least
    if not -least <= axis < 0:
        raise AxisError(
            f"vecdot: axis {int(axis)} is out of range for a of shape {list(a_shape)} and b of shape "
            f"{list(b_shape)} (valid: {-least}..-1, counted from the end of each)"
        )
    if a_shape[axis] != b_shape[axis]:
        raise ShapeMismatch(
            f"vecdot: a's axis {int(axis)} (size {a_shape[axis]}) is contracted with b's axis {int(axis)} "
            f"(size {b_shape[axis]}), but the sizes differ (a has shape {list(a_shape)}, b has shape {list(b_shape)})"
        )
    rest = [tuple(n for i, n in enumerate(shape) if i != len(shape) + axis) for shape in (a_shape, b_shape)]
    if not broadcastable(rest):
        raise ShapeMismatch(
            f"vecdot: the other dims of a (shape {list(a_shape)}) and b (shape {list(b_shape)}) do not "
            f"broadcast together"
        )
    return int(axis)


def _vecdot(a: Any, b: Any, axis: int = -1) -> Any:
    axis = _vecdot_axis(np.shape(a), np.shape(b), axis)
    return np.vecdot(whole(a, axis), whole(b, axis), axis=axis)  # (a gufunc: its axis in one chunk)


# out = Σ conj(a)·b: a's cotangent is conj(g)·b, b's is g·a (for real inputs: g·b and g·a)
def _vecdot_rule_a(s: Any, g: Any, out: Any, a: Any, b: Any, axis: int) -> Any:
    return s.mul(s.expand_dims(conj(s, g), _vecdot_axis(a.shape, b.shape, axis)), b)


def _vecdot_rule_b(s: Any, g: Any, out: Any, a: Any, b: Any, axis: int) -> Any:
    return s.mul(s.expand_dims(g, _vecdot_axis(a.shape, b.shape, axis)), a)


VECDOT = OpSpec(
    name="vecdot",
    inputs=("a", "b"),
    params={"axis": -1},
    forward=_vecdot,
    vjps=(_vecdot_rule_a, _vecdot_rule_b),
    unbroadcast=unbroadcast,
    multilinear=True,
    residuals=("a", "b"),
    accepts="fiuc",
    sample=_lazy("vecdot"),
    complex_sample=_lazy("mixed_complex", "vecdot"),
    reference=lambda a, b, axis=-1: np.sum(
        np.moveaxis(np.conj(np.asarray(a)), axis, -1) * np.moveaxis(np.asarray(b), axis, -1), -1
    ),
    error_inputs=lambda: [
        ErrorInput(
            (_A, np.zeros((2, 4))), {}, ShapeMismatch, "a's axis -1 (size 3) is contracted with b's axis -1 (size 4)"
        ),
        ErrorInput((_A, _A), {"axis": -3}, AxisError, "axis -3 is out of range"),
        ErrorInput((np.zeros((2, 3)), np.zeros((4, 3))), {}, ShapeMismatch, "do not broadcast"),
        ErrorInput((_A, np.zeros((2, 3), bool)), {}, DTypeError, "argument 'b' has dtype bool"),
    ],
    doc="Dot product of a and b along `axis` (negative, counted from the end of each), the other "
    "dims broadcast, as the array API's vecdot: Σ conj(a)·b (a complex a is conjugated).",
)


# -- outer ---------------------------------------------------------------------------------------
def _outer_rule(s: Any, g: Any, out: Any, a: Any, b: Any) -> Any:  # G·conj(b)
    if not hasattr(b, "shape"):
        return unbroadcast(s, s.reshape(s.mul(g, conj(s, b)), a.shape), a)
    return unbroadcast(s, s.reshape(s.einsum([g, conj(s, s.reshape(b, (-1,)))], "ij,j->i"), a.shape), a)


def _outer_rule_b(s: Any, g: Any, out: Any, a: Any, b: Any) -> Any:  # conj(a)·G
    if not hasattr(a, "shape"):
        return unbroadcast(s, s.reshape(s.mul(g, conj(s, a)), b.shape), b)
    return unbroadcast(s, s.reshape(s.einsum([conj(s, s.reshape(a, (-1,))), g], "i,ij->j"), b.shape), b)


OUTER = OpSpec(
    name="outer",
    inputs=("a", "b"),
    forward=lambda a, b: np.outer(a, b),
    vjps=(_outer_rule, _outer_rule_b),
    multilinear=True,
    residuals=("a", "b"),
    accepts="fiuc",
    sample=_lazy("outer"),
    complex_sample=_lazy("mixed_complex", "outer"),
    reference=lambda a, b: np.asarray(a).reshape(-1, 1) * np.asarray(b).reshape(1, -1),
    error_inputs=lambda: [ErrorInput((_A, np.zeros(2, bool)), {}, DTypeError, "argument 'b' has dtype bool")],
    doc="Outer product as NumPy's outer: a and b flattened, result[i, j] = a[i]·b[j].",
)

SPECS = [DOT_GENERAL, TENSORDOT, MATMUL, VECDOT, OUTER]
