"""`Op`: one object per registered op, owning its run time.

An op is stated once, as an :class:`~tenferro.core.spec.OpSpec` (its kernel, its rules, what
its rules read). Its :class:`Op` is what runs it: calling it (:attr:`Op.call`, the function
each session class installs under the op's name, so ``s.mul.op`` is mul's Op), and applying
its rules to a recorded node, with every check of what a rule returned (:meth:`Op.vjp`,
:meth:`Op.input_vjp`, :meth:`Op.jvp`). The reverse sweep, forward mode and the conformance
suite all apply rules through these, so a rule's mistakes are found and said in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import call
from .eager import EagerTensor
from .errors import NotDifferentiable, RuleError
from .protocols import Session
from .rule_errors import cotangent_tuple, passes_through, reject_cotangent, rule_error, rule_fields
from .spec import OpSpec
from .tensor import TRACKED, Hollow, describe
from .trace import CALL, Node, result_node


class Op:
    """One op: its ``spec``, the function that calls it on a session (:attr:`call`), and
    the application of its derivative rules to the nodes it recorded.

    ``checks_shapes``: whether a call checks an elementwise op's result shape against its
    arguments' (every plugin but the families tenferro ships, whose shapes the conformance
    suite proves). ``Op(spec)(s, x, y)`` is ``s.mul(x, y)`` for mul's Op."""

    __slots__ = ("spec", "name", "checks_shapes", "call", "__weakref__")

    def __init__(self, spec: OpSpec, checks_shapes: bool = True):
        self.spec = spec
        self.name = spec.name
        self.checks_shapes = checks_shapes
        #: The session method: ``call(session, *args, **params)``.
        self.call = call.method(self)
        self.call.op = self

    def __call__(self, session: Session, *args: Any, **params: Any) -> Any:
        """Run the op on ``session`` (what ``session.<name>(*args, **params)`` does)."""
        return self.call(session, *args, **params)

    def __repr__(self) -> str:
        return f"<Op {self.name} of plugin {self.spec.plugin!r}>"

    # -- reverse mode --------------------------------------------------------------------
    def vjp(self, session: Session, node: Node, g: Any, needed: set[int] | None = None) -> list[EagerTensor | None]:
        """The cotangents ``node`` (recorded by this op) sends to its inputs, given the
        cotangent ``g`` of its result: one per input, None where no gradient is wanted or
        the derivative is zero. Each is checked (see :meth:`input_vjp`; a whole-op rule's
        are only checked, as such a rule unbroadcasts itself) or a RuleError names the op.

        Per-input rules are called only for inputs whose parent is wanted (``needed``
        holds the vertices that lead to a wanted variable inside ``rt.grad``); a whole-op
        rule is called once. For one result of an op with several, the call's rule runs
        with a cotangent for that result alone."""
        spec, rt = self.spec, session._rt
        if spec.vjp is None and spec.vjps is None:
            raise NotDifferentiable(
                f"op {spec.name} (plugin {spec.plugin!r}) has no VJP rule, so derivatives cannot "
                f"flow through it; compute it from constants or under rt.no_grad()",
                op=spec.name,
                plugin=spec.plugin,
            )
        if node.output is None:
            out = result_of(node, rt)
        else:  # an op with several results: its rule gets them all, and a cotangent for each
            if node.output != CALL:  # one result (as the conformance suite asks): the call's rule
                call_node = node.parents[0]
                g = tuple(g if index == node.output else None for index in range(len(call_node.value)))
                node = call_node
            out = stand_ins(node, rt)
        rules = spec.vjps
        if rules is not None:
            return [
                None
                if rule is None or parent is None or (needed is not None and id(parent) not in needed)
                else self.input_vjp(session, node, index, g, out)
                for index, (rule, parent) in enumerate(zip(rules, node.parents))
            ]
        try:
            returned = spec.vjp(session, g, node.inputs, out, **node.params)
            if type(returned) is not tuple and isinstance(returned, Iterator):  # a generator rule runs here
                returned = tuple(returned)
        except Exception as exc:
            if passes_through(exc):
                raise
            raise rule_error(node, exc, spec.vjp) from exc
        cotangents = list(cotangent_tuple(spec, returned, len(node.inputs)))
        for index, ct in enumerate(cotangents):  # a whole-op rule unbroadcasts itself: only check
            if ct is not None:
                arg = node.inputs[index]
                if type(ct) is not EagerTensor or ct._rt is not rt or isinstance(ct._value, Hollow):
                    reject_cotangent(node, index, arg, ct, rt)
                if ct._value.shape != arg._value.shape or ct._value.dtype != arg._value.dtype:
                    reject_cotangent(node, index, arg, ct, rt)
        return cotangents

    def input_vjp(self, session: Session, node: Node, index: int, g: Any, out: Any) -> EagerTensor | None:
        """What per-input rule ``index`` returns for cotangent ``g`` of result(s) ``out``
        (see :func:`result_of`), checked: None (zero), or an EagerTensor of this runtime
        with a value, of its input's shape and dtype (summed back first by the op's
        ``unbroadcast`` when it broadcasts); else a RuleError names the op. What the rule
        raises is wrapped in one too, unless it already says what is wrong (see
        :func:`~tenferro.core.rule_errors.passes_through`). The sweep calls this for each
        input of most nodes."""
        inputs, params = node.inputs, node.params
        rule = self.spec.vjps[index]  # type: ignore[index]
        try:
            ct = rule(session, g, out, *inputs, **params) if params else rule(session, g, out, *inputs)
        except Exception as exc:
            if passes_through(exc):
                raise
            raise rule_error(node, exc, rule) from exc
        if ct is not None:
            value = ct._value if type(ct) is EagerTensor else None
            arg = inputs[index]._value
            if (
                type(value) is not np.ndarray
                or ct._rt is not session._rt
                or value.shape != arg.shape
                or value.dtype != arg.dtype
            ):
                ct = self._unbroadcast(session, node, index, inputs[index], ct)
        return ct

    def _unbroadcast(self, session: Session, node: Node, index: int, arg: EagerTensor, ct: Any) -> EagerTensor:
        """A per-input rule's cotangent that is not a tensor of its input's shape and dtype:
        summed back by the op's ``unbroadcast`` when it broadcasts (its only call, so ops
        that did not broadcast pay nothing), else the RuleError saying what is wrong. A
        cotangent held as another engine's array (a dask array) of the right type is fine."""
        spec, rt = self.spec, session._rt
        if type(ct) is not EagerTensor or ct._rt is not rt or isinstance(ct._value, Hollow):
            reject_cotangent(node, index, arg, ct, rt)
        if ct.shape == arg.shape and ct.dtype == arg.dtype:
            return ct
        if spec.unbroadcast is not None:
            try:
                ct = spec.unbroadcast(session, ct, arg)
            except Exception as exc:
                raise RuleError(
                    f"the VJP of {spec.name} (plugin {spec.plugin!r}) failed to unbroadcast: {exc}",
                    **rule_fields(spec, index),
                ) from exc
            if type(ct) is EagerTensor and ct.shape == arg.shape and ct.dtype == arg.dtype:
                return ct
        reject_cotangent(node, index, arg, ct, rt)
        return ct  # not reached: reject_cotangent raises

    # -- forward mode --------------------------------------------------------------------
    def jvp(
        self,
        session: Session,
        node: Node,
        tangents: list[Any],
        read: set[int] | None = None,
        transposed: Callable[[Session, Node, list[Any]], Any] | None = None,
    ) -> Any:
        """The tangent of ``node``'s result given one tangent per input (None for zero):
        from the op's ``jvp`` rule, else from ``transposed(session, node, tangents)`` (forward
        mode transposes the VJP); checked (an EagerTensor of this runtime of the result's
        shape and dtype, or None) or a RuleError names the op. For a call node, a tuple with
        one entry per result; ``read``, the indices of the results whose tangent is used
        (None: all), is what the rule's ``s.wants_tangent(result)`` answers (eigh's rule
        computes no eigenvector tangent nobody reads, so a degenerate spectrum does not stop
        it)."""
        spec, rt = self.spec, session._rt
        if not spec.has_rules or (spec.jvp is None and transposed is None):
            raise NotDifferentiable(
                f"op {spec.name} (plugin {spec.plugin!r}) has no derivative rule, so tangents cannot flow "
                f"through it; compute it from constants",
                op=spec.name,
                plugin=spec.plugin,
            )
        out = stand_ins(node, rt) if node.output == CALL else result_of(node, rt)
        reads = session._reads
        if read is not None:
            session._reads = (out, read)
        try:
            if spec.jvp is None:
                returned = transposed(session, node, tangents)  # type: ignore[misc]
            elif node.params:
                returned = spec.jvp(session, tangents, node.inputs, out, **node.params)
            else:
                returned = spec.jvp(session, tangents, node.inputs, out)
        except Exception as exc:
            if passes_through(exc):  # (this op's VJP, transposed, names it already)
                raise
            raise RuleError(
                f"the JVP of {spec.name} (plugin {spec.plugin!r}) failed: {exc}",
                **rule_fields(spec, rule="jvp"),
                unkept=isinstance(exc, RuleError) and exc.unkept,
            ) from exc
        finally:
            session._reads = reads
        if node.output == CALL:
            if not isinstance(returned, (tuple, list)) or len(returned) != len(node.value):
                raise RuleError(
                    f"the JVP of {spec.name} (plugin {spec.plugin!r}) returned {type(returned).__name__}; an op "
                    f"with several results returns a tuple with one tangent per result (None for zero)",
                    **rule_fields(spec, rule="jvp"),
                )
            return tuple(self._checked_tangent(t, r, rt) for t, r in zip(returned, node.value))
        return self._checked_tangent(returned, node, rt)

    def _checked_tangent(self, tangent: Any, result: Any, rt: Any) -> Any:
        if tangent is None:
            return None
        if result.dtype not in TRACKED:  # an integer result of a call carries no tangent
            return None
        if (
            type(tangent) is not EagerTensor
            or tangent._rt is not rt
            or isinstance(tangent._value, Hollow)
            or tangent.shape != result.shape
            or tangent.dtype != result.dtype
        ):
            if type(tangent) is not EagerTensor:
                shown = f"a {type(tangent).__name__}"
            elif tangent._rt is not rt:
                shown = f"{tangent.describe()} of another runtime"
            elif isinstance(tangent._value, Hollow):
                shown = f"{tangent.describe()} whose value the trace did not keep"
            else:
                shown = f"{tangent.describe()} of type {describe(tangent.shape, tangent.dtype)}"
            spec = self.spec
            raise RuleError(
                f"the JVP of {spec.name} (plugin {spec.plugin!r}) returned {shown}; a tangent must be None or an "
                f"EagerTensor of the result's type {describe(result.shape, result.dtype)}, made with the session's "
                f"ops (tenferro.extend.tangent_sum(s, terms, out) adds terms and broadcasts and casts them to it)",
                **rule_fields(spec, rule="jvp"),
                unkept=type(tangent) is EagerTensor and isinstance(tangent._value, Hollow),
            )
        return tangent


def result_of(node: Node, rt: Any) -> Any:
    """A node's result as its op's rules see it: its tensor, recorded from the node (so a
    rule that reads it stays differentiable), or, where the trace did not keep its value,
    the node itself (its shape and dtype): an EagerTensor per node would cost a tenth of
    the sweep."""
    return node if node.value is None else EagerTensor(node.value, rt, node)


def stand_ins(call_node: Node, rt: Any) -> tuple[Any, ...]:
    """The results of a call as its rules see them, one per result: each its tensor,
    recorded from a result node of its own, or that node where the trace did not keep the
    value; a constant result as it is."""
    return tuple(_stand_in(call_node, index, rt) for index in range(len(call_node.value)))


def _stand_in(call_node: Node, index: int, rt: Any) -> Any:
    stand_in = call_node.value[index]
    if type(stand_in) is EagerTensor:
        return stand_in
    return result_of(result_node(call_node, index), rt)
