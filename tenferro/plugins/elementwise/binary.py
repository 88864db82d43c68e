"""Binary arithmetic with NumPy broadcasting, and the selection ops built on comparisons.

Either operand may be a Python scalar (a constant with NumPy's "weak" dtype, so
``mul(x_f32, 2.0)`` stays float32). Each op states one rule per input, written as if
nothing broadcast: ``unbroadcast=unbroadcast`` has the core sum cotangents back.
"""

from __future__ import annotations

import cmath
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import (
    NO_ORDER,
    REQUIRED,
    ArgumentError,
    DTypeError,
    ErrorInput,
    InputRule,
    Kink,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    conj,
    explain_broadcast,
    is_broadcast_ones,
    tangent_sum,
    unbroadcast,
)

from .derivative import JvpRule, partials

COMPARISONS: dict[str, Callable[[Any, Any], np.ndarray]] = {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}
_SYMBOLS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}


def _pairs(**kwargs: Any) -> Callable[[], Any]:
    def sample() -> Any:
        from tenferro.testing.strategies import broadcast_pair

        return broadcast_pair(**kwargs)

    return sample


def _separated() -> Any:
    from tenferro.testing.strategies import separated_pair

    return separated_pair()


def _binary_errors() -> list[ErrorInput]:
    return [
        ErrorInput((np.zeros(2), np.zeros(3)), {}, ShapeMismatch, "do not broadcast"),
        ErrorInput((np.zeros(2), np.array([True, False])), {}, DTypeError, "argument 'b' has dtype bool"),
    ]


_ANY_PAIR = _pairs()


def _binary(
    name: str,
    forward: Any,
    rules: tuple[InputRule | None, InputRule | None],
    reference: Any,
    doc: str,
    sample: Callable[[], Any] = _ANY_PAIR,
    residuals: tuple[str, ...] | None = ("a", "b"),
    kinks: tuple[Kink, ...] = (),
    linear: bool = False,
    multilinear: bool = False,
    error_inputs: Callable[[], list[ErrorInput]] = _binary_errors,
    accepts: str = "fiu",
    refuses: dict[str, str] | None = None,
    jvp: JvpRule | None = None,
) -> OpSpec:
    return OpSpec(
        name=name,
        inputs=("a", "b"),
        forward=forward,
        vjps=rules,
        jvp=jvp,
        unbroadcast=unbroadcast,
        linear=linear,
        multilinear=multilinear,
        accepts=accepts,
        explain=explain_broadcast(name, ("a", "b")),
        sample=sample,
        reference=reference,
        error_inputs=error_inputs,
        residuals=residuals,
        doc=doc,
        kinks=kinks,
        refuses=refuses or {},
        elementwise=True,
    )


def _split_ties(winner: float) -> Kink:
    """maximum/minimum of [1, 1, winner] and 1: the ties give half the cotangent to each
    operand (b, broadcast, sums its two halves); ``winner`` takes all of its own."""
    return Kink((np.array([1.0, 1.0, winner]), np.array(1.0)), (np.array([0.5, 0.5, 1.0]), np.array(1.0)))


# -- rules: rule(s, g, out, a, b) -> the cotangent of one input ---------------------------
def _mul_unless_ones(s: Any, g: Any, b: Any) -> Any:
    """g·conj(b), or b itself when g is a broadcast of ones with b's shape and dtype (the
    cotangent a sum hands down from a seed of 1) and b is real: bitwise the same value, but
    no pass over memory and no new array. At N = 10^6 this takes two of the seed
    gradient's eleven array passes away."""
    if type(b) is float:  # the common case in chains of ops: no test of g, nothing to conjugate
        return s.mul(g, b)
    if is_broadcast_ones(g) and hasattr(b, "shape") and g.shape == b.shape and g.dtype == b.dtype:
        return conj(s, b)
    return s.mul(g, conj(s, b))


def _mul_a(s: Any, g: Any, out: Any, a: Any, b: Any) -> Any:
    # x*x: one cotangent (g·x)·2 instead of g·x + g·x (bitwise the same: doubling is exact;
    # g·(2x) would overflow where 2x does)
    return s.mul(_mul_unless_ones(s, g, b), 2.0) if a is b else _mul_unless_ones(s, g, b)


def _mul_b(s: Any, g: Any, out: Any, a: Any, b: Any) -> Any:
    return None if a is b else _mul_unless_ones(s, g, a)  # a is b: _mul_a gave both


def _div_a(s: Any, g: Any, out: Any, a: Any, b: Any) -> Any:
    return s.div(g, conj(s, b))


def _div_b(s: Any, g: Any, out: Any, a: Any, b: Any) -> Any:
    return s.neg(s.mul(s.div(g, conj(s, b)), conj(s, out)))  # d(a/b)/db = -a/b**2 = -(1/b)(a/b)


def _div_jvp(s: Any, tangents: Any, inputs: Any, out: Any) -> Any:
    """(t_a - t_b·out) / b: reads b and out, as the VJP does."""
    t_a, t_b = tangents
    b = inputs[1]
    if t_b is None:
        return None if t_a is None else tangent_sum(s, [s.div(t_a, b)], out)
    along_b = s.mul(t_b, out)
    return tangent_sum(s, [s.div(s.neg(along_b) if t_a is None else s.sub(t_a, along_b), b)], out)


def _is_scalar(x: Any) -> bool:
    """A Python number operand (the core hands a rule a NumPy scalar as a 0-d tensor)."""
    return not hasattr(x, "shape")


def _pow_da(s: Any, out: Any, a: Any, b: Any) -> Any:
    """∂(a**b)/∂a = b·a**(b-1)."""
    if _is_scalar(b):  # a scalar exponent: b - 1 in plain Python
        if b == 2 and a.dtype.kind == "f":  # a square's 2·a: one op (a real a**1 is a, bitwise)
            return s.mul(a, b)
        return None if b == 0 else s.mul(s.pow(a, b - 1), b)
    # b·a**(b-1) is 0·inf at a == b == 0; take base 1 there (value 0, and its derivative in
    # b stays right wherever a != 0)
    degenerate = s.where_select(s.compare(a, 0, "eq"), s.compare(b, 0, "eq"), False)
    return s.mul(s.pow(s.where_select(degenerate, 1.0, a), s.sub(b, 1)), b)


def _pow_db(s: Any, out: Any, a: Any, b: Any) -> Any:
    # d(a**b)/db = a**b log(a), taken as 0 where a == 0 (PyTorch's convention for real
    # operands, kept for complex ones). A real a with a complex b gives a complex power:
    # its log is the complex one (log(-2) = log 2 + i·pi), as PyTorch's promotion does.
    complex_out = out.dtype.kind == "c"
    if _is_scalar(a):
        if complex_out and (isinstance(a, complex) or a < 0):
            log_a = cmath.log(a) if a != 0 else 0.0
        else:
            log_a = math.log(a) if a > 0 else 0.0 if a == 0 else math.nan  # math.log: exact for huge ints
    else:
        safe = s.where_select(s.compare(a, 0, "eq"), 1.0, a)
        if complex_out and a.dtype.kind != "c":
            safe = s.astype(safe, out.dtype)
        log_a = s.log(safe)
    return s.mul(out, log_a)


_POW_VJPS, _POW_JVP = partials(_pow_da, _pow_db)


def _share(s: Any, g: Any, mine: Any, other: Any, beats: str) -> Any:
    """The cotangent of ``mine`` in the maximum (``beats="gt"``: mine wins where it is
    greater) or minimum (``beats="lt"``) of two: all of g where it wins, half where it ties
    (PyTorch's convention), none where it loses."""
    return s.where_select(
        s.compare(mine, other, beats), g, s.where_select(s.compare(mine, other, "eq"), s.mul(g, 0.5), 0.0)
    )


def _extremum(beats: str) -> tuple[tuple[InputRule, InputRule], JvpRule]:
    """The VJPs and the JVP of maximum or minimum: the same shares of g (of each tangent)."""

    def jvp(s: Any, tangents: Any, inputs: Any, out: Any) -> Any:
        (t_a, t_b), (a, b) = tangents, inputs
        terms = [] if t_a is None else [_share(s, t_a, a, b, beats)]
        return tangent_sum(s, terms if t_b is None else [*terms, _share(s, t_b, b, a, beats)], out)

    return (
        lambda s, g, out, a, b: _share(s, g, a, b, beats),
        lambda s, g, out, a, b: _share(s, g, b, a, beats),
    ), jvp


_MAXIMUM, _MINIMUM = _extremum("gt"), _extremum("lt")


def _clamp_masks(s: Any, x: Any, lo: Any, hi: Any) -> tuple[Any, Any]:
    """Where the result is x (lo <= x <= hi, bounds included, as PyTorch's clamp) and where
    it is lo (x < lo < hi; None for none); it is hi everywhere else (x > hi, and lo >= hi)."""
    x_in = s.logical_and(s.compare(x, lo, "ge"), s.compare(x, hi, "le"))
    if hasattr(lo, "shape") or hasattr(hi, "shape"):
        lo_wins = s.logical_and(s.compare(x, lo, "lt"), s.compare(lo, hi, "lt"))
    else:  # two Python bounds: lo < hi is a Python bool
        lo_wins = s.compare(x, lo, "lt") if lo < hi else None
    return x_in, lo_wins


def _clamp_jvp(s: Any, tangents: Any, inputs: tuple[Any, Any, Any], out: Any) -> Any:
    """The tangent of the argument whose value is the result (see :func:`_clamp_masks`)."""
    (t_x, t_lo, t_hi), (x, lo, hi) = tangents, inputs
    x_in, lo_wins = _clamp_masks(s, x, lo, hi)
    terms = [] if t_x is None else [s.where_select(x_in, t_x, 0.0)]
    if t_lo is not None and lo_wins is not None:
        terms.append(s.where_select(lo_wins, t_lo, 0.0))
    if t_hi is not None:
        elsewhere = x_in if lo_wins is None else s.logical_or(x_in, lo_wins)
        terms.append(s.where_select(elsewhere, 0.0, t_hi))
    return tangent_sum(s, terms, out)


def _clamp_vjp(s: Any, g: Any, inputs: tuple[Any, Any, Any], out: Any) -> tuple[Any, Any, Any]:
    """One rule for the whole op: the cotangent goes whole to the argument whose value is
    the result (see :func:`_clamp_masks`)."""
    x, lo, hi = inputs
    x_in, lo_wins = _clamp_masks(s, x, lo, hi)
    g_x = unbroadcast(s, s.where_select(x_in, g, 0.0), x) if s.needs_grad(x) else None
    g_lo = unbroadcast(s, s.where_select(lo_wins, g, 0.0), lo) if s.needs_grad(lo) else None
    if not s.needs_grad(hi):
        return g_x, g_lo, None
    elsewhere = x_in if lo_wins is None else s.logical_or(x_in, lo_wins)
    return g_x, g_lo, unbroadcast(s, s.where_select(elsewhere, 0.0, g), hi)


def _where_a(s: Any, g: Any, out: Any, cond: Any, a: Any, b: Any) -> Any:
    return s.where_select(cond, g, 0.0)


def _where_b(s: Any, g: Any, out: Any, cond: Any, a: Any, b: Any) -> Any:
    return s.where_select(cond, 0.0, g)


# -- kernels ---------------------------------------------------------------------------
def _pow(a: Any, b: Any) -> np.ndarray:
    integers = np.result_type(a).kind in "iu" and np.result_type(b).kind in "iu"
    if integers and np.any(b < 0):
        raise DTypeError("pow: an integer base with a negative integer exponent; make the base a float tensor")
    return np.power(a, b)


#: The comparisons that order their operands (eq and ne do not).
_ORDERINGS = frozenset({"lt", "le", "gt", "ge"})


def _is_complex(value: Any) -> bool:
    return isinstance(value, complex) or getattr(getattr(value, "dtype", None), "kind", "") == "c"


def _compare(a: Any, b: Any, op: str) -> np.ndarray:
    op = _SYMBOLS.get(op, op) if isinstance(op, str) else op
    ufunc = COMPARISONS.get(op) if isinstance(op, str) else None
    if ufunc is None:
        raise ArgumentError(
            f"compare: op must be one of {', '.join(COMPARISONS)} (or {', '.join(_SYMBOLS)}), got {op!r}"
        )
    if op in _ORDERINGS and (_is_complex(a) or _is_complex(b)):
        which = "a" if _is_complex(a) else "b"
        raise DTypeError(
            f"compare: op {op!r} orders its operands, and argument {which!r} is complex: complex numbers have no "
            f"order (NumPy's lexicographic one is not the array API's); compare s.real(...), s.abs(...) or "
            f"s.angle(...) of it instead, or use 'eq'/'ne'"
        )
    return ufunc(a, b)


def _where(cond: Any, a: Any, b: Any) -> np.ndarray:
    return np.where(cond, a, b)


def _clamp(x: Any, lo: Any, hi: Any) -> np.ndarray:
    return np.minimum(np.maximum(x, lo), hi)


def _select_sample() -> Any:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from tenferro.testing.strategies import floats_array

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3))
        cond = draw(hnp.arrays(np.bool_, shapes.input_shapes[0]))
        return SampleInput((cond, *(draw(floats_array(sh)) for sh in shapes.input_shapes[1:])))

    return sample()


def _clamp_sample() -> Any:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from tenferro.testing.strategies import floats_array

    @st.composite
    def sample(draw: Any) -> SampleInput:
        # bounds on a grid of halves, x kept a quarter away from every grid point: no ties
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3))
        x = draw(floats_array(shapes.input_shapes[0], -3.0, 3.0, avoid=tuple(np.arange(-3.0, 3.01, 0.5)), margin=0.25))
        lo = np.asarray(draw(hnp.arrays(np.int64, shapes.input_shapes[1], elements=st.integers(-6, 0))) / 2.0)
        hi = np.asarray(lo + draw(hnp.arrays(np.int64, shapes.input_shapes[2], elements=st.integers(1, 6))) / 2.0)
        return SampleInput((x, lo, hi))

    return sample()


def _compare_sample() -> Any:
    from hypothesis import strategies as st

    from tenferro.testing.strategies import broadcast_pair

    return st.tuples(broadcast_pair(), st.sampled_from(sorted(COMPARISONS))).map(
        lambda pair_op: SampleInput(pair_op[0].args, {"op": pair_op[1]})
    )


def _complex_compare_sample() -> Any:
    """eq and ne (the comparisons complex numbers have) of complex pairs, some elements equal."""
    from hypothesis import strategies as st

    from tenferro.testing.strategies import broadcast_pair

    @st.composite
    def sample(draw: Any) -> SampleInput:
        pair = draw(broadcast_pair(scalars=False))
        a, b = (np.asarray(x + 1j * np.round(x)) for x in pair.args)  # imaginary parts from a small set
        if a.shape == b.shape and draw(st.booleans()):
            b = np.where(np.arange(b.size).reshape(b.shape) % 2 == 0, a, b)  # some ties
        return SampleInput((a, b), {"op": draw(st.sampled_from(["eq", "ne"]))})

    return sample()


_V = np.zeros(2)

SPECS = [
    _binary(
        "add",
        np.add,
        (lambda s, g, out, a, b: g, lambda s, g, out, a, b: g),
        lambda a, b: np.asarray(a) + b,
        "a + b.",
        residuals=None,
        linear=True,
        accepts="fiuc",
    ),
    _binary(
        "sub",
        np.subtract,
        (lambda s, g, out, a, b: g, lambda s, g, out, a, b: s.neg(g)),
        lambda a, b: np.asarray(a) - b,
        "a - b.",
        residuals=None,
        linear=True,
        accepts="fiuc",
    ),
    _binary(
        "mul", np.multiply, (_mul_a, _mul_b), lambda a, b: np.asarray(a) * b, "a * b.", multilinear=True, accepts="fiuc"
    ),
    _binary(
        "div",
        np.true_divide,
        (_div_a, _div_b),
        lambda a, b: np.asarray(a) / b,
        "a / b (true division; integers give float64). x/0 = ±inf.",
        _pairs(b_avoid=(0.0,)),
        residuals=("b", "out"),
        accepts="fiuc",
        jvp=_div_jvp,
    ),
    _binary(
        "pow",
        _pow,
        _POW_VJPS,
        lambda a, b: np.exp(np.log(a) * b),
        "a ** b. Conventions (PyTorch's): d/da = b·a**(b-1) is 0 where b == 0 (also at a == 0); "
        "d/db = a**b·log(a) is 0 where a == 0 and nan where a < 0 (real a and b). Complex a or b: the "
        "principal power exp(b·log a) (log's cut along the negative real axis), holomorphic in both; the "
        "same conventions at a == 0, and a real a < 0 with a complex b takes the complex log(a).",
        _pairs(a_range=(0.5, 3.0), b_range=(-2.0, 2.5)),
        residuals=("a", "b", "out"),
        kinks=(
            Kink(
                (np.array([0.0, 0.0, -2.0]), np.array([0.0, 2.0, 2.0])),
                (np.array([0.0, 0.0, -4.0]), np.array([0.0, 0.0, np.nan])),
            ),
            Kink((np.array([0.0, 2.0]), 0.0), (np.zeros(2), None)),
            Kink((np.array([0j, 0j]), np.array([0j, 2 + 0j])), (np.zeros(2, complex), np.zeros(2, complex))),
        ),
        accepts="fiuc",
        jvp=_POW_JVP,
    ),
    _binary(
        "maximum",
        np.maximum,
        _MAXIMUM[0],
        lambda a, b: np.where(np.greater(a, b), a, b),
        "Elementwise max. Convention: where a == b the cotangent is split evenly, half to each.",
        _separated,
        kinks=(_split_ties(winner=3.0),),
        refuses=NO_ORDER,
        jvp=_MAXIMUM[1],
    ),
    _binary(
        "minimum",
        np.minimum,
        _MINIMUM[0],
        lambda a, b: np.where(np.less(a, b), a, b),
        "Elementwise min. Convention: where a == b the cotangent is split evenly, half to each.",
        _separated,
        kinks=(_split_ties(winner=-1.0),),
        refuses=NO_ORDER,
        jvp=_MINIMUM[1],
    ),
    OpSpec(
        name="where_select",
        batch="elementwise",
        inputs=("cond", "a", "b"),
        forward=_where,
        vjps=(None, _where_a, _where_b),
        unbroadcast=unbroadcast,
        linear=True,
        accepts=("b", "biufc", "biufc"),
        residuals=("cond",),
        explain=explain_broadcast("where_select", ("cond", "a", "b")),
        sample=_select_sample,
        reference=lambda c, a, b: np.asarray(c) * np.asarray(a) + (~np.asarray(c)) * np.asarray(b),
        error_inputs=lambda: [
            ErrorInput((np.array([1.0, 0.0]), _V, _V), {}, DTypeError, "argument 'cond' has dtype f64"),
            ErrorInput((np.array([True, False]), _V, np.zeros(3)), {}, ShapeMismatch, "do not broadcast"),
        ],
        doc="a where cond is true, else b (NumPy's where, with its promotion: a real branch and a complex "
        "one give a complex result); cond is a bool tensor and gets no gradient. Linear in (a, b).",
    ),
    OpSpec(
        name="clamp",
        inputs=("x", "lo", "hi"),
        forward=_clamp,
        vjp=_clamp_vjp,
        jvp=_clamp_jvp,
        accepts="fiu",
        refuses=NO_ORDER,
        explain=explain_broadcast("clamp", ("x", "lo", "hi")),
        sample=_clamp_sample,
        reference=lambda x, lo, hi: np.clip(x, lo, hi),
        error_inputs=lambda: [ErrorInput((_V, 0.0, np.zeros(3)), {}, ShapeMismatch, "do not broadcast")],
        doc="minimum(maximum(x, lo), hi) (NumPy's clip); lo and hi may be tensors or scalars. Convention "
        "(PyTorch's): the cotangent goes to x where lo <= x <= hi, bounds included; to lo where x < lo < hi; "
        "else to hi (also where lo >= hi: the result is hi there; PyTorch drops it where x < lo == hi).",
        kinks=(
            Kink(
                (np.array([1.0, 2.0, 1.5]), np.array(1.0), np.array(2.0)),
                (np.array([1.0, 1.0, 1.0]), np.array(0.0), np.array(0.0)),
            ),
            Kink(
                (np.array([0.0, 1.0, 2.0]), np.array(1.0), np.array(1.0)),
                (np.array([0.0, 1.0, 0.0]), np.array(0.0), np.array(2.0)),
            ),
            Kink(
                (np.array([1.0, 2.0, 3.0]), np.array(2.0), np.array(1.5)),
                (np.array([0.0, 0.0, 0.0]), np.array(0.0), np.array(3.0)),
            ),
        ),
    ),
    OpSpec(
        name="compare",
        batch="elementwise",
        inputs=("a", "b"),
        params={"op": REQUIRED},
        forward=_compare,
        accepts="biufc",
        explain=explain_broadcast("compare", ("a", "b")),
        sample=_compare_sample,
        complex_sample=_complex_compare_sample,
        reference=lambda a, b, op: getattr(operator, op)(np.asarray(a), b),
        error_inputs=lambda: [
            ErrorInput((_V, _V), {"op": "approx"}, ArgumentError, "op must be one of"),
            ErrorInput((_V, np.zeros(3)), {"op": "lt"}, ShapeMismatch, "do not broadcast"),
            ErrorInput((_V, np.array([1j, 2.0])), {"op": "lt"}, DTypeError, "complex numbers have no order"),
            ErrorInput((np.array([1j, 2.0]), 0.0), {"op": ">="}, DTypeError, "argument 'a' is complex"),
            ErrorInput((_V, 1j), {"op": "gt"}, DTypeError, "compare s.real(...), s.abs(...)"),
        ],
        doc="a <op> b as a bool tensor, op one of lt le gt ge eq ne (or < <= > >= == !=); no gradient. "
        "Complex operands: eq and ne only (complex numbers have no order).",
    ),
]
