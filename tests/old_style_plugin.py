"""A plugin written exactly as plugins were at commit 24a8c4a, before tenferro.extend and
the rule vocabulary: whole-op ``vjp=(s, g, inputs, out)`` rules, imports from ``tenferro``
and ``tenferro.core.registry``, ``unbroadcast`` and ``explain_broadcast`` from the
built-in plugin's modules (as the guide of that commit said), a hook parameter named
``registry``. tests/test_old_style_plugin.py checks that it still loads and conforms.
Do not modernise it: it stands for plugins already written."""

from typing import Any

import numpy as np

from tenferro import AxisError, DTypeError, ErrorInput, OpSpec, ShapeMismatch, hookimpl
from tenferro.core.registry import SampleInput
from tenferro.plugins.elementwise.binary import explain_broadcast  # noqa: F401 - as 24a8c4a's guide showed
from tenferro.plugins.elementwise.broadcasting import unbroadcast


def _unary_sample() -> Any:
    from tenferro.testing.strategies import unary

    return unary(-8.0, 8.0)


def _pair_sample() -> Any:
    from hypothesis import strategies as st

    from tenferro.testing.strategies import broadcast_pair, unary

    with_a_number = unary().map(lambda sample: SampleInput((sample.args[0], 0.5)))
    return st.one_of(broadcast_pair(), with_a_number)


def _reduction_sample() -> Any:
    from tenferro.testing.strategies import reduction

    return reduction()


def _softplus_vjp(s: Any, g: Any, inputs: Any, out: Any) -> Any:
    (x,) = inputs
    return (s.mul(g, s.sigmoid(x)),)


def _sqdiff_vjp(s: Any, g: Any, inputs: Any, out: Any) -> Any:
    a, b = inputs
    g_a = s.mul(g, s.mul(s.sub(a, b), 2.0))
    return (
        unbroadcast(s, g_a, a) if s.needs_grad(a) else None,
        unbroadcast(s, s.neg(g_a), b) if s.needs_grad(b) else None,
    )


def _sqdiff_explain(a: Any, b: Any) -> Any:
    try:
        np.broadcast_shapes(np.shape(a), np.shape(b))
    except ValueError:
        return ShapeMismatch(f"old_sqdiff: shapes {np.shape(a)} and {np.shape(b)} do not broadcast")
    return None


def _sumsq_vjp(s: Any, g: Any, inputs: Any, out: Any, axes: Any) -> Any:
    (x,) = inputs
    return (s.mul(s.expand_to(g, x.shape, axes), s.mul(x, 2.0)),)


SPECS = [
    OpSpec(
        name="old_softplus",
        inputs=("x",),
        forward=lambda x: np.logaddexp(0.0, x),
        vjp=_softplus_vjp,
        accepts="f",
        residuals=("x",),
        sample=_unary_sample,
        reference=lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0),
        error_inputs=lambda: [ErrorInput((np.array([True]),), {}, DTypeError, "accepts float")],
        doc="log(1 + e**x).",
    ),
    OpSpec(
        name="old_sqdiff",
        inputs=("a", "b"),
        forward=lambda a, b: np.square(np.subtract(a, b)),
        vjp=_sqdiff_vjp,
        explain=_sqdiff_explain,
        residuals=("a", "b"),
        sample=_pair_sample,
        reference=lambda a, b: (np.asarray(a) - b) ** 2,
        error_inputs=lambda: [ErrorInput((np.zeros(2), np.zeros(3)), {}, ShapeMismatch, "do not broadcast")],
        doc="(a - b)**2, broadcasting; either may be a Python number.",
    ),
    OpSpec(
        name="old_sumsq",
        inputs=("x",),
        params={"axes": None},
        forward=lambda x, axes=None: np.sum(np.square(x), axis=axes),
        vjp=_sumsq_vjp,
        explain=lambda x, axes=None: AxisError(f"old_sumsq: axes {axes!r} do not fit {np.ndim(x)} dims"),
        residuals=("x",),
        sample=_reduction_sample,
        reference=lambda x, axes=None: np.sum(x * x, axis=axes),
        error_inputs=lambda: [ErrorInput((np.zeros((2, 3)),), {"axes": 2}, AxisError, "do not fit 2 dims")],
        doc="Sum of squares over `axes`.",
    ),
]


@hookimpl
def tenferro_register_ops(registry):
    for spec in SPECS:
        registry.add(spec)
