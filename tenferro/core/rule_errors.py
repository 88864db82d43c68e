"""What a derivative rule returned or raised that is wrong, said as a RuleError that names
the op and its plugin and what to do: the reverse sweep's words for a rule's mistakes,
apart from the sweep itself (``sweep.py``), which only calls these when a check fails."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from .eager import EagerTensor
from .errors import EngineError, NotDifferentiable, RuleError
from .spec import OpSpec
from .tensor import Hollow, describe
from .trace import CALL, Node


def reject_cotangent(node: Node, index: int, arg: Any, ct: Any, rt: Any) -> None:
    """Raise the RuleError that says what is wrong with cotangent ``ct`` of input ``index``."""
    spec = node.spec
    if type(ct) is EagerTensor and isinstance(ct._value, Hollow):
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned, for input {index} "
            f"({spec.input_name(index)!r}), {ct.describe()} whose value the trace did not keep; "
            f"compute each cotangent with the session's ops",
            **rule_fields(spec, index),
            unkept=True,
        )
    if type(ct) is not EagerTensor or ct._rt is not rt:
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {type(ct).__name__} for input "
            f"{index} ({spec.input_name(index)!r}); a cotangent must be None or an EagerTensor made "
            f"with the session's ops",
            **rule_fields(spec, index),
        )
    if (
        spec.vjps is not None
        and spec.unbroadcast is None
        and ct.shape == node.shape != arg.shape
        and _widens(arg, node)
    ):
        # the result's shape for an input the op broadcast: per-input rules leave the sum to the core
        fix = "an op that broadcasts declares OpSpec(unbroadcast=tenferro.extend.unbroadcast), which sums them back"
    else:
        fix = "sum broadcast axes back, cast mixed precision back"
    raise RuleError(
        f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned a cotangent of type "
        f"{describe(ct.shape, ct.dtype)} for input {index} ({spec.input_name(index)!r}) of type "
        f"{describe(arg.shape, arg.dtype)}; a cotangent must have its input's shape and dtype "
        f"({fix}). {forward_hint(node)}",
        **rule_fields(spec, index),
    )


def rule_fields(spec: OpSpec, index: int | None = None, rule: str = "vjp") -> dict[str, Any]:
    """The fields of a RuleError about ``spec``'s ``rule`` (about input ``index``, if given)."""
    fields: dict[str, Any] = {"op": spec.name, "plugin": spec.plugin, "rule": rule}
    if index is not None:
        fields["input"] = spec.input_name(index)
    return fields


def _widens(arg: Any, node: Node) -> bool:
    """Whether broadcasting ``arg`` gives the node's result shape (so the op broadcast it)."""
    try:
        return np.broadcast_shapes(arg.shape, node.shape) == node.shape
    except ValueError:
        return False


def forward_hint(node: Node, raised: bool = False) -> str:
    """The sentence that says what the op's forward kernel returned, and so which of the
    kernel and the rule is at fault: the kernel where the result contradicts what the op
    declares (an elementwise op's broadcast shape); the rule where it ``raised`` on a
    result of its inputs' broadcast shape, which a kernel gone wrong rarely keeps; else
    either, as the result says (a rule that returned a cotangent of the wrong shape, or
    raised on a result of another shape)."""
    shapes = [a.shape for a in node.inputs if hasattr(a, "dtype")]
    shown = ", ".join(describe(a.shape, a.dtype) if hasattr(a, "dtype") else repr(a) for a in node.inputs)
    results = node.value if node.output == CALL else (node,)
    made = ", ".join(describe(r.shape, r.dtype) for r in results)
    said = f"The op's result was {made} from inputs ({shown})"
    kept = len(results) == 1 and _broadcast(shapes) == results[0].shape
    if node.spec.elementwise and not kept:
        return f"{said}, but the op is elementwise: its forward kernel is at fault, not the VJP"
    if raised and kept:
        return f"{said}, the inputs' shape, and the VJP rule raised on them: the fault is in the rule"
    return f"{said}: if that is not what the op should return, its forward kernel is at fault, not the VJP"


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def cotangent_tuple(spec: OpSpec, returned: Any, count: int) -> tuple[Any, ...]:
    """A VJP's return value as a tuple of ``count`` cotangents, or the RuleError saying why
    it is not one."""
    if type(returned) is not tuple:
        if not isinstance(returned, list):
            shown = (
                "None"
                if returned is None
                else "a single EagerTensor"
                if isinstance(returned, EagerTensor)
                else f"a {type(returned).__name__}"
            )
            raise RuleError(
                f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {shown}; return a tuple with one "
                f"cotangent per input (None for zero), e.g. (g,) for a one-input op",
                **rule_fields(spec),
            )
        returned = tuple(returned)
    if len(returned) != count:
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {len(returned)} "
            f"cotangents for {count} inputs; return one per input (None for zero)",
            **rule_fields(spec),
        )
    return returned


def passes_through(exc: Exception) -> bool:
    """Whether an exception from a derivative rule already says what is wrong (a point with
    no derivative, an op with no path on the engine, a RuleError naming the rule of the op
    at fault: its ``rule`` field) and goes on as it is; any other is wrapped in a RuleError
    naming the rule that raised it (:func:`rule_error`, or :meth:`Op.jvp
    <tenferro.core.op.Op.jvp>`'s)."""
    return isinstance(exc, (NotDifferentiable, EngineError)) or (isinstance(exc, RuleError) and exc.rule is not None)


def _miscalled(node: Node, rule: Any) -> bool:
    """Whether ``rule``'s signature does not take the arguments the sweep gives it (a rule
    without a signature, a C function, is given the benefit of the doubt)."""
    spec = node.spec
    given = 3 + len(spec.inputs) if spec.vjps is not None else 4  # s, g, out, *inputs / s, g, inputs, out
    try:
        inspect.signature(rule).bind(*[None] * given, **node.params)
    except TypeError:
        return True
    except ValueError:
        return False
    return False


def rule_error(node: Node, exc: Exception, rule: Any) -> RuleError:
    """The RuleError naming the op whose VJP rule raised ``exc`` (the inputs were checked
    when the op ran: this is the rule's bug), with what likely caused it. Callers raise it
    from their ``except`` clause without binding it to a name: a traceback holding the
    frame that holds it would keep the sweep's arrays until the cycle collector runs."""
    spec = node.spec
    if isinstance(exc, TypeError) and _miscalled(node, rule):
        params = "".join(f", {name}=..." for name in node.params)
        called = (
            f"rule(s, g, out, {', '.join(spec.inputs)}{params})" if spec.vjps else f"vjp(s, g, inputs, out{params})"
        )
        hint = f"Its rules are called as {called}"
    elif isinstance(exc, RuleError) and exc.unkept:
        unkept = [spec.inputs[index] for index in spec.drops] + ([] if spec.keeps_out else ["out"])
        hint = (
            f"{spec.name} keeps no value of {', '.join(map(repr, unkept))}: list each one its rules read in residuals"
        )
    else:
        hint = forward_hint(node, raised=True)
    return RuleError(
        f"the VJP of {spec.name} (plugin {spec.plugin!r}) failed: {exc}. {hint}",
        **rule_fields(spec),
        unkept=isinstance(exc, RuleError) and exc.unkept,
    )
