"""Calling an op: the one function every op call goes through (:func:`method`, one per op,
installed on the session classes), from its arguments to its recorded result."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from . import engine as engines
from .call_errors import (
    SCALAR_KINDS,
    bad_result,
    broadcast_shape,
    dtype_error,
    explain,
    fields_of,
    foreign,
    scalar_kind,
    unkept,
    unrecordable,
    wrong_shape,
)
from .eager import EagerTensor
from .engine import Engine
from .errors import ArgumentError, ContextMismatch, SessionClosed, TenferroError
from .params import frozen, frozen_params
from .protocols import Runtime, Session
from .recording import paused
from .spec import REQUIRED, OpSpec
from .tensor import SUPPORTED_KINDS, TRACKED, Hollow, dtype_name, freeze, seal
from .trace import Node, call_node, result_node
from .tracing import TRACING

#: The dtypes a recorded (differentiable) result may have.
F64, F32 = np.dtype(np.float64), np.dtype(np.float32)
#: The NumPy scalars a full reduction's kernel returns, made 0-d arrays inline.
_NUMPY_SCALARS = frozenset({np.float64, np.float32, np.complex128, np.complex64, np.int64, np.bool_})


def _recorded(drops: tuple[int, ...], args: tuple[Any, ...], variadic: bool = False) -> tuple[Any, ...]:
    """``args`` as a node records them: the tensors at ``drops`` (whose values the VJP does
    not read; for a variadic op, every item) as hollow copies. Variables are kept whole
    (the user holds them anyway)."""
    if not variadic and len(drops) == len(args) == 2:  # a binary op that reads neither (add, sub)
        a, b = args
        hollow_a = type(a) is EagerTensor and not a._leaf
        hollow_b = type(b) is EagerTensor and not b._leaf
        if not (hollow_a or hollow_b):
            return args
        return (a.hollow() if hollow_a else a, b.hollow() if hollow_b else b)
    if len(drops) == 1 and not variadic:  # the common case (a reduction's input): no list
        index = drops[0]
        arg = args[index]
        if type(arg) is not EagerTensor or arg._leaf:
            return args
        return (*args[:index], arg.hollow(), *args[index + 1 :])
    kept = None  # a copy of args only once a value is dropped (add(x, 1.0) of a variable drops none)
    for index in range(len(args)) if variadic else drops:
        arg = args[index]
        if type(arg) is EagerTensor and not arg._leaf:
            if kept is None:
                kept = list(args)
            kept[index] = arg.hollow()
    return args if kept is None else tuple(kept)


def _items(spec: OpSpec, sequence: Any) -> tuple[Any, ...]:
    """A variadic op's one argument: a non-empty list or tuple of tensors (or scalars)."""
    if not isinstance(sequence, (list, tuple)):
        raise ArgumentError(
            f"{spec.name}: argument {spec.inputs[0]!r} must be a list or tuple of tensors, "
            f"got {type(sequence).__name__}; call it as {spec.name}([a, b, ...])",
            **fields_of(spec, 0),
        )
    if not sequence:
        raise ArgumentError(
            f"{spec.name}: argument {spec.inputs[0]!r} is empty; give at least one tensor", **fields_of(spec, 0)
        )
    return tuple(sequence)


def _as_result(spec: OpSpec, out: Any, engine: Engine | None = None) -> Any:
    """A kernel's non-ndarray result (e.g. the NumPy scalar of a full reduction) as a
    frozen numeric array, or as the value of the session's ``engine`` (which adopts its own
    arrays), or the KernelError that blames the kernel (None and text included). The array
    of an engine other than the session's is refused, never gathered."""
    if engine is not None:
        adopted = engine.adopt(out)
        if adopted is not None:
            if adopted.dtype.kind not in SUPPORTED_KINDS:
                raise bad_result(spec, adopted, "a kernel must return a numeric array")
            return adopted
    if isinstance(out, engines.ENGINE_ARRAYS):
        raise foreign(spec.name, f"its kernel returned a {type(out).__module__}.{type(out).__name__}", engine)
    try:
        array = np.asarray(out)
    except Exception:
        array = None
    if array is None or array.dtype.kind not in SUPPORTED_KINDS:
        raise bad_result(spec, out, "a kernel must return a numeric array")
    return freeze(array)


def _results(
    op: Any,
    out: Any,
    rt: Runtime,
    args: tuple[Any, ...],
    parents: tuple[Any, ...],
    params: Any,
    tracked: bool,
    engine: Engine | None = None,
) -> tuple[EagerTensor, ...]:
    """The tensors of a ``multiple_results`` op: for ``tracked`` arguments, a call node and
    one result node per float result (see :func:`~tenferro.core.trace.call_node`); under
    ``no_grad``, unrecorded results (see EagerTensor)."""
    spec = op.spec
    if not isinstance(out, (tuple, list)):
        raise bad_result(spec, out, "an op with multiple_results must return a tuple or list of arrays")
    arrays = []
    for item in out:
        array = item if type(item) is np.ndarray else _as_result(spec, item, engine)
        if array.dtype.kind not in SUPPORTED_KINDS:
            raise bad_result(spec, array, "a kernel must return bool, integer, float or complex arrays")
        arrays.append(seal(array))
    if rt in paused():
        if tracked and TRACING.get() is not None:  # results a trace would keep as constants
            TRACING.get().block(f"{spec.name} under no_grad computes from a traced value")
        return tuple(EagerTensor(array, rt, None, False, True) for array in arrays)
    if not tracked:
        return tuple(EagerTensor(array, rt) for array in arrays)
    integer_results = spec.integer_results or not any(spec.differentiable)
    recorded: list[Any] = []  # per result: its array, to record a node, or its constant tensor
    for array in arrays:
        if array.dtype in TRACKED:
            recorded.append(array)
        elif array.dtype.kind == "f" or not integer_results:
            raise unrecordable(spec, array)
        else:
            recorded.append(EagerTensor(array, rt))
            trace = TRACING.get()
            if trace is not None:  # (a call's integer results are not replayed: the function runs per example)
                trace.block(f"{spec.name} gives {dtype_name(array.dtype)} results beside others")
    kept = _recorded(spec.drops, args, spec.variadic) if spec.drops and TRACING.get() is None else args
    call = call_node(op, kept, parents, params, tuple(recorded))
    return tuple(
        r if type(r) is EagerTensor else EagerTensor(r, rt, result_node(call, index))
        for index, r in enumerate(recorded)
    )


def _bind(spec: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Split a call into tensor arguments and params, applying defaults; ArgumentError
    for a wrong count or an unknown/duplicate name."""
    names = spec.inputs + tuple(spec.params)
    if len(args) > len(names):
        raise ArgumentError(
            f"{spec.name} takes at most {len(names)} arguments ({spec.signature}), got {len(args)}", **fields_of(spec)
        )
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise ArgumentError(
                f"{spec.name} has no argument {key!r}; its signature is {spec.signature}",
                **fields_of(spec),
                argument=key,
            )
        if key in bound:
            raise ArgumentError(f"{spec.name} got argument {key!r} twice", **fields_of(spec), argument=key)
        bound[key] = value
    missing = [n for n in spec.inputs if n not in bound]
    missing += [n for n, d in spec.params.items() if d is REQUIRED and n not in bound]
    if missing:
        raise ArgumentError(
            f"{spec.name} is missing argument {', '.join(map(repr, missing))}; its signature is {spec.signature}",
            **fields_of(spec),
            argument=missing[0],
        )
    tensors = tuple(bound[n] for n in spec.inputs)
    params = {n: frozen(bound[n]) if n in bound else d for n, d in spec.params.items()}
    return tensors, params


def method(op: Any) -> Any:
    """The session method of one op (``op``, an :class:`~tenferro.core.op.Op`): bind the
    arguments, check them, run the kernel on the session's engine, record a node.

    This is the per-op hot path, one function per op with the spec's fields bound in its
    closure (about 1.6 µs on top of the kernel for a small tensor when recorded; see
    bench/README.md); keep it free of work the error contract does not need. The calls a
    program is made of (one or two inputs, tensors or a float, in order, default params)
    are checked inline; any other call is bound by :func:`_bind` and checked by
    ``classify``, which also raises every argument error.

    With ``op.checks_shapes``, an elementwise op's result shape is checked against its
    arguments' broadcast shape.

    What the session says is read at each call: on an engine that is not native
    (``session._engine``, see ``engine.py``) there are no inline checks (``session._fast``
    is false): ``classify`` gives each NumPy value to ``engine.enter`` (the tensor keeps
    what it returns when its runtime's default engine is this one or none), the kernel is
    the engine's (``engine.kernel_of(op)``), and results are adopted by the engine. An
    implicit session, which lends nothing, runs the kernel under its ``_kernel_context``:
    the engine's context variable and its value (set around the kernel alone, a few hundred
    ns cheaper than entering a context), or its context.
    """
    spec = op.spec
    name, accepts, drops = spec.name, spec.accepts, spec.drops
    forward = spec.forward
    integer_results = spec.integer_results or not any(spec.differentiable)
    arity = len(spec.inputs)
    names = tuple(spec.params)
    defaults = None if any(d is REQUIRED for d in spec.params.values()) else dict(spec.params)
    first_default = next(iter(spec.params.values()), REQUIRED)
    optional = {n: d for n, d in spec.params.items() if d is not REQUIRED}
    # The fewest params a positional call may give: every later one has a default.
    least = max((i + 1 for i, d in enumerate(spec.params.values()) if d is REQUIRED), default=0)
    variadic, multiple = spec.variadic, spec.multiple_results
    checked = spec.elementwise and op.checks_shapes
    special = multiple or checked  # a result that needs more than a read-only flag
    fast = 0 if variadic else arity  # the arity the inline checks below handle (1 or 2)
    kinds_a, kinds_b = (*accepts, "", "")[:2]
    # The Python numbers each operand of a binary op may be, checked inline (2.0 * x, 1 - x, x ** 2).
    numbers_a, numbers_b = (
        frozenset(t for t, k in ((float, "f"), (int, "i")) if k in kinds) for kinds in (kinds_a, kinds_b)
    )

    def bind(self: Session, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], Any]:
        given = len(args) - arity
        if given == 1 and not kwargs and defaults is not None and args[arity] is first_default:
            return args[:arity], defaults  # ``s.reduce_sum(x, None)``: the default, given
        if not kwargs and least <= given <= len(names) and given:
            # Leading params given positionally (``s.reduce_sum(x, None)``), the rest default.
            # Params from a sweep's rules (shapes, axes) are tuples the rule made: only a
            # caller's own values need freezing.
            params = dict(zip(names, args[arity:])) if self._in_sweep else frozen_params(names, args[arity:])
            return args[:arity], params if given == len(names) else {**optional, **params}
        return _bind(spec, args, kwargs)  # also raises when a required param is missing

    def classify(
        self: Session, args: tuple[Any, ...]
    ) -> tuple[tuple[Any, ...], tuple[Any, ...], bool, tuple[Any, ...]]:
        """Each argument's value and vertex (see eager.vertex), whether any is tracked, and
        the arguments as the node records them (a NumPy scalar as a 0-d constant, so that
        rules meet a tensor, as they would for a 0-d array); the error that says what is
        wrong with an argument."""
        if not self._open:
            raise SessionClosed(
                f"{name}: this session has ended; call ops inside the session's callback or with-block",
                **fields_of(spec),
            )
        rt, engine = self._rt, self._engine
        enter = None if engine is None else engine.enter
        values = []
        parents = []
        constants: dict[int, EagerTensor] = {}
        tracked = has_tensor = False
        for index, arg in enumerate(args):
            if type(arg) is EagerTensor:
                if arg._rt is not rt:
                    raise ContextMismatch(
                        f"{name}: argument {spec.input_name(index)!r} belongs to {arg._rt!r}, but this op runs "
                        f"on {rt!r}; tensors of two runtimes cannot be mixed: {rt.mixed_with(arg._rt)}",
                        **fields_of(spec, index),
                    )
                value = arg._value
                if type(value) is not np.ndarray:
                    if isinstance(value, Hollow):
                        raise unkept(spec, index, arg)
                    if enter is None:  # another engine's value on NumPy: refused, not gathered
                        shown = f"{type(value).__module__}.{type(value).__name__}"
                        raise foreign(name, f"argument {spec.input_name(index)!r} holds a {shown}", engine)
                elif enter is not None:  # the value moves to the engine
                    value = enter(value)
                    # Once, where no other engine is the runtime's default (the tensor keeps it);
                    # a tensor of a CpuEngine runtime stays NumPy, to work there still.
                    if rt._engine is None or rt._engine is engine:
                        arg._value = value
                if value.dtype.kind not in accepts[0 if variadic else index]:
                    raise dtype_error(spec, index, value)
                parent = arg._node
                if parent is None and arg._leaf:
                    parent = arg
                tracked = tracked or parent is not None
                has_tensor = True
            else:
                value = arg
                kind = SCALAR_KINDS.get(type(arg)) or scalar_kind(spec, index, arg, self._in_sweep)
                if kind not in accepts[0 if variadic else index]:
                    raise dtype_error(spec, index, value)
                if isinstance(arg, np.generic):  # a NumPy scalar: a 0-d constant (rules see a tensor)
                    value = freeze(np.asarray(arg))
                    constants[index] = EagerTensor(value, rt)
                parent = None
            values.append(value)
            parents.append(parent)
        if not has_tensor:
            raise ArgumentError(
                f"{name}: every argument is a scalar; pass at least one tensor "
                f"(rt.constant_from(...)) or compute scalars in Python",
                **fields_of(spec),
            )
        if constants:
            args = tuple(constants.get(index, arg) for index, arg in enumerate(args))
        return ((values,) if variadic else tuple(values)), tuple(parents), tracked, args

    def call(self: Session, *args: Any, **kwargs: Any) -> EagerTensor:
        if kwargs or len(args) != arity or defaults is None:
            args, params = bind(self, args, kwargs)
        else:
            params = defaults
        rt = self._rt
        values = None
        # Inline checks of the common calls; whatever they do not recognise, classify checks.
        if fast == 1 and self._fast:
            x = args[0]
            if type(x) is EagerTensor and x._rt is rt:
                value = x._value
                if type(value) is np.ndarray and value.dtype.kind in kinds_a:
                    parent = x._node
                    if parent is None and x._leaf:
                        parent = x
                    values, parents, tracked = (value,), (parent,), parent is not None
        elif fast == 2 and self._fast:
            a, b = args
            if type(a) is EagerTensor:
                va = a._value
                if a._rt is rt and type(va) is np.ndarray and va.dtype.kind in kinds_a:
                    pa = a._node
                    if pa is None and a._leaf:
                        pa = a
                    if type(b) is EagerTensor:
                        vb = b._value
                        if b._rt is rt and type(vb) is np.ndarray and vb.dtype.kind in kinds_b:
                            pb = b._node
                            if pb is None and b._leaf:
                                pb = b
                            values, parents, tracked = (va, vb), (pa, pb), pa is not None or pb is not None
                    elif type(b) in numbers_b:
                        values, parents, tracked = (va, b), (pa, None), pa is not None
            elif type(b) is EagerTensor and type(a) in numbers_a:
                vb = b._value
                if b._rt is rt and type(vb) is np.ndarray and vb.dtype.kind in kinds_b:
                    pb = b._node
                    if pb is None and b._leaf:
                        pb = b
                    values, parents, tracked = (a, vb), (None, pb), pb is not None
        if values is None:
            if variadic:  # the items are the node's inputs; the kernel gets them as one list
                args = _items(spec, args[0])
            values, parents, tracked, args = classify(self, args)
            engine = self._engine
            kernel = forward if engine is None else engine.kernel_of(op)
        else:  # an inline check passed: a session on NumPy values
            kernel = forward
        state = self._kernel_context
        try:
            if state is None:  # inside a loan (a session, a sweep): its context is in force
                out = kernel(*values, **params) if params else kernel(*values)
            elif type(state) is tuple:  # the engine's context variable and its value: set around the kernel
                token = state[0].set(state[1])
                try:
                    out = kernel(*values, **params) if params else kernel(*values)
                finally:
                    state[0].reset(token)
            else:  # the engine's context, entered around the kernel
                with state():
                    out = kernel(*values, **params) if params else kernel(*values)
        except TenferroError as exc:
            if exc.op is None:  # the kernel's own words about this op's arguments
                exc.op, exc.plugin = spec.name, spec.plugin
            raise
        except Exception as exc:
            raise explain(spec, values, params, exc) from None
        if type(out) is np.ndarray and not special:
            # a later kernel that writes into it fails instead of corrupting the trace (positional: 0.1 µs faster)
            out.setflags(False)
        elif multiple:
            return _results(op, out, rt, args, parents, params, tracked, self._engine)
        else:
            if type(out) is np.ndarray:
                out.setflags(False)
            elif type(out) in _NUMPY_SCALARS:  # a full reduction's NumPy scalar (0.5 µs less than _as_result)
                out = np.asarray(out)
                out.setflags(False)
            else:
                out = _as_result(spec, out, self._engine)
            if checked and out.shape != broadcast_shape(values):
                raise wrong_shape(spec, out, values)
        dtype = out.dtype
        if dtype is not F64 and dtype is not F32 and dtype.kind not in SUPPORTED_KINDS:
            raise bad_result(spec, out, "a kernel must return a bool, integer, float or complex array")
        if rt in paused():  # no_grad: an unrecorded result, whose backward is silent (see EagerTensor)
            if tracked and TRACING.get() is not None:  # a result a trace would keep as a constant
                TRACING.get().block(f"{name} under no_grad computes from a traced value")
            return EagerTensor(out, rt, None, False, True)
        if tracked:
            if dtype is F64 or dtype is F32 or dtype in TRACKED:
                kept = _recorded(drops, args, variadic) if drops and TRACING.get() is None else args
                return EagerTensor(out, rt, Node(op, kept, parents, params, out))
            if TRACING.get() is not None and dtype.kind != "f" and (integer_results or _integers_only(parents)):
                # a trace replays it (integer results of the trace's integer variables too,
                # stacked as an index): a node no derivative goes through
                return EagerTensor(out, rt, Node(op, args, parents, params, out))
            if dtype.kind == "f" or not integer_results:
                raise unrecordable(spec, out)
        return EagerTensor(out, rt)

    return _signed(spec, call)


def _integers_only(parents: tuple[Any, ...]) -> bool:
    """Whether every tracked input is an integer or bool one (a trace's own variables)."""
    return all(p.dtype.kind in "biu" for p in parents if p is not None)


def _signed(spec: OpSpec, call: Any) -> Any:
    """``op`` named, documented and given the op's signature, for ``help(s.mul)``."""
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
    parameters += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in spec.inputs]
    parameters += [
        inspect.Parameter(
            n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=inspect.Parameter.empty if d is REQUIRED else d
        )
        for n, d in spec.params.items()
    ]
    call.__name__ = call.__qualname__ = spec.name
    call.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    call.__doc__ = (
        f"{spec.doc.strip()}\n\nOp of plugin {spec.plugin!r}." if spec.doc else f"Op of plugin {spec.plugin!r}."
    )
    return call
