"""``autograd.misc.fixed_points.fixed_point``: a fixed point ``x = f(a)(x)`` found by
iteration, differentiated by the implicit function theorem (the iteration itself is not
differentiated): the cotangent of ``a`` is ``vjp_a(w)`` where ``w = g + vjp_x(w)``, solved
by the same iteration, at the fixed point. On ``tf.custom_vjp``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro._api import tree_map
from tenferro.core.eager import EagerTensor
from tenferro.transforms import vjp
from tenferro.transforms._custom import custom_vjp

__all__ = ["fixed_point"]

Distance = Callable[[Any, Any], Any]


def _iterate(step: Callable[[Any], Any], x0: Any, distance: Distance, tol: float) -> Any:
    x, previous = step(x0), x0
    while distance(x, previous) > tol:
        x, previous = step(x), x
    return x


def _constant(tree: Any) -> Any:
    return tree_map(lambda leaf: leaf.detach() if type(leaf) is EagerTensor else leaf, tree)


def _fixed_point(f: Callable[[Any], Callable[[Any], Any]], a: Any, x0: Any, distance: Distance, tol: float) -> Any:
    return _iterate(f(a), x0, distance, tol)


def _forward(f: Any, a: Any, x0: Any, distance: Distance, tol: float) -> tuple[Any, Any]:
    x_star = _iterate(f(_constant(a)), _constant(x0), distance, tol)  # nothing of the iteration is recorded
    return x_star, (a, x_star)


def _backward(f: Any, distance: Distance, tol: float, residuals: Any, g: Any) -> tuple[Any, None]:
    a, x_star = residuals
    _, vjp_x = vjp(f(a), x_star)
    w = _iterate(lambda w: tree_map(lambda u, v: u + v, vjp_x(w)[0], g), tree_map(np.zeros_like, g), distance, tol)
    _, vjp_a = vjp(lambda a: f(a)(x_star), a)
    return vjp_a(w)[0], None  # x0 has no influence on the fixed point


fixed_point = custom_vjp(_fixed_point, nondiff_argnums=(0, 3, 4))
fixed_point.defvjp(_forward, _backward)
fixed_point.__doc__ = """``fixed_point(f, a, x0, distance, tol)``: iterate ``x = f(a)(x)`` from ``x0`` until
``distance(x, previous) <= tol``; differentiable in ``a`` by the implicit function theorem."""
