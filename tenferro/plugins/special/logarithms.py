"""Products with a logarithm that are 0 where the factor is 0: xlogy (the op
``special_xlogy``), xlog1py and entr, on scipy's kernels.

Where the factor x is 0 the value is 0 whatever the logarithm's argument, so x·log y has no
derivative in x there when y <= 0 (for xlog1py, y <= -1); PyTorch's convention, declared as
kinks, gives 0 for x there. For y the rules give 0 at x == 0, y == 0 (y == -1), where x/y
would be 0/0, so a log density such as gamma's at x = 0, a = 1 has its one-sided gradient.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special

from tenferro.extend import Kink

from .rules import partials, times
from .specs import domain, pairs, reference, special, weak_scalars


def _is_tensor(v: Any) -> bool:
    return hasattr(v, "shape")


def _masked_log(s: Any, x: Any, y: Any, log: str, edge: float) -> Any:
    """∂/∂x of x·log(y) (``log`` = "log") or x·log1p(y): the logarithm, and 0 where x == 0
    and y <= ``edge`` (PyTorch's convention); y may be a Python number."""
    if not _is_tensor(y):
        with np.errstate(all="ignore"):
            value = float(getattr(np, log)(y))
        return s.where_select(s.compare(x, 0, "eq"), 0.0, value) if y <= edge else value
    value = getattr(s, log)(y)
    if not _is_tensor(x):
        return value if x != 0 else s.where_select(s.compare(y, edge, "le"), 0.0, value)
    return s.where_select(s.logical_and(s.compare(x, 0, "eq"), s.compare(y, edge, "le")), 0.0, value)


def _masked_ratio(s: Any, x: Any, y: Any, shift: float) -> Any:
    """∂/∂y of x·log(y + shift) (shift 0: xlogy; 1: xlog1py): x/(y + shift), and 0 at
    x == 0, y == -shift, where the value is 0 whatever y and x/y would be 0/0 (the nan
    gradient of gamma.logpdf at x = 0 with a = 1). Only that point is replaced (y by
    1 - shift there), so the derivative of this rule in x stays 1/(y + shift) elsewhere at
    x == 0 and no nan comes from the masked-off quotient."""
    if not _is_tensor(x):  # then y is a tensor: an op has one
        return 0.0 if x == 0 else s.div(x, s.add(y, shift) if shift else y)
    if not _is_tensor(y) and y != -shift:
        return s.div(x, y + shift)
    at = s.where_select(s.logical_and(s.compare(x, 0, "eq"), s.compare(y, -shift, "eq")), 1.0 - shift, y)
    return s.div(x, s.add(at, shift) if shift else at)


_XLOGY = partials(
    lambda s, out, x, y: _masked_log(s, x, y, "log", 0.0), lambda s, out, x, y: _masked_ratio(s, x, y, 0.0)
)
_XLOG1PY = partials(
    lambda s, out, x, y: _masked_log(s, x, y, "log1p", -1.0), lambda s, out, x, y: _masked_ratio(s, x, y, 1.0)
)

SPECS = [
    special(
        "special_xlogy",
        ("x", "y"),
        weak_scalars(scipy.special.xlogy),
        _XLOGY,
        reference(lambda x, y: 0.0 if x == 0 else x * math.log(y)),
        "scipy's xlogy, x·log(y) and 0 where x == 0, broadcasting (named special_xlogy: the example plugin "
        "tenferro-mathx has an op xlogy); ∂/∂x = log(y), ∂/∂y = x/y. Conventions: ∂/∂x = 0 where x == 0 and "
        "y <= 0 (PyTorch's), ∂/∂y = 0 at x == 0, y == 0 (the value is 0 there whatever y).",
        pairs((-3.0, 3.0), (0.25, 4.0)),
        ("x", "y"),
        kinks=(Kink((np.zeros(2), np.array([0.0, -1.0])), (np.zeros(2), np.array([0.0, -0.0]))),),
    ),
    special(
        "xlog1py",
        ("x", "y"),
        weak_scalars(scipy.special.xlog1py),
        _XLOG1PY,
        reference(lambda x, y: 0.0 if x == 0 else x * math.log1p(y)),
        "x·log1p(y), 0 where x == 0 (scipy's xlog1py), broadcasting; ∂/∂x = log1p(y), ∂/∂y = x/(1 + y). "
        "Conventions: ∂/∂x = 0 where x == 0 and y <= -1 (PyTorch's), ∂/∂y = 0 at x == 0, y == -1.",
        pairs((-3.0, 3.0), (-0.75, 3.0)),
        ("x", "y"),
        kinks=(Kink((np.zeros(2), np.array([-1.0, -2.0])), (np.zeros(2), np.array([0.0, -0.0]))),),
    ),
    special(
        "entr",
        ("x",),
        scipy.special.entr,
        times(lambda s, out, x: s.neg(s.add(s.log(x), 1.0))),
        reference(lambda x: -x * math.log(x)),
        "-x·log(x) for x > 0, 0 at 0, -inf for x < 0 (scipy's entr); its derivative is -(log(x) + 1), +inf at 0.",
        domain(0.05, 4.0),
        ("x",),
        kinks=(Kink((np.array([0.0]),), (np.array([np.inf]),)),),
    ),
]
