"""The arithmetic, comparison and bitwise operators of ``EagerTensor`` (``x * y``,
``2 ** x``, ``x @ w``, ``x < 0``), each the op of the current session (see ``_dispatch``).

They live here, not in the core, because the core knows no op by name: ``install`` puts
them on the class when ``tenferro`` is imported. In-place forms (``x += 1``) are not
defined, so Python rebinds ``x`` to a new tensor, as in JAX (values are immutable).
"""

from __future__ import annotations

from typing import Any

from ..core.eager import EagerTensor
from ._dispatch import SCALARS, lift

#: Binary operator -> op. The reflected form (``__radd__``) swaps the operands.
BINARY = {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "truediv": "div",
    "floordiv": "floor_divide",
    "mod": "remainder",
    "pow": "pow",
    "matmul": "matmul",
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}
#: Ops whose operands may swap without changing a bit of the result (IEEE + and * commute).
COMMUTATIVE = {"add", "mul", "bitwise_and", "bitwise_or", "bitwise_xor"}
#: Comparison operator -> compare's ``op``; a comparison has no reflected form (Python
#: swaps ``<`` for ``>`` itself).
COMPARISONS = {"lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "eq": "eq", "ne": "ne"}
UNARY = {"neg": "neg", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}


def _operand(self: EagerTensor, other: Any) -> Any:
    """``other`` as an op argument, or NotImplemented for what no array operator takes
    (None, a string), so that Python tries the other operand and then raises TypeError."""
    if type(other) is EagerTensor or type(other) in SCALARS:
        return other
    if other is None or isinstance(other, (str, bytes, dict, set)):
        return NotImplemented
    return lift(self._rt, other, "an operator", "other")


def _forward(op: str, params: tuple[Any, ...]) -> Any:
    if params:  # compare(a, b, "lt"): the op's params after the operands

        def operator(self: EagerTensor, other: Any) -> Any:
            if type(other) is not EagerTensor and type(other) is not float:
                other = _operand(self, other)
                if other is NotImplemented:
                    return other
            rt = self._rt
            session = rt._here.session  # current_session(), inlined on the hot path
            return getattr(rt._implicit if session is None else session, op)(self, other, *params)

        return operator

    def operator(self: EagerTensor, other: Any) -> Any:  # the hot path of x * y: nothing more
        if type(other) is not EagerTensor and type(other) is not float:
            other = _operand(self, other)
            if other is NotImplemented:
                return other
        session = self._rt._here.session  # current_session(), inlined on the hot path
        return getattr(self._rt._implicit if session is None else session, op)(self, other)

    return operator


def _reflected(op: str) -> Any:
    if op in COMMUTATIVE:  # 2.0 * x is x * 2.0 exactly, and the op's inline checks know that order
        return _forward(op, ())

    def operator(self: EagerTensor, other: Any) -> Any:
        if type(other) is not EagerTensor and type(other) is not float:
            other = _operand(self, other)
            if other is NotImplemented:
                return other
        session = self._rt._here.session  # current_session(), inlined on the hot path
        return getattr(self._rt._implicit if session is None else session, op)(other, self)

    return operator


def _unary(op: str) -> Any:
    def operator(self: EagerTensor) -> EagerTensor:
        session = self._rt._here.session  # current_session(), inlined on the hot path
        return getattr(self._rt._implicit if session is None else session, op)(self)

    return operator


def _named(function: Any, name: str, op: str) -> Any:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"The op {op!r} of the current session (see tenferro.numpy)."
    return function


def install(cls: type[EagerTensor]) -> None:
    """Put the operators on ``cls``. ``==`` is elementwise, as in NumPy and PyTorch, and
    hashing stays by identity, so tensors still key dicts (PyTorch's choice too)."""
    for name, op in BINARY.items():
        setattr(cls, f"__{name}__", _named(_forward(op, ()), f"__{name}__", op))
        setattr(cls, f"__r{name}__", _named(_reflected(op), f"__r{name}__", op))
    for name, how in COMPARISONS.items():
        setattr(cls, f"__{name}__", _named(_forward("compare", (how,)), f"__{name}__", "compare"))
    for name, op in UNARY.items():
        setattr(cls, f"__{name}__", _named(_unary(op), f"__{name}__", op))
    cls.__hash__ = object.__hash__  # type: ignore[method-assign]
