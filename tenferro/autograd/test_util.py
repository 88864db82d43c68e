"""``autograd.test_util``: ``check_grads``, ``check_vjp``, ``check_jvp`` and ``combo_check``,
autograd's finite-difference checks (central differences, step 1e-6, tolerance 1e-6 absolute or
relative), on pytrees of real or complex arrays."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import optree

from tenferro.core.errors import ArgumentError

from .differential_operators import make_jvp, make_vjp, unary_to_nary

__all__ = ["check_grads", "check_jvp", "check_vjp", "combo_check"]

TOL = 1e-6
RTOL = 1e-6
EPS = 1e-6


def _leaves(tree: Any) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in optree.tree_leaves(tree)]


def _map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    return optree.tree_map(lambda *leaves: f(*(np.asarray(leaf) for leaf in leaves)), tree, *rest)


def _randn(tree: Any, rng: np.random.Generator) -> Any:
    def draw(leaf: np.ndarray) -> Any:
        value = rng.standard_normal(leaf.shape)
        if leaf.dtype.kind == "c":
            value = value + 1j * rng.standard_normal(leaf.shape)
        return value.astype(leaf.dtype) if leaf.dtype.kind in "fc" else value

    return _map(draw, tree)


def _covector(tree: Any) -> Any:
    """autograd's ``vspace(x).covector``: the conjugate, since its VJPs of complex values
    take and give conjugated cotangents (the numbers tenferro.autograd's ``make_vjp`` gives)."""
    return _map(np.conj, tree)


def _inner(a: Any, b: Any) -> float:
    """The real inner product of two trees, the one cotangents live in."""
    return float(sum(np.real(np.vdot(x, y)) for x, y in zip(_leaves(a), _leaves(b))))


def _close(a: float, b: float) -> bool:
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def _numerical_jvp(f: Callable[[Any], Any], x: Any) -> Callable[[Any], Any]:
    def jvp(v: Any) -> Any:
        plus = f(_map(lambda a, d: a + d * (EPS / 2), x, v))
        minus = f(_map(lambda a, d: a - d * (EPS / 2), x, v))
        return _map(lambda p, m: (p - m) / EPS, plus, minus)

    return jvp


def _name(f: Any) -> str:
    return getattr(f, "__name__", "[unknown name]")


@unary_to_nary
def check_vjp(f: Callable[[Any], Any], x: Any, seed: int = 0) -> None:
    """⟨vjp(u), v⟩ equals ⟨u, numerical J·v⟩ for random u, v (raises AssertionError if not)."""
    rng = np.random.default_rng(seed)
    vjp, y = make_vjp(f)(x)
    u, v = _randn(y, rng), _randn(x, rng)
    exact, numeric = _inner(v, _covector(vjp(_covector(u)))), _inner(u, _numerical_jvp(f, x)(v))
    if not _close(numeric, exact):
        raise AssertionError(
            f"Derivative (VJP) check of {_name(f)} failed with arg {x}:\nanalytic: {exact}\nnumeric:  {numeric}"
        )


@unary_to_nary
def check_jvp(f: Callable[[Any], Any], x: Any, seed: int = 0) -> None:
    """The JVP along a random v equals the numerical one."""
    rng = np.random.default_rng(seed)
    v = _randn(x, rng)
    exact, numeric = make_jvp(f)(x)(v)[1], _numerical_jvp(f, x)(v)
    w = _randn(numeric, rng)
    if not _close(_inner(exact, w), _inner(numeric, w)):
        raise AssertionError(
            f"Derivative (JVP) check of {_name(f)} failed with arg {x}:\nanalytic: {exact}\nnumeric:  {numeric}"
        )


@unary_to_nary
def check_grads(f: Callable[[Any], Any], x: Any, modes: Any = None, order: int = 2) -> None:
    """autograd's ``check_grads(f, modes=["fwd", "rev"], order=2)(*args)``: the VJP and the
    JVP against finite differences, and (``order`` > 1) those of the derivatives too."""
    modes = ["fwd", "rev"] if modes is None else list(modes)
    if not set(modes) <= {"fwd", "rev"}:
        raise ArgumentError(f"tenferro.autograd.test_util.check_grads: modes are 'fwd' and 'rev', got {modes!r}")
    rng = np.random.default_rng(order)
    if "fwd" in modes:
        check_jvp(f)(x)
        if order > 1:

            def jvp_f(x: Any, v: Any) -> Any:
                return make_jvp(f)(x)(v)[1]

            jvp_f.__name__ = f"jvp_{_name(f)}"
            check_grads(jvp_f, (0, 1), modes, order=order - 1)(x, _randn(x, rng))
    if "rev" in modes:
        check_vjp(f)(x)
        if order > 1:

            def vjp_f(x: Any, v: Any) -> Any:
                return make_vjp(f)(x)[0](v)

            vjp_f.__name__ = f"vjp_{_name(f)}"
            check_grads(vjp_f, (0, 1), modes, order=order - 1)(x, _randn(f(x), rng))


def combo_check(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., None]:
    """autograd's ``combo_check(fun, argnums, modes=..., order=...)(xs, ys, ..., kw=[...])``:
    :func:`check_grads` on every combination of the given positional values and keyword
    values (each argument a list of the values to try)."""

    def check_combinations(*values: Any, **keyword_values: Any) -> None:
        keywords = [[(name, value) for value in options] for name, options in keyword_values.items()]
        for positional in itertools.product(*values):
            for chosen in itertools.product(*keywords):
                check_grads(fun, *args, **kwargs)(*positional, **dict(chosen))

    return check_combinations
