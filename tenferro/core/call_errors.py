"""What an op call was given, or its kernel returned, that is wrong, said as the
TenferroError that names the op, the argument and what to do: the call's words for its
mistakes, apart from the call itself (``call.py``), which only calls these when a check
fails (as ``rule_errors.py`` holds the words for a derivative rule's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import engine as engines
from .engine import Engine
from .errors import ArgumentError, DTypeError, EngineError, KernelError, RuleError, TenferroError
from .spec import OpSpec
from .tensor import Hollow, describe, dtype_name

#: NumPy dtype kind of each Python scalar type accepted as a constant operand.
SCALAR_KINDS = {bool: "b", int: "i", float: "f", complex: "c"}
_KIND_WORDS = {"b": "bool", "i": "integer", "u": "unsigned integer", "f": "float", "c": "complex"}


def unkept(spec: OpSpec, index: int, arg: Any) -> RuleError:
    return RuleError(
        f"{spec.name}: argument {spec.input_name(index)!r} is {arg.describe()}, whose value the trace did not "
        f"keep; a derivative rule (VJP or JVP) read a value its op's spec does not list in residuals (add it there)",
        **fields_of(spec, index),
        unkept=True,
    )


def fields_of(spec: OpSpec, index: int | None = None) -> dict[str, str]:
    """The fields of an error about a call of ``spec`` (about its input ``index``, if given)."""
    fields = {"op": spec.name, "plugin": spec.plugin}
    if index is not None:
        fields["argument"] = spec.input_name(index)
    return fields


def scalar_kind(spec: OpSpec, index: int, arg: Any, in_rule: bool) -> str:
    """The dtype kind of a non-tensor argument that is not a plain Python scalar."""
    if isinstance(arg, np.generic):
        return arg.dtype.kind
    if isinstance(arg, Hollow):  # a rule's ``out`` whose value the trace did not keep
        raise RuleError(
            f"{spec.name}: argument {spec.input_name(index)!r} is the result of {arg.spec.name}, whose value "
            f"the trace did not keep; a derivative rule (VJP or JVP) read a value its op's spec does not list "
            f"in residuals (add 'out' there)",
            **fields_of(spec, index),
            unkept=True,
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
    raise ArgumentError(
        f"{spec.name}: argument {spec.input_name(index)!r} is a {type(arg).__name__}; {hint}", **fields_of(spec, index)
    )


def dtype_error(spec: OpSpec, index: int, value: Any) -> DTypeError:
    """The DTypeError of an argument outside ``accepts``: with the spec's ``refuses`` text
    for its kind, or, for a complex argument where floats are accepted, the way out."""
    dtype = value.dtype if isinstance(value, (np.ndarray, np.generic)) else type(value).__name__
    shown = dtype_name(dtype) if isinstance(dtype, np.dtype) else dtype
    kinds = spec.accepts[spec.slot(index)]
    allowed = " or ".join(_KIND_WORDS[k] for k in kinds)
    kind = dtype.kind if isinstance(dtype, np.dtype) else SCALAR_KINDS.get(type(value))
    why = spec.refuses.get(kind)
    if why is None and kind == "c" and "f" in kinds:
        name = spec.input_name(index)
        why = (
            f"{spec.name} is a function of real numbers; apply it to s.real({name}), s.imag({name}), "
            f"s.abs({name}) or s.angle({name}) on purpose"
        )
    return DTypeError(
        f"{spec.name}: argument {spec.input_name(index)!r} has dtype {shown}; "
        f"{spec.name} accepts {allowed} tensors there" + (f": {why}" if why else ""),
        **fields_of(spec, index),
    )


def explain(spec: OpSpec, values: Sequence[Any], params: Mapping[str, Any], exc: Exception) -> TenferroError:
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
            if error.op is None:
                error.op, error.plugin = spec.name, spec.plugin
            return error
    if isinstance(exc, OverflowError):  # NumPy 2: a Python int beside integer arrays it does not fit
        kinds = [v.dtype for v in values if isinstance(v, np.ndarray) and v.dtype.kind in "iu"]
        for index, value in enumerate(values):
            if type(value) is int and kinds and not np.iinfo(kinds[0]).min <= value <= np.iinfo(kinds[0]).max:
                return DTypeError(
                    f"{spec.name}: argument {spec.input_name(index)!r} is the int {value}, which does not fit in "
                    f"{dtype_name(kinds[0])}, the other operand's dtype; write it as a float ({float(value):.6g}), "
                    f"or cast the array to a wider dtype first",
                    **fields_of(spec, index),
                )
    # NumPy's own words: the only sign it gives of a write into a read-only array
    if isinstance(exc, ValueError) and "read-only" in str(exc):
        return KernelError(
            f"{spec.name} (plugin {spec.plugin!r}): its forward kernel tried to write into an argument; "
            f"tenferro values are read-only, and kernels must return new arrays",
            **fields_of(spec),
        )
    return KernelError(
        f"{spec.name} (plugin {spec.plugin!r}) failed: {type(exc).__name__}: {exc}; "
        f"check its arguments against its signature {spec.signature}",
        **fields_of(spec),
    )


def bad_result(spec: OpSpec, out: Any, why: str) -> KernelError:
    arrays = (np.ndarray, *engines.ENGINE_ARRAYS)
    shown = describe(out.shape, out.dtype) if isinstance(out, arrays) else type(out).__name__
    return KernelError(
        f"{spec.name} (plugin {spec.plugin!r}): its forward kernel returned {shown}; {why}", **fields_of(spec)
    )


def broadcast_shape(values: Sequence[Any]) -> tuple[int, ...]:
    """The shape the arguments of an elementwise op broadcast to (a Python number has
    none), for arguments that do broadcast (its kernel ran). Two of one shape, the common
    call, take two compares."""
    if len(values) == 2:
        a, b = values
        sa = () if type(a) in SCALAR_KINDS else a.shape
        sb = () if type(b) in SCALAR_KINDS else b.shape
        if sa == sb or not sb:
            return sa
        if not sa:
            return sb
    return np.broadcast_shapes(*(v.shape for v in values if type(v) not in SCALAR_KINDS))


def wrong_shape(spec: OpSpec, out: Any, values: Sequence[Any]) -> KernelError:
    shapes = ", ".join(
        f"{list(np.shape(v))} ({spec.input_name(i)})" for i, v in enumerate(values) if type(v) not in SCALAR_KINDS
    )
    return bad_result(
        spec,
        out,
        f"the op is elementwise, so its result must have the broadcast shape {list(broadcast_shape(values))} of "
        f"its arguments {shapes}",
    )


def foreign(name: str, what: str, engine: Engine | None) -> EngineError:
    """The error for a value of another engine (a dask array) met by a NumPy session:
    computing it here would gather it to this process, so it is refused."""
    where = f"{engine!r}" if engine is not None else "a session on NumPy values (CpuEngine)"
    return EngineError(
        f"{name}: {what}, the value of another engine, but this op runs on {where}; tenferro does not gather "
        f"a distributed value silently: run the op on the engine that made the value, or read it first "
        f"(x.value()) and make a new tensor of it",
        op=name,
    )


def unrecordable(spec: OpSpec, out: np.ndarray) -> TenferroError:
    """Why a result computed from a tracked input cannot be recorded."""
    if out.dtype.kind == "f" and not spec.integer_results:  # not a cast: the kernel chose the dtype
        return bad_result(spec, out, "tracked results must be float32 or float64, like the inputs they come from")
    if out.dtype.kind == "f":
        return DTypeError(
            f"{spec.name}: the result would be {dtype_name(out.dtype)}, and tenferro records only float32, "
            f"float64, complex64 and complex128 results; compute it under rt.no_grad() or from constants, "
            f"or keep float32",
            **fields_of(spec),
        )
    return bad_result(
        spec,
        out,
        "an integer or bool result of a tracked float input drops its gradient; a kernel of a "
        "differentiable op must keep floats float (or its spec must declare integer_results=True)",
    )
