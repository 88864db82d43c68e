"""`EagerSession`: where ops are called, and the one function every op call goes through.

A session is handed to the callback of ``rt.with_eager_session`` (or bound by
``with rt.eager_session(eng) as s``). Its methods are the registry's ops, installed once
per registry on a session subclass, so ``s.mul(a, b)`` is a plain method call: no pluggy,
no per-call name lookup.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import engine as engines
from .eager import EagerTensor
from .errors import (
    ArgumentError,
    ContextMismatch,
    DTypeError,
    EngineError,
    KernelError,
    RuleError,
    SessionClosed,
    TenferroError,
)
from .params import frozen, frozen_params
from .recording import paused
from .registry import Registry
from .spec import REQUIRED, OpSpec
from .tensor import SUPPORTED_KINDS, TRACKED, Hollow, describe, dtype_name, freeze, seal
from .trace import Node, call_node, result_node

if TYPE_CHECKING:
    from .engine import Engine
    from .runtime import EagerRuntime

#: NumPy dtype kind of each Python scalar type accepted as a constant operand.
_SCALAR_KINDS = {bool: "b", int: "i", float: "f", complex: "c"}
_KIND_WORDS = {"b": "bool", "i": "integer", "u": "unsigned integer", "f": "float", "c": "complex"}
#: The dtypes a recorded (differentiable) result may have.
F64, F32 = np.dtype(np.float64), np.dtype(np.float32)
#: The NumPy scalars a full reduction's kernel returns, made 0-d arrays inline.
_NUMPY_SCALARS = frozenset({np.float64, np.float32, np.complex128, np.complex64, np.int64, np.bool_})


class EagerSession:
    """The ops of a runtime, bound to a lent engine.

    Every op takes its tensor arguments positionally (EagerTensors of the session's
    runtime, or Python/NumPy scalars as constants) followed by its static params, and
    returns a new EagerTensor; no op modifies its arguments. ``tenferro ops`` lists them.
    """

    #: The engine of a session class built for an engine that is not native (see
    #: :func:`session_class`); None for the registry's plain class (NumPy values).
    _engine: Engine | None = None

    #: While forward mode runs a jvp rule of an op with several results: (the results as the
    #: rule sees them, the indices of those whose tangent is read); None otherwise.
    _reads: tuple[tuple[Any, ...], set[int]] | None = None

    def __init__(self, rt: EagerRuntime, needed: set[int] | None = None, in_sweep: bool = False):
        self._rt = rt
        self._needed = needed  # inside rt.grad: the vertices that lead to a wanted variable
        self._in_sweep = in_sweep
        self._open = True

    @property
    def runtime(self) -> EagerRuntime:
        return self._rt

    def needs_grad(self, arg: Any) -> bool:
        """Whether a VJP rule must produce a cotangent for ``arg``: it tracks gradients and,
        inside ``rt.grad``, leads to one of the requested variables."""
        if type(arg) is not EagerTensor:
            return False
        found = arg._node  # eager.vertex, inlined: rules call this once per input
        if found is None:
            if not arg._leaf:
                return False
            found = arg
        return self._needed is None or id(found) in self._needed

    def wants_tangent(self, result: Any) -> bool:
        """Whether a jvp rule's tangent of ``result`` (one of its ``out``) is read: forward
        mode says which results of an op with several lead to what is differentiated, so a
        rule need not compute (or refuse) the tangent of one that does not (the forward
        counterpart of :meth:`needs_grad`). True where nobody says (the conformance suite,
        an op with one result)."""
        if self._reads is None:
            return True
        out, read = self._reads
        for index, candidate in enumerate(out):
            if candidate is result:
                return index in read
        return True

    def op(self, name: str) -> Any:
        """The op ``name``, bound: ``s.op("softmax")`` is ``s.softmax``, and a qualified name
        ``plugin.op`` picks one plugin's op, also one whose short name another plugin holds
        (``s.op("specialx.softmax")(x)``)."""
        return getattr(self, self._rt.registry[name].name)

    def __getattr__(self, name: str) -> Any:
        # Only reached when no op of this name is installed on the session class.
        if name.startswith("__"):
            raise AttributeError(name)
        raise self._rt.registry.unknown(name)


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
            f"got {type(sequence).__name__}; call it as {spec.name}([a, b, ...])"
        )
    if not sequence:
        raise ArgumentError(f"{spec.name}: argument {spec.inputs[0]!r} is empty; give at least one tensor")
    return tuple(sequence)


def _unkept(spec: OpSpec, index: int, arg: EagerTensor) -> RuleError:
    return RuleError(
        f"{spec.name}: argument {spec.input_name(index)!r} is {arg.describe()}, whose value the trace did not "
        f"keep; a derivative rule (VJP or JVP) read a value its op's spec does not list in residuals (add it there)"
    )


def _scalar_kind(spec: OpSpec, index: int, arg: Any, in_rule: bool) -> str:
    """The dtype kind of a non-tensor argument that is not a plain Python scalar."""
    if isinstance(arg, np.generic):
        return arg.dtype.kind
    if isinstance(arg, Hollow):  # a rule's ``out`` whose value the trace did not keep
        raise RuleError(
            f"{spec.name}: argument {spec.input_name(index)!r} is the result of {arg.spec.name}, whose value "
            f"the trace did not keep; a derivative rule (VJP or JVP) read a value its op's spec does not list "
            f"in residuals (add 'out' there)"
        )
    if in_rule and arg is None:
        hint = (
            "inside a derivative rule None stands for a zero: a result without a cotangent (an op with "
            "several results gets None in g for each) or an input without a tangent; skip its term"
        )
    elif in_rule:
        hint = (
            "inside a VJP rule, compute with the session's ops on the EagerTensors the rule was given "
            "(a raw array there is cut off from the trace, so second derivatives would be wrong)"
        )
    elif isinstance(arg, (np.ndarray, list, tuple)):
        hint = "wrap arrays with rt.constant_from(a) or rt.variable_from(a)"
    else:
        hint = "pass an EagerTensor of this session's runtime or a Python number"
    raise ArgumentError(f"{spec.name}: argument {spec.input_name(index)!r} is a {type(arg).__name__}; {hint}")


def _dtype_error(spec: OpSpec, index: int, value: Any) -> DTypeError:
    """The DTypeError of an argument outside ``accepts``: with the spec's ``refuses`` text
    for its kind, or, for a complex argument where floats are accepted, the way out."""
    dtype = value.dtype if isinstance(value, (np.ndarray, np.generic)) else type(value).__name__
    shown = dtype_name(dtype) if isinstance(dtype, np.dtype) else dtype
    kinds = spec.accepts[spec.slot(index)]
    allowed = " or ".join(_KIND_WORDS[k] for k in kinds)
    kind = dtype.kind if isinstance(dtype, np.dtype) else _SCALAR_KINDS.get(type(value))
    why = spec.refuses.get(kind)
    if why is None and kind == "c" and "f" in kinds:
        name = spec.input_name(index)
        why = (
            f"{spec.name} is a function of real numbers; apply it to s.real({name}), s.imag({name}), "
            f"s.abs({name}) or s.angle({name}) on purpose"
        )
    return DTypeError(
        f"{spec.name}: argument {spec.input_name(index)!r} has dtype {shown}; "
        f"{spec.name} accepts {allowed} tensors there" + (f": {why}" if why else "")
    )


def _explain(spec: OpSpec, values: Sequence[Any], params: Mapping[str, Any], exc: Exception) -> TenferroError:
    """Turn a kernel's NumPy/Python exception into the TenferroError that names the cause.

    The spec's ``explain`` is plugin code too: if it raises something else or returns
    something that is not a TenferroError, the kernel's own exception is reported."""
    if spec.explain is not None:
        try:
            error = spec.explain(*values, **params)
        except TenferroError as explained:
            error = explained
        except Exception:
            error = None
        if isinstance(error, TenferroError):
            return error
    if isinstance(exc, ValueError) and "read-only" in str(exc):
        return KernelError(
            f"{spec.name} (plugin {spec.plugin!r}): its forward kernel tried to write into an argument; "
            f"tenferro values are read-only, and kernels must return new arrays"
        )
    return KernelError(
        f"{spec.name} (plugin {spec.plugin!r}) failed: {type(exc).__name__}: {exc}; "
        f"check its arguments against its signature {spec.signature}"
    )


def _bad_result(spec: OpSpec, out: Any, why: str) -> KernelError:
    arrays = (np.ndarray, *engines.ENGINE_ARRAYS)
    shown = describe(out.shape, out.dtype) if isinstance(out, arrays) else type(out).__name__
    return KernelError(f"{spec.name} (plugin {spec.plugin!r}): its forward kernel returned {shown}; {why}")


def _broadcast_shape(values: Sequence[Any]) -> tuple[int, ...]:
    """The shape the arguments of an elementwise op broadcast to (a Python number has
    none), for arguments that do broadcast (its kernel ran). Two of one shape, the common
    call, take two compares."""
    if len(values) == 2:
        a, b = values
        sa = () if type(a) in _SCALAR_KINDS else a.shape
        sb = () if type(b) in _SCALAR_KINDS else b.shape
        if sa == sb or not sb:
            return sa
        if not sa:
            return sb
    return np.broadcast_shapes(*(v.shape for v in values if type(v) not in _SCALAR_KINDS))


def _wrong_shape(spec: OpSpec, out: Any, values: Sequence[Any]) -> KernelError:
    shapes = ", ".join(
        f"{list(np.shape(v))} ({spec.input_name(i)})" for i, v in enumerate(values) if type(v) not in _SCALAR_KINDS
    )
    return _bad_result(
        spec,
        out,
        f"the op is elementwise, so its result must have the broadcast shape {list(_broadcast_shape(values))} of "
        f"its arguments {shapes}",
    )


def _as_result(spec: OpSpec, out: Any, engine: Engine | None = None) -> Any:
    """A kernel's non-ndarray result (e.g. the NumPy scalar of a full reduction) as a
    frozen numeric array, or as the value of the session's ``engine`` (which adopts its own
    arrays), or the KernelError that blames the kernel (None and text included). The array
    of an engine other than the session's is refused, never gathered."""
    if engine is not None:
        adopted = engine.adopt(out)
        if adopted is not None:
            if adopted.dtype.kind not in SUPPORTED_KINDS:
                raise _bad_result(spec, adopted, "a kernel must return a numeric array")
            return adopted
    if isinstance(out, engines.ENGINE_ARRAYS):
        raise _foreign(spec.name, f"its kernel returned a {type(out).__module__}.{type(out).__name__}", engine)
    try:
        array = np.asarray(out)
    except Exception:
        array = None
    if array is None or array.dtype.kind not in SUPPORTED_KINDS:
        raise _bad_result(spec, out, "a kernel must return a numeric array")
    return freeze(array)


def _foreign(name: str, what: str, engine: Engine | None) -> EngineError:
    """The error for a value of another engine (a dask array) met by a NumPy session:
    computing it here would gather it to this process, so it is refused."""
    where = f"{engine!r}" if engine is not None else "a session on NumPy values (CpuEngine)"
    return EngineError(
        f"{name}: {what}, the value of another engine, but this op runs on {where}; tenferro does not gather "
        f"a distributed value silently: run the op on the engine that made the value, or read it first "
        f"(x.value()) and make a new tensor of it"
    )


def _unrecordable(spec: OpSpec, out: np.ndarray) -> TenferroError:
    """Why a result computed from a tracked input cannot be recorded."""
    if out.dtype.kind == "f" and not spec.integer_results:  # not a cast: the kernel chose the dtype
        return _bad_result(spec, out, "tracked results must be float32 or float64, like the inputs they come from")
    if out.dtype.kind == "f":
        return DTypeError(
            f"{spec.name}: the result would be {dtype_name(out.dtype)}, and tenferro records only float32, "
            f"float64, complex64 and complex128 results; compute it under rt.no_grad() or from constants, "
            f"or keep float32"
        )
    return _bad_result(
        spec,
        out,
        "an integer or bool result of a tracked float input drops its gradient; a kernel of a "
        "differentiable op must keep floats float (or its spec must declare integer_results=True)",
    )


def _results(
    spec: OpSpec,
    out: Any,
    rt: EagerRuntime,
    args: tuple[Any, ...],
    parents: tuple[Any, ...],
    params: Any,
    tracked: bool,
    engine: Engine | None = None,
) -> tuple[EagerTensor, ...]:
    """The tensors of a ``multiple_results`` op: for ``tracked`` arguments, a call node and
    one result node per float result (see :func:`~tenferro.core.trace.call_node`); under
    ``no_grad``, unrecorded results (see EagerTensor)."""
    if not isinstance(out, (tuple, list)):
        raise _bad_result(spec, out, "an op with multiple_results must return a tuple or list of arrays")
    arrays = []
    for item in out:
        array = item if type(item) is np.ndarray else _as_result(spec, item, engine)
        if array.dtype.kind not in SUPPORTED_KINDS:
            raise _bad_result(spec, array, "a kernel must return bool, integer, float or complex arrays")
        arrays.append(seal(array))
    if rt in paused():
        return tuple(EagerTensor(array, rt, None, False, True) for array in arrays)
    if not tracked:
        return tuple(EagerTensor(array, rt) for array in arrays)
    integer_results = spec.integer_results or not any(spec.differentiable)
    recorded: list[Any] = []  # per result: its array, to record a node, or its constant tensor
    for array in arrays:
        if array.dtype in TRACKED:
            recorded.append(array)
        elif array.dtype.kind == "f" or not integer_results:
            raise _unrecordable(spec, array)
        else:
            recorded.append(EagerTensor(array, rt))
    kept = _recorded(spec.drops, args, spec.variadic) if spec.drops else args
    call = call_node(spec, kept, parents, params, tuple(recorded))
    return tuple(
        r if type(r) is EagerTensor else EagerTensor(r, rt, result_node(call, index))
        for index, r in enumerate(recorded)
    )


def _bind(spec: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Split a call into tensor arguments and params, applying defaults; ArgumentError
    for a wrong count or an unknown/duplicate name."""
    names = spec.inputs + tuple(spec.params)
    if len(args) > len(names):
        raise ArgumentError(f"{spec.name} takes at most {len(names)} arguments ({spec.signature}), got {len(args)}")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise ArgumentError(f"{spec.name} has no argument {key!r}; its signature is {spec.signature}")
        if key in bound:
            raise ArgumentError(f"{spec.name} got argument {key!r} twice")
        bound[key] = value
    missing = [n for n in spec.inputs if n not in bound]
    missing += [n for n, d in spec.params.items() if d is REQUIRED and n not in bound]
    if missing:
        raise ArgumentError(
            f"{spec.name} is missing argument {', '.join(map(repr, missing))}; its signature is {spec.signature}"
        )
    tensors = tuple(bound[n] for n in spec.inputs)
    params = {n: frozen(bound[n]) if n in bound else d for n, d in spec.params.items()}
    return tensors, params


def _method(
    spec: OpSpec, kernel_state: tuple[Any, Any] | None = None, engine: Engine | None = None, shapes: bool = False
) -> Any:
    """The session method of one op: bind the arguments, check them, run the kernel on the
    engine, record a node.

    This is the per-op hot path, one function per op with the spec's fields bound in its
    closure (about 1.6 µs on top of the kernel for a small tensor when recorded; see
    bench/README.md); keep it free of work the error contract does not need. The calls a
    program is made of (one or two inputs, tensors or a float, in order, default params)
    are checked inline; any other call is bound by :func:`_bind` and checked by
    ``classify``, which also raises every argument error.

    With ``shapes`` (see :func:`checks_shapes`), an elementwise op's result shape is checked
    against its arguments' broadcast shape.

    For an ``engine`` that is not native (see ``engine.py``) there are no inline checks:
    ``classify`` gives each NumPy value to ``engine.enter`` (the tensor keeps what it
    returns when its runtime's default engine is this one or none), the kernel is
    ``engine.kernel(spec)``, and results are adopted by the engine.
    """
    name, accepts, drops = spec.name, spec.accepts, spec.drops
    forward = spec.forward if engine is None else engine.kernel(spec)
    enter = None if engine is None else engine.enter
    # An implicit session's method sets the engine's context variable around the kernel.
    state, quiet = kernel_state or (None, None)
    integer_results = spec.integer_results or not any(spec.differentiable)
    arity = len(spec.inputs)
    names = tuple(spec.params)
    defaults = None if any(d is REQUIRED for d in spec.params.values()) else dict(spec.params)
    first_default = next(iter(spec.params.values()), REQUIRED)
    optional = {n: d for n, d in spec.params.items() if d is not REQUIRED}
    # The fewest params a positional call may give: every later one has a default.
    least = max((i + 1 for i, d in enumerate(spec.params.values()) if d is REQUIRED), default=0)
    variadic, multiple = spec.variadic, spec.multiple_results
    checked = spec.elementwise and shapes
    special = multiple or checked  # a result that needs more than a read-only flag
    fast = 0 if variadic or engine is not None else arity  # the arity the inline checks below handle (1 or 2)
    kinds_a, kinds_b = (*accepts, "", "")[:2]
    floats_b = "f" in kinds_b

    def bind(self: EagerSession, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], Any]:
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
        self: EagerSession, args: tuple[Any, ...]
    ) -> tuple[tuple[Any, ...], tuple[Any, ...], bool, tuple[Any, ...]]:
        """Each argument's value and vertex (see eager.vertex), whether any is tracked, and
        the arguments as the node records them (a NumPy scalar as a 0-d constant, so that
        rules meet a tensor, as they would for a 0-d array); the error that says what is
        wrong with an argument."""
        if not self._open:
            raise SessionClosed(f"{name}: this session has ended; call ops inside the session's callback or with-block")
        rt = self._rt
        values = []
        parents = []
        constants: dict[int, EagerTensor] = {}
        tracked = has_tensor = False
        for index, arg in enumerate(args):
            if type(arg) is EagerTensor:
                if arg._rt is not rt:
                    raise ContextMismatch(
                        f"{name}: argument {spec.input_name(index)!r} belongs to {arg._rt!r}, "
                        f"but this op runs on {rt!r}; tensors of two runtimes cannot be mixed: {rt._mixed(arg._rt)}"
                    )
                value = arg._value
                if type(value) is not np.ndarray:
                    if isinstance(value, Hollow):
                        raise _unkept(spec, index, arg)
                    if enter is None:  # another engine's value on NumPy: refused, not gathered
                        shown = f"{type(value).__module__}.{type(value).__name__}"
                        raise _foreign(name, f"argument {spec.input_name(index)!r} holds a {shown}", engine)
                elif enter is not None:  # the value moves to the engine
                    value = enter(value)
                    # Once, where no other engine is the runtime's default (the tensor keeps it);
                    # a tensor of a CpuEngine runtime stays NumPy, to work there still.
                    if rt._engine is None or rt._engine is engine:
                        arg._value = value
                if value.dtype.kind not in accepts[0 if variadic else index]:
                    raise _dtype_error(spec, index, value)
                parent = arg._node
                if parent is None and arg._leaf:
                    parent = arg
                tracked = tracked or parent is not None
                has_tensor = True
            else:
                value = arg
                kind = _SCALAR_KINDS.get(type(arg)) or _scalar_kind(spec, index, arg, self._in_sweep)
                if kind not in accepts[0 if variadic else index]:
                    raise _dtype_error(spec, index, value)
                if isinstance(arg, np.generic):  # a NumPy scalar: a 0-d constant (rules see a tensor)
                    value = freeze(np.asarray(arg))
                    constants[index] = EagerTensor(value, rt)
                parent = None
            values.append(value)
            parents.append(parent)
        if not has_tensor:
            raise ArgumentError(
                f"{name}: every argument is a scalar; pass at least one tensor "
                f"(rt.constant_from(...)) or compute scalars in Python"
            )
        if constants:
            args = tuple(constants.get(index, arg) for index, arg in enumerate(args))
        return ((values,) if variadic else tuple(values)), tuple(parents), tracked, args

    def op(self: EagerSession, *args: Any, **kwargs: Any) -> EagerTensor:
        if kwargs or len(args) != arity or defaults is None:
            args, params = bind(self, args, kwargs)
        else:
            params = defaults
        rt = self._rt
        values = None
        # Inline checks of the common calls; whatever they do not recognise, classify checks.
        if fast == 1 and self._open:
            x = args[0]
            if type(x) is EagerTensor and x._rt is rt:
                value = x._value
                if type(value) is np.ndarray and value.dtype.kind in kinds_a:
                    parent = x._node
                    if parent is None and x._leaf:
                        parent = x
                    values, parents, tracked = (value,), (parent,), parent is not None
        elif fast == 2 and self._open:
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
                    elif type(b) is float and floats_b:
                        values, parents, tracked = (va, b), (pa, None), pa is not None
        if values is None:
            if variadic:  # the items are the node's inputs; the kernel gets them as one list
                args = _items(spec, args[0])
            values, parents, tracked, args = classify(self, args)
        try:
            if state is None:
                out = forward(*values, **params) if params else forward(*values)
            else:
                token = state.set(quiet)
                try:
                    out = forward(*values, **params) if params else forward(*values)
                finally:
                    state.reset(token)
        except TenferroError:
            raise
        except Exception as exc:
            raise _explain(spec, values, params, exc) from None
        if type(out) is np.ndarray and not special:
            # a later kernel that writes into it fails instead of corrupting the trace (positional: 0.1 µs faster)
            out.setflags(False)
        elif multiple:
            return _results(spec, out, rt, args, parents, params, tracked, engine)
        else:
            if type(out) is np.ndarray:
                out.setflags(False)
            elif type(out) in _NUMPY_SCALARS:  # a full reduction's NumPy scalar (0.5 µs less than _as_result)
                out = np.asarray(out)
                out.setflags(False)
            else:
                out = _as_result(spec, out, engine)
            if checked and out.shape != _broadcast_shape(values):
                raise _wrong_shape(spec, out, values)
        dtype = out.dtype
        if dtype is not F64 and dtype is not F32 and dtype.kind not in SUPPORTED_KINDS:
            raise _bad_result(spec, out, "a kernel must return a bool, integer, float or complex array")
        if rt in paused():  # no_grad: an unrecorded result, whose backward is silent (see EagerTensor)
            return EagerTensor(out, rt, None, False, True)
        if tracked:
            if dtype is F64 or dtype is F32 or dtype in TRACKED:
                kept = _recorded(drops, args, variadic) if drops else args
                return EagerTensor(out, rt, Node(spec, kept, parents, params, out))
            if dtype.kind == "f" or not integer_results:
                raise _unrecordable(spec, out)
        return EagerTensor(out, rt)

    return _signed(spec, op)


def _signed(spec: OpSpec, op: Any) -> Any:
    """``op`` named, documented and given the op's signature, for ``help(s.mul)``."""
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]
    parameters += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in spec.inputs]
    parameters += [
        inspect.Parameter(
            n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=inspect.Parameter.empty if d is REQUIRED else d
        )
        for n, d in spec.params.items()
    ]
    op.__name__ = op.__qualname__ = spec.name
    op.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    op.__doc__ = (
        f"{spec.doc.strip()}\n\nOp of plugin {spec.plugin!r}." if spec.doc else f"Op of plugin {spec.plugin!r}."
    )
    return op


class ImplicitSession(EagerSession):
    """Where ops go outside any session: each call runs at once under the engine's context,
    lending nothing, so any number of threads may use it together.

    One per runtime, never closed; recording follows the runtime's switch as in any session.
    When the engine's context is one context variable (``Engine.kernel_state``), the class
    of :func:`implicit_session` sets it around each kernel alone; otherwise each op (the
    registry session's method) is wrapped in ``Engine.unlent`` on first use.
    """

    def __init__(self, rt: EagerRuntime, engine: Engine):
        super().__init__(rt)
        self._unlent = engine.unlent
        self._ops = rt._session_class if engine.native else session_class(rt.registry, engine)

    def __getattr__(self, name: str) -> Any:
        # Reached once per op name: the wrapped method is then an instance attribute.
        op = getattr(self._ops, name, None)
        if op is None or name.startswith("_"):
            return super().__getattr__(name)
        bound = op.__get__(self)
        run = self._unlent(bound)
        run.__name__ = run.__qualname__ = name
        run.__doc__, run.__signature__ = op.__doc__, inspect.signature(bound)  # type: ignore[attr-defined]
        self.__dict__[name] = run
        return run


def implicit_session(rt: EagerRuntime, registry: Registry, engine: Engine) -> ImplicitSession:
    """The implicit session of ``rt``: of a class with one method per op whose kernels run
    under the engine's ``kernel_state`` (built once per registry and state), or, for an
    engine without one, an ImplicitSession that wraps each op in ``Engine.unlent``."""
    state = engine.kernel_state()
    if state is None or not engine.native:
        return ImplicitSession(rt, engine)
    with _CLASSES_LOCK:
        classes = _IMPLICIT.setdefault(registry, {})
        cls = classes.get(state)
        if cls is None:
            methods = {spec.name: _method(spec, state, shapes=checks_shapes(registry, spec)) for spec in registry}
            doc = f"An ImplicitSession whose methods are the {len(methods)} ops of one registry."
            cls = classes[state] = type(
                "RegistryImplicitSession", (ImplicitSession,), {"__module__": __name__, "__doc__": doc, **methods}
            )
    return cls(rt, engine)


#: The distribution of the op families whose result shapes the session leaves unchecked.
SHIPPED = "tenferro"


def checks_shapes(registry: Registry, spec: OpSpec) -> bool:
    """Whether the session checks the result shapes of ``spec``'s calls (when it declares
    ``elementwise``): for every plugin but the families tenferro ships, whose shapes the
    conformance suite proves against their NumPy references in tenferro's own tests, so
    that the per-op path of the ops a program is made of pays nothing for the check."""
    info = registry.plugins.get(spec.plugin)
    return info is None or info.distribution != SHIPPED


_CLASSES: weakref.WeakKeyDictionary[Registry, type[EagerSession]] = weakref.WeakKeyDictionary()
_IMPLICIT: weakref.WeakKeyDictionary[Registry, dict[Any, type[ImplicitSession]]] = weakref.WeakKeyDictionary()
_CLASSES_LOCK = threading.Lock()


def session_class(registry: Registry, engine: Engine | None = None) -> type[EagerSession]:
    """The subclass of EagerSession with one method per op of ``registry``: built once per
    registry (also when several threads build their first runtime at the same time). For
    an ``engine`` that is not native, a class of that engine's own (built once per engine),
    whose methods enter, run and adopt values as the engine says (see :func:`_method`)."""
    if engine is not None and not engine.native:
        with _CLASSES_LOCK:
            # Kept on the engine, not in a table keyed by it: the class refers to its engine,
            # so a table would keep every engine (and its client) alive; a cycle is collected.
            classes = engine._session_classes
            if classes is None:
                classes = engine._session_classes = weakref.WeakKeyDictionary()
            cls = classes.get(registry)
            if cls is None:
                methods: dict[str, Any] = {
                    spec.name: _method(spec, None, engine, checks_shapes(registry, spec)) for spec in registry
                }
                doc = f"An EagerSession of {engine!r} whose methods are the {len(methods)} ops of one registry."
                methods.update(__module__=__name__, __doc__=doc, _engine=engine)
                cls = classes[registry] = type("EngineSession", (EagerSession,), methods)
        return cls
    with _CLASSES_LOCK:
        cls = _CLASSES.get(registry)
        if cls is None:
            # spec.RESERVED_NAMES keeps the methods apart from the session's own attributes
            methods = {spec.name: _method(spec, shapes=checks_shapes(registry, spec)) for spec in registry}
            doc = f"An EagerSession whose methods are the {len(methods)} ops of one registry."
            cls = type("RegistrySession", (EagerSession,), {"__module__": __name__, "__doc__": doc, **methods})
            _CLASSES[registry] = cls
    return cls
