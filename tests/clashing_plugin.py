"""A third-party plugin whose op name a built-in family took later: it registered
``softmax`` before tenferro's ``nn`` family added one. tests/test_plugin_namespaces.py
installs it as the distribution ``tenferro-specialx`` (entry point ``specialx``, module
``tenferro_specialx``) and checks that an upgrade of tenferro leaves it working: its
``specialx_only`` by name, its ``softmax`` by the qualified name ``specialx.softmax``.

Its ``softmax`` is base 2, ``2**x / sum(2**x)``, so that its numbers tell it from nn's;
its rules call built-in ops by their short names, as plugins' rules do."""

from typing import Any

import numpy as np

from tenferro.extend import DTypeError, ErrorInput, OpSpec, SampleInput, hookimpl

LN2 = float(np.log(2.0))


def _rows() -> Any:
    from hypothesis.extra import numpy as hnp

    from tenferro.extend import strategies

    shapes = hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)
    return strategies.floats_array(shapes).map(lambda x: SampleInput((x,)))


def _any() -> Any:
    from tenferro.extend import strategies

    return strategies.unary()


def _bools(name: str) -> Any:
    """A bool argument, refused with the name the op is called by (``specialx.softmax``
    once nn holds ``softmax``)."""
    return lambda: [ErrorInput((np.zeros(2, bool),), {}, DTypeError, f"{name}: argument 'x' has dtype bool")]


def _softmax2(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp2(np.subtract(x, np.max(x, axis=axis, keepdims=True)))
    return np.divide(e, np.sum(e, axis=axis, keepdims=True))


def _softmax2_rule(s: Any, g: Any, out: Any, x: Any, axis: int = -1) -> Any:
    """ln 2 · y · (g − Σ g·y), with the session's ops."""
    return s.mul(s.mul(out, s.sub(g, s.reduce_sum(s.mul(g, out), axis, True))), LN2)


SOFTMAX = OpSpec(
    name="softmax",
    inputs=("x",),
    params={"axis": -1},
    forward=_softmax2,
    vjps=(_softmax2_rule,),
    accepts="f",
    residuals=("out",),
    sample=_rows,
    reference=lambda x, axis=-1: np.exp2(x) / np.exp2(x).sum(axis=axis, keepdims=True),
    error_inputs=_bools("specialx.softmax"),
    doc="2**x / sum(2**x) over `axis`: softmax in base 2.",
)

SPECIALX_ONLY = OpSpec(
    name="specialx_only",
    inputs=("x",),
    forward=lambda x: np.add(np.multiply(x, 3.0), 1.0),
    vjps=(lambda s, g, out, x: s.mul(g, 3.0),),
    accepts="f",
    residuals=(),
    sample=_any,
    reference=lambda x: 3.0 * x + 1.0,
    error_inputs=_bools("specialx_only"),
    doc="3x + 1.",
)


@hookimpl
def tenferro_register_ops(registrar: Any) -> None:
    registrar.requires("elementwise", "reduce")
    registrar.add(SOFTMAX)
    registrar.add(SPECIALX_ONLY)
