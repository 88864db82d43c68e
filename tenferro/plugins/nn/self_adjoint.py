"""Forward mode for ops whose Jacobian is symmetric (relu, gelu, silu, softplus: a real
diagonal; softmax: diag(y) - y·yᵀ per slice): the JVP is the VJP rule itself, applied to
the tangent in place of the cotangent, so each op states its derivative once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tenferro.extend import InputRule


def self_adjoint(rule: InputRule) -> Any:
    """The JVP of a one-input op whose per-input VJP ``rule(s, g, out, x, **params)`` is a
    symmetric linear map of g."""

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any, **params: Any) -> Any:
        t = tangents[0]
        return None if t is None else rule(s, t, out, *inputs, **params)

    return jvp
