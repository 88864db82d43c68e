"""``tf.checkpoint``: a function whose intermediate values are not kept for the backward
pass but computed again there (``jax.checkpoint``, ``torch.utils.checkpoint``).

A checkpointed call is one op of its own, made like a custom function's (``_custom.py``):
never registered, its one input the list of the arguments' tracked leaves, its results
the output's leaves, its param a :class:`_Saved` holding the arguments as they were
given. The call runs ``fun`` on the arguments' values as constants, so nothing inside
``fun`` is recorded and the trace keeps only the inputs. The op's rules run ``fun`` again
under a transform's :class:`~._call.Call`: the VJP sweeps that recomputation back from
the output's cotangent, the JVP pushes the input tangents through it. Since ``Call``
records where the enclosing sweep or push does (``rt.grad``, an HVP), the recomputation
is differentiated again by an outer derivative, and a checkpoint inside a checkpointed
function is met again by the recomputation, as in JAX.

With a ``policy`` (``checkpoint_policies.py``) both runs are on a session of a
:class:`_Keeping` engine, which sees each op's kernel: the first run keeps the results of
the ops the policy names, and the recomputation's calls of those ops return them, in order,
instead of computing (the other ops run again, and every op is recorded as before).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.core.arguments import shown
from tenferro.core.eager import EagerTensor, held, vertex
from tenferro.core.engine import Engine
from tenferro.core.errors import ArgumentError, RuleError
from tenferro.core.recording import paused
from tenferro.core.rule_errors import passes_through
from tenferro.core.tensor import describe, freeze
from tenferro.core.tracing import TRACING

from ._call import Call
from ._custom import _array, _session, run_time_op
from ._trees import flatten, unflatten, where_in
from .checkpoint_policies import Policy, nothing_saveable

__all__ = ["checkpoint"]


class _Saved:
    """What one checkpointed call keeps for its rules (the node's ``rule`` param): the
    flat leaves of ``(args, kwargs)`` as given, their structure, which of them are the
    op's inputs (``tracked``), and the output's structure, shapes and dtypes, against
    which the recomputation is checked. ``values``, the output's values, is held only
    until the op's kernel has returned them."""

    __slots__ = ("leaves", "spec", "tracked", "out_spec", "outs", "values", "random_state", "engine")

    def __init__(self, leaves: list[Any], spec: Any, tracked: list[int], engine: _Keeping | None):
        self.leaves, self.spec, self.tracked = leaves, spec, tracked
        #: The engine that kept the results the policy names (None: no policy).
        self.engine = engine
        #: NumPy's global random state before the first run, replayed around the
        #: recomputation (as torch's preserve_rng_state): the same draws, so the same numbers.
        self.random_state = np.random.get_state()
        self.out_spec: Any = None
        self.outs: list[tuple[tuple[int, ...], Any]] = []
        self.values: tuple[Any, ...] = ()

    def __repr__(self) -> str:  # how trace listings show the param: ``f[rule=checkpoint]``
        return "checkpoint"


class _Keeping(Engine):
    """The engine a checkpoint with a policy runs its function on, twice (see the module
    doc): a kernel of an op the policy names keeps its result in the first run (``mode``
    "keep") and gives it back in each recomputation ("give"), which must call the same ops
    on arguments of the same shapes, in the same order (else a RuleError: the function is
    not the same twice); the derivative rules, which run on it too, compute ("pass")."""

    __slots__ = ("policy", "function", "kept", "mode", "position")
    native = False

    def __init__(self, policy: Policy, function: str):
        super().__init__("checkpoint")
        self.policy, self.function = policy, function
        self.kept: list[tuple[Any, tuple[Any, ...], Any]] = []  # per kept call: its op, arguments, result
        self.mode = "keep"
        self.position = 0  # the next kept call the recomputation meets

    def kernel(self, spec: Any) -> Any:
        # (an internal op, alias, is the recomputation's own: the first run had none to keep)
        return self._keeper(spec) if not spec.internal and self.policy(spec) else spec.forward

    def _keeper(self, op: Any) -> Any:
        forward = op.forward

        def kernel(*values: Any, **params: Any) -> Any:
            if self.mode == "pass":
                return forward(*values, **params)
            arguments = _described(values)
            if self.mode == "keep":
                out = forward(*values, **params)
                self.kept.append((op, arguments, out))
                return out
            if self.position < len(self.kept):
                kept_op, kept_arguments, out = self.kept[self.position]
                if kept_op is op and kept_arguments == arguments:
                    self.position += 1
                    return out
            raise self.differs(f"called {op.name} on {arguments}")

        return kernel

    def differs(self, what: str) -> RuleError:
        first = self.kept[self.position] if self.position < len(self.kept) else None
        expected = f"{first[0].name} on {first[1]}" if first else "no more of the ops its policy keeps"
        return RuleError(
            f"checkpoint({self.function}): run again for its derivative, the function {what} where its first run "
            f"called {expected}; with a policy, a checkpointed function must call the same ops on arguments of the "
            f"same shapes in the same order each time (draw random numbers outside it)",
            op=self.function,
            plugin="checkpoint",
            rule="vjp",
        )


def _described(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """A kernel's arguments as a kept call compares them: each array's shape and dtype (a
    variadic op's list item by item), other values as they are."""
    return tuple(
        _described(tuple(v)) if isinstance(v, (list, tuple)) else (v.shape, v.dtype) if hasattr(v, "dtype") else v
        for v in values
    )


def _kernel(items: list[Any], rule: _Saved) -> tuple[Any, ...]:
    """The op's kernel: the output's values, computed when the call ran ``fun``."""
    values, rule.values = rule.values, ()
    return values


class _Checkpointed:
    """``fun`` checkpointed (see :func:`checkpoint`): its op, and the call that records it."""

    def __init__(self, fun: Callable[..., Any], policy: Policy | None = None):
        self.fun = fun
        self.policy = None if policy is nothing_saveable else policy
        self.name = getattr(fun, "__name__", type(fun).__name__)
        functools.update_wrapper(self, fun)
        # the inputs are tracked leaves: floating point
        self.op = run_time_op(
            self.name, "checkpoint", _kernel, "fc", f"checkpoint of {self.name}.", vjp=self._vjp, jvp=self._jvp
        )

    def __repr__(self) -> str:
        return f"<checkpoint of {self.name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves, spec = flatten((args, kwargs))
        tracked = [
            i
            for i, leaf in enumerate(leaves)
            if type(leaf) is EagerTensor and vertex(leaf) is not None and leaf.runtime not in paused()
        ]
        if not tracked or TRACING.get() is not None:
            # Nothing to differentiate here, or a trace (tf.vmap's, tf.jit's), whose replay runs
            # the ops it recorded on other values: fun runs as it is, recorded where it records
            # (a checkpoint op in the trace would recompute from the traced call's arguments).
            return self.fun(*args, **kwargs)
        rt = leaves[tracked[0]].runtime
        constants = list(leaves)
        for i in tracked:
            if leaves[i].runtime is not rt:
                raise ArgumentError(
                    f"checkpoint({self.name}): {self._where(args, kwargs, i)} belongs to another runtime than the "
                    f"other arguments; tensors of two runtimes cannot be mixed"
                )
            constants[i] = EagerTensor(held(leaves[i]), rt)  # its value, recording nothing
        c_args, c_kwargs = unflatten(spec, constants)
        # A NumPy argument the caller may write into before the backward pass: the
        # recomputation must see the values the first run saw, as every unchecked op does.
        kept = [freeze(leaf.copy()) if type(leaf) is np.ndarray and leaf.flags.writeable else leaf for leaf in leaves]
        engine = self._keeping(rt)
        saved = _Saved(kept, spec, tracked, engine)
        if engine is None:
            out = self.fun(*c_args, **c_kwargs)
        else:
            with rt.eager_session(engine):
                out = self.fun(*c_args, **c_kwargs)
            engine.mode = "pass"
        outs, saved.out_spec = flatten(out)
        if not outs:
            return out
        values = []
        for index, leaf in enumerate(outs):
            what = lambda index=index: where_in(f"checkpoint({self.name})", "its output", out, index)  # noqa: E731
            if type(leaf) is EagerTensor:
                if vertex(leaf) is not None:
                    raise ArgumentError(
                        f"checkpoint({self.name}): {what()} is computed from a tensor that tracks gradients and is "
                        f"not one of the function's arguments (a closure); tf.checkpoint recomputes the function "
                        f"from its arguments only, so that derivative would be lost: pass the value as an argument"
                    )
                if leaf.runtime is not rt:
                    raise ArgumentError(
                        f"checkpoint({self.name}): {what()} belongs to another runtime than the arguments"
                    )
                values.append(held(leaf))
            else:
                values.append(_array(leaf, lambda what=what: f"checkpoint({self.name}): fun returned as {what()}"))
        saved.values = tuple(values)
        saved.outs = [(v.shape, v.dtype) for v in values]
        items = [leaves[i] for i in tracked]
        return unflatten(saved.out_spec, self.op(_session(rt), items, saved))

    def _keeping(self, rt: Any) -> _Keeping | None:
        """The engine that keeps what the policy names, for one call; None where there is no
        policy, and on another engine than NumPy's (a DaskEngine keeps nothing: the function
        runs again whole)."""
        if self.policy is None or not rt.current_session().native:
            return None
        return _Keeping(self.policy, self.name)

    def _where(self, args: Any, kwargs: Any, index: int) -> str:
        return where_in(f"checkpoint({self.name})", "the arguments", (args, kwargs), index)

    # -- the rules: fun again, on the saved inputs ------------------------------------------
    def _again(self, saved: _Saved) -> Call:
        """``fun`` run again on the saved arguments, under a transform's call with respect to
        the tracked leaves (recorded where the enclosing sweep or push records), its
        output checked against the first run's."""

        def again(*tracked: Any) -> Any:
            leaves = list(saved.leaves)
            for i, leaf in zip(saved.tracked, tracked):
                leaves[i] = leaf
            args, kwargs = unflatten(saved.spec, leaves)
            return self.fun(*args, **kwargs)

        again.__name__ = self.name
        tracked = tuple(saved.leaves[i] for i in saved.tracked)
        current = np.random.get_state()
        np.random.set_state(saved.random_state)
        engine = saved.engine
        if engine is not None:  # each recomputation (the VJP's, the JVP's) takes the kept results again
            engine.mode, engine.position = "give", 0
        try:
            call = Call(f"checkpoint({self.name})", again, tracked, tuple(range(len(tracked))), engine)
        finally:
            np.random.set_state(current)
            if engine is not None:
                engine.mode = "pass"
        if engine is not None and engine.position != len(engine.kept):
            raise engine.differs("called no more of the ops its policy keeps")
        got = [(tuple(o.shape), o.dtype) for o in call.outputs]
        if call.out_spec != saved.out_spec or got != saved.outs:
            shown_got = ", ".join(describe(s, d) for s, d in got)
            shown_first = ", ".join(describe(s, d) for s, d in saved.outs)
            raise RuleError(
                f"checkpoint({self.name}): run again for its derivative, the function returned {call.out_spec} of "
                f"[{shown_got}], where its first run returned {saved.out_spec} of [{shown_first}]; a checkpointed "
                f"function must compute the same output from the same arguments (draw random numbers outside it)",
                op=self.name,
                plugin="checkpoint",
                rule="vjp",
            )
        return call

    def _recomputed(self, saved: _Saved, rule: str) -> Call:
        """:meth:`_again`, with what ``fun`` raised while recomputing said as that (a
        RuleError naming the checkpoint, the original as its cause), not as a fault of a
        kernel or of a derivative rule."""
        try:
            return self._again(saved)
        except Exception as exc:
            if passes_through(exc):
                raise
            raise RuleError(
                f"checkpoint({self.name}): running the function again for its derivative raised {exc!r}; a "
                f"checkpointed function must run again on the same arguments as it ran the first time (inside "
                f"it, as inside any transform, a value computed from its arguments cannot be read as a NumPy "
                f"array or Python number)",
                op=self.name,
                plugin="checkpoint",
                rule=rule,
            ) from exc

    def _vjp(self, s: Any, g: tuple[Any, ...], inputs: Any, out: Any, rule: _Saved) -> list[Any]:
        """The op's VJP: ``fun`` recomputed, swept back from the cotangents that flow."""
        call = self._recomputed(rule, "vjp")
        return call.pull([(o, ct) for o, ct in zip(call.outputs, g) if ct is not None])

    def _jvp(self, s: Any, tangents: list[Any], inputs: Any, out: Any, rule: _Saved) -> tuple[Any, ...]:
        """The op's JVP: ``fun`` recomputed, the input tangents pushed through it."""
        call = self._recomputed(rule, "jvp")
        return tuple(call.push(call.plan(), tangents))


def checkpoint(fun: Callable[..., Any], *, policy: Any = None) -> Callable[..., Any]:
    """``fun`` whose intermediate values are not kept for derivatives but computed again when
    a derivative reaches them, as ``jax.checkpoint`` (``torch.utils.checkpoint``): memory
    traded for time. Called with arguments that track gradients, it runs ``fun`` recording
    nothing inside it and keeps its arguments only; a backward pass (or any transform)
    that reaches the call runs ``fun`` again on them and differentiates that, with the same
    kernels in the same order, so the numbers are bitwise those of ``fun`` unchecked.
    Arguments and outputs are pytrees; a derivative with respect to a tensor ``fun``
    closes over is refused (pass it as an argument). ``policy`` (``tf.checkpoint_policies``,
    or any ``policy(op) -> bool``): the ops whose results the first run keeps, so that the
    recomputation takes them instead of computing them (None: none).
    See docs/transforms.md, "Checkpointing"."""
    if not callable(fun):
        raise ArgumentError(f"tf.checkpoint: fun must be the callable to checkpoint, got {shown(fun)}")
    if policy is not None and not callable(policy):
        raise ArgumentError(
            f"tf.checkpoint: policy must be None or a callable policy(op) -> bool such as "
            f"tf.checkpoint_policies.dots_saveable, got {shown(policy)}"
        )
    return _Checkpointed(fun, policy)
