"""``autograd.extend`` on tenferro: ``primitive``, ``defvjp``, ``defjvp``, ``defvjp_argnum``,
``defjvp_argnum`` and ``def_linear``, with autograd's signatures.

A primitive is an op of its own, never registered (an :class:`~tenferro.core.op.Op` of an
:class:`~tenferro.core.spec.OpSpec`): called with a tracked tenferro array among its
arguments, its function runs on the arguments' values (NumPy arrays, as autograd unboxes
them) and its result is recorded as the op's, whose rules are the makers given:
``defvjp(f, maker)``'s ``maker(ans, *args, **kwargs)`` returns ``g -> cotangent``, called
with ``ans`` and the arguments as recorded tensors, so a maker written with
``tenferro.autograd.numpy`` differentiates again. Forward mode uses the JVP makers
(``defjvp``); a primitive without them refuses it, as autograd does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import optree

from tenferro.core.eager import EagerTensor, held, vertex
from tenferro.core.errors import ArgumentError, NotDifferentiable, RuleError
from tenferro.core.op import Op
from tenferro.core.recording import paused
from tenferro.core.spec import REQUIRED, OpSpec

__all__ = ["def_linear", "defjvp", "defjvp_argnum", "defvjp", "defvjp_argnum", "primitive"]

PLUGIN = "tenferro.autograd.extend"


class _Call:
    """What one call of a primitive leaves for its rules (the node's ``call`` param): all
    its arguments, its keyword arguments, the positions of the tracked ones (the op's
    inputs), the function, and the result's value (what the op's kernel returns first)."""

    __slots__ = ("args", "kwargs", "tracked", "fun", "value")

    def __init__(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], tracked: list[int], fun: Any, value: np.ndarray | None
    ):
        self.args, self.kwargs, self.tracked, self.fun, self.value = args, kwargs, tracked, fun, value

    def __repr__(self) -> str:  # how a trace listing shows the param
        return "primitive"

    def recorded(self, inputs: tuple[Any, ...]) -> list[Any]:
        """The arguments with the tracked ones as the node recorded them."""
        args = list(self.args)
        for position, tensor in zip(self.tracked, inputs):
            args[position] = tensor
        return args

    def computed(self, items: list[Any]) -> np.ndarray:
        """The function on the arguments' values, the tracked ones' being ``items``."""
        args = [held(a) if type(a) is EagerTensor else a for a in self.args]
        for position, value in zip(self.tracked, items):
            args[position] = value
        ans = self.fun(*args, **{k: held(v) if type(v) is EagerTensor else v for k, v in self.kwargs.items()})
        return np.asarray(held(ans) if type(ans) is EagerTensor else ans)


def _kernel(items: list[Any], call: _Call) -> np.ndarray:
    """The op's kernel: the value the primitive's function computed when it was called, or,
    where the op runs again without that call (a ``tf.jit`` plan's replay), the function on
    the items' values (as any op's kernel, so a trace of it replays)."""
    value, call.value = call.value, None
    return value if value is not None else call.computed(items)


class Primitive:
    """A function whose derivatives are the makers given to :func:`defvjp` and
    :func:`defjvp` (see the module doc). Called on plain values it is the function; on
    tenferro constants, the function's result as a constant."""

    def __init__(self, fun: Callable[..., Any]):
        if not callable(fun):
            raise ArgumentError(f"tenferro.autograd.extend.primitive: fun must be callable, got {type(fun).__name__}")
        self.fun = fun
        self.name = getattr(fun, "__name__", type(fun).__name__)
        self.__name__, self.__doc__ = self.name, getattr(fun, "__doc__", None)
        self.vjps: dict[int, Callable[..., Any]] = {}
        self.jvps: dict[int, Callable[..., Any]] = {}
        self.vjp_argnum: Callable[..., Any] | None = None
        self.jvp_argnum: Callable[..., Any] | None = None
        self.op = Op(
            OpSpec(
                name=self.name,
                inputs=("args",),
                forward=_kernel,
                params={"call": REQUIRED},
                accepts="fc",
                residuals=("args", "out"),  # the makers get the arguments and the result
                variadic=True,
                vjp=self._vjp,
                jvp=self._jvp,
                plugin=PLUGIN,
                doc=f"autograd primitive {self.name}.",
            )
        )

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tracked = [i for i, arg in enumerate(args) if _tracks(arg)]
        for where, value in [*((f"argument {i}", a) for i, a in enumerate(args) if i not in tracked), *kwargs.items()]:
            if any(_tracks(leaf) for leaf in optree.tree_leaves(value)):
                raise ArgumentError(
                    f"primitive {self.name}: {where} holds a tracked tenferro array inside a container or as a "
                    f"keyword; a primitive differentiates its positional array arguments only: pass it as one"
                )
        values = [held(a) if type(a) is EagerTensor else a for a in args]
        kwvalues = {k: held(v) if type(v) is EagerTensor else v for k, v in kwargs.items()}
        ans = self.fun(*values, **kwvalues)
        if type(ans) is EagerTensor and vertex(ans) is None:  # computed with tenferro.autograd.numpy
            ans = held(ans)
        tensors = [a for a in args if type(a) is EagerTensor]
        if not tensors:  # plain values in, plain values out, as autograd's
            return ans
        numeric = isinstance(ans, (np.ndarray, np.generic, int, float, complex))
        if not numeric or np.asarray(ans).dtype.kind not in "biufc":
            raise ArgumentError(
                f"primitive {self.name}: its function returned {type(ans).__name__}; a primitive returns one array "
                f"(for several results, use tf.custom_vjp)"
            )
        rt = tensors[0].runtime
        if not tracked:  # tenferro constants in: a constant out, as tenferro.numpy's functions give
            return rt.constant_from(ans)
        call = _Call(args, kwargs, tracked, self.fun, np.asarray(ans))
        return self.op(rt.current_session(), [args[i] for i in tracked], call)

    # -- the op's rules ----------------------------------------------------------------------
    def _maker(self, makers: dict[int, Callable[..., Any]], by_argnum: Any, argnum: int, kind: str) -> Any:
        if argnum in makers:
            return makers[argnum]
        if by_argnum is not None:
            return by_argnum
        raise NotDifferentiable(
            f"primitive {self.name}: no {kind} is defined with respect to argument {argnum}; give one with "
            f"def{kind.lower()}({self.name}, ...)",
            op=self.name,
            plugin=PLUGIN,
        )

    def _vjp(self, s: Any, g: Any, inputs: tuple[Any, ...], out: Any, call: _Call) -> tuple[Any, ...]:
        """One cotangent per tracked argument, from its maker."""
        args = call.recorded(inputs)
        cotangents = []
        for argnum in call.tracked:
            maker = self._maker(self.vjps, self.vjp_argnum, argnum, "VJP")
            if argnum in self.vjps:
                ct = maker(out, *args, **call.kwargs)(g)
            else:
                ct = maker(argnum, out, args, call.kwargs)(g)
            cotangents.append(self._tensor(ct, argnum, "VJP", s))
        return tuple(cotangents)

    def _jvp(self, s: Any, tangents: list[Any], inputs: tuple[Any, ...], out: Any, call: _Call) -> Any:
        """The sum of each tracked argument's JVP maker applied to its tangent."""
        args = call.recorded(inputs)
        total = None
        for argnum, tangent in zip(call.tracked, tangents):
            if tangent is None:
                continue
            maker = self._maker(self.jvps, self.jvp_argnum, argnum, "JVP")
            if argnum in self.jvps:
                term = maker(tangent, out, *args, **call.kwargs)
            else:
                term = maker(argnum, tangent, out, args, call.kwargs)
            term = self._tensor(term, argnum, "JVP", s)
            total = term if total is None else total + term
        return total

    def _tensor(self, value: Any, argnum: int, kind: str, s: Any) -> Any:
        if value is None or type(value) is EagerTensor:
            return value
        raise RuleError(
            f"the {kind} of primitive {self.name} for argument {argnum} returned a {type(value).__name__}; compute "
            f"it from g with tenferro.autograd.numpy functions (a NumPy value cuts the derivative off)",
            op=self.name,
            plugin=PLUGIN,
            rule=kind.lower(),
        )


def _tracks(value: Any) -> bool:
    return type(value) is EagerTensor and vertex(value) is not None and value.runtime not in paused()


def primitive(fun: Callable[..., Any]) -> Primitive:
    """``fun`` as an op whose derivatives :func:`defvjp` and :func:`defjvp` give."""
    return Primitive(fun)


def _primitive(fun: Any, who: str) -> Primitive:
    if not isinstance(fun, Primitive):
        raise ArgumentError(f"tenferro.autograd.extend.{who}: {fun!r} is not a primitive; wrap it with primitive(fun)")
    return fun


def defvjp(fun: Primitive, *makers: Callable[..., Any] | None, argnums: Any = None) -> None:
    """The VJP makers of ``fun``'s arguments ``argnums`` (default 0, 1, ...): each
    ``maker(ans, *args, **kwargs)`` returns ``g -> the cotangent of that argument``."""
    fun = _primitive(fun, "defvjp")
    for argnum, maker in zip(argnums if argnums is not None else range(len(makers)), makers):
        if maker is not None:
            fun.vjps[argnum] = maker


def defjvp(fun: Primitive, *makers: Callable[..., Any] | None, argnums: Any = None) -> None:
    """The JVP makers of ``fun``'s arguments: each ``maker(g, ans, *args, **kwargs)``
    returns that argument's term of the result's tangent, ``g`` its tangent."""
    fun = _primitive(fun, "defjvp")
    for argnum, maker in zip(argnums if argnums is not None else range(len(makers)), makers):
        if maker is not None:
            fun.jvps[argnum] = maker


def defvjp_argnum(fun: Primitive, maker: Callable[..., Any]) -> None:
    """One VJP maker for every argument: ``maker(argnum, ans, args, kwargs)`` returns ``g -> cotangent``."""
    _primitive(fun, "defvjp_argnum").vjp_argnum = maker


def defjvp_argnum(fun: Primitive, maker: Callable[..., Any]) -> None:
    """One JVP maker for every argument: ``maker(argnum, g, ans, args, kwargs)``."""
    _primitive(fun, "defjvp_argnum").jvp_argnum = maker


def def_linear(fun: Primitive) -> None:
    """``fun`` is linear in each argument: its JVP is ``fun`` of the tangent in that
    argument's place (as autograd's, a forward-mode rule only)."""

    def jvp(argnum: int, g: Any, ans: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return fun(*args[:argnum], g, *args[argnum + 1 :], **kwargs)

    defjvp_argnum(fun, jvp)
