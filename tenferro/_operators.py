"""The arithmetic, comparison and bitwise operators of ``EagerTensor`` (``x * y``,
``2 ** x``, ``x @ w``, ``x < 0``), each the op of the current session (see
``tenferro.numpy``'s ``_dispatch``).

They are the front end's, defined here on :class:`Operators`, a base class of
``EagerTensor``, so that editors, ``inspect`` and ``pydoc`` see them on the class; the
front end's helpers they need off the hot path (lifting a NumPy operand, retrying a bool
one) are reached through ``tenferro.numpy``, bound by :func:`bind` when it is imported (it
imports the core, which imports this module, so this module cannot import it). In-place forms (``x += 1``) are not
defined, so Python rebinds ``x`` to a new tensor, as in JAX (values are immutable).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .core.errors import TenferroError

if TYPE_CHECKING:
    from .core.eager import EagerTensor
else:
    EagerTensor = None  # the class these operators are a base of: eager.py sets it once it exists

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
#: How errors name each unary operator.
UNARY_LABELS = {"neg": "operator -", "pos": "operator +", "abs": "abs()", "invert": "operator ~"}
#: How errors name each binary operator: ``operator *``.
SYMBOLS = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "truediv": "/",
    "floordiv": "//",
    "mod": "%",
    "pow": "**",
    "matmul": "@",
    "and": "&",
    "or": "|",
    "xor": "^",
    "lshift": "<<",
    "rshift": ">>",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
}
#: The standard's operand names (``__mul__(self, other, /)``) for the op's a and b.
FORWARD = {"a": "self", "b": "other"}
REFLECTED = {"a": "other", "b": "self"}


#: Python numbers, op arguments as they are (``tenferro.numpy``'s ``SCALARS``).
SCALARS = (bool, int, float, complex)
_BOOL = np.dtype(np.bool_)
#: ``tenferro.numpy``, set by :func:`bind`.
_tnp: Any = None


def bind(namespace: Any) -> None:
    """Bind the front end these operators call off the hot path: ``namespace`` is
    ``tenferro.numpy`` (its ``_dispatch``'s ``lift`` and ``retried``)."""
    global _tnp
    _tnp = namespace


def _operand(self: EagerTensor, other: Any, label: str) -> Any:
    """``other`` as an op argument, or NotImplemented for what no array operator takes
    (None, a string), so that Python tries the other operand and then raises TypeError."""
    if type(other) is EagerTensor or type(other) in SCALARS:
        return other
    if other is None or isinstance(other, (str, bytes, dict, set)):
        return NotImplemented
    lifted = _tnp._dispatch.lift(self._rt, other, label, "other")
    if type(lifted) is EagerTensor and lifted.dtype == _BOOL and self.dtype != _BOOL:
        # A NumPy bool array beside numbers (``preds * targets``): cast to self's dtype as NumPy
        # promotes it, as the op's DTypeError would have it cast and retried, without raising it
        # first (~10 µs); by NumPy, as the constant it is (an astype op would cost 3 µs more).
        cast = lifted._value.astype(self.dtype)
        cast.setflags(write=False)
        return EagerTensor(cast, self._rt)
    return lifted


def _forward(op: str, params: tuple[Any, ...], label: str) -> Any:
    """``self <op> other``; an op error (a bool operand: cast and retried, see
    ``_dispatch.retried``) names ``label`` (``operator *``) and self/other."""
    if params:  # compare(a, b, "lt"): the op's params after the operands

        def operator(self: EagerTensor, other: Any) -> Any:
            if type(other) is not EagerTensor and type(other) is not float and type(other) is not int:
                other = _operand(self, other, label)
                if other is NotImplemented:
                    return other
            rt = self._rt
            session = rt._here.session  # current_session(), inlined on the hot path
            if session is None:
                session = rt._implicit
            try:
                return getattr(session, op)(self, other, *params)
            except TenferroError as exc:
                return _tnp._dispatch.retried(exc, session, op, self, other, params, label, FORWARD)

        return operator

    def operator(self: EagerTensor, other: Any) -> Any:  # the hot path of x * y: nothing more
        if type(other) is not EagerTensor and type(other) is not float and type(other) is not int:
            other = _operand(self, other, label)
            if other is NotImplemented:
                return other
        session = self._rt._here.session  # current_session(), inlined on the hot path
        if session is None:
            session = self._rt._implicit
        try:  # free in Python 3.11 unless it raises
            return getattr(session, op)(self, other)
        except TenferroError as exc:
            return _tnp._dispatch.retried(exc, session, op, self, other, (), label, FORWARD)

    return operator


def _reflected(op: str, label: str) -> Any:
    """``other <op> self`` (``2 - x``). The body repeats ``_forward``'s with the operands
    swapped: a swap decided per call would cost the hot path of ``x * y`` a branch."""
    if op in COMMUTATIVE:  # 2.0 * x is x * 2.0 exactly, and the op's inline checks know that order
        return _forward(op, (), label)

    def operator(self: EagerTensor, other: Any) -> Any:
        if type(other) is not EagerTensor and type(other) is not float and type(other) is not int:
            other = _operand(self, other, label)
            if other is NotImplemented:
                return other
        session = self._rt._here.session  # current_session(), inlined on the hot path
        if session is None:
            session = self._rt._implicit
        try:
            return getattr(session, op)(other, self)
        except TenferroError as exc:
            return _tnp._dispatch.retried(exc, session, op, other, self, (), label, REFLECTED)

    return operator


def _unary(op: str, label: str) -> Any:
    def operator(self: EagerTensor) -> EagerTensor:
        session = self._rt._here.session  # current_session(), inlined on the hot path
        try:  # free in Python 3.11 unless it raises
            return getattr(self._rt._implicit if session is None else session, op)(self)
        except TenferroError as exc:
            raise _tnp._dispatch.renamed(exc, label) from None

    return operator


def _named(function: Any, name: str, op: str) -> Any:
    function.__name__ = name
    function.__qualname__ = f"EagerTensor.{name}"
    function.__doc__ = f"The op {op!r} of the current session (see tenferro.numpy)."
    return function


def _binary(name: str) -> tuple[Any, Any]:
    """``__<name>__`` and ``__r<name>__``: the op ``BINARY[name]``, forward and reflected."""
    op, label = BINARY[name], f"operator {SYMBOLS[name]}"
    return _named(_forward(op, (), label), f"__{name}__", op), _named(_reflected(op, label), f"__r{name}__", op)


def _comparison(name: str) -> Any:
    return _named(_forward("compare", (COMPARISONS[name],), f"operator {SYMBOLS[name]}"), f"__{name}__", "compare")


def _unary_operator(name: str) -> Any:
    return _named(_unary(UNARY[name], UNARY_LABELS[name]), f"__{name}__", UNARY[name])


class Operators:
    """Python's operators on EagerTensors. ``==`` is elementwise, as in NumPy and PyTorch,
    and hashing stays by identity, so tensors still key dicts (PyTorch's choice too)."""

    __slots__ = ()

    __add__, __radd__ = _binary("add")
    __sub__, __rsub__ = _binary("sub")
    __mul__, __rmul__ = _binary("mul")
    __truediv__, __rtruediv__ = _binary("truediv")
    __floordiv__, __rfloordiv__ = _binary("floordiv")
    __mod__, __rmod__ = _binary("mod")
    __pow__, __rpow__ = _binary("pow")
    __matmul__, __rmatmul__ = _binary("matmul")
    __and__, __rand__ = _binary("and")
    __or__, __ror__ = _binary("or")
    __xor__, __rxor__ = _binary("xor")
    __lshift__, __rlshift__ = _binary("lshift")
    __rshift__, __rrshift__ = _binary("rshift")
    __lt__ = _comparison("lt")
    __le__ = _comparison("le")
    __gt__ = _comparison("gt")
    __ge__ = _comparison("ge")
    __eq__ = _comparison("eq")
    __ne__ = _comparison("ne")
    __hash__ = object.__hash__
    __neg__ = _unary_operator("neg")
    __pos__ = _unary_operator("pos")
    __abs__ = _unary_operator("abs")
    __invert__ = _unary_operator("invert")
