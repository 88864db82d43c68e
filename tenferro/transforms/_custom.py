"""User-defined derivative rules: ``tf.custom_vjp`` and ``tf.custom_jvp``, JAX's API.

A custom function is an op of its own that no registry holds: one
:class:`~tenferro.core.spec.OpSpec` and its :class:`~tenferro.core.op.Op` per function,
called on the current session when an argument carries a derivative. Its one input is
the list of the arguments' tracked leaves (variadic), its results are the output's
leaves (multiple results), and what one call leaves for the rules (the residuals, the
non-differentiable arguments, the pytree structures) is the node's one param, a
:class:`_Call`. So the sweep, forward mode and every transform meet it as they meet any
op, and a definition made at any time works at once.

- ``custom_vjp``: the call runs ``fwd`` recorded, so the residuals are functions of the
  primal inputs (JAX's semantics: ``bwd`` written with ``tenferro.numpy`` ops is
  differentiated again by an outer derivative). Forward mode is refused, as JAX refuses
  ``jvp`` of a custom_vjp function: transposing ``bwd`` is right only where it is linear
  in ``g``, and a rule such as ``clip_gradient``'s is not, so it would be a silent wrong
  number.
- ``custom_jvp``: the call runs the function itself; forward mode calls the rule, and
  reverse mode transposes it: the rule recorded on tangent variables of its own is linear
  in them, so sweeping it back from the output's cotangent gives the input's (the mirror
  of how ``core/forward.py`` transposes a VJP).

Under a trace (``tf.jit``'s, ``tf.vmap``'s) a call of either is a node of the function's
``traced_op`` instead, whose inputs are also the output and what the rules read (``fwd``'s
residuals, the custom_jvp's primals), so that a replay computes them and the rules read
them from the node.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np
import optree

from tenferro import batching
from tenferro.core.arguments import shown
from tenferro.core.eager import EagerTensor, computing_rule, has_value, held, vertex
from tenferro.core.errors import ArgumentError, NotDifferentiable, RuleError
from tenferro.core.graph import depends_on, leading_to, reachable
from tenferro.core.op import Op
from tenferro.core.recording import paused, recording
from tenferro.core.rule_errors import passes_through
from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import REQUIRED, OpSpec
from tenferro.core.sweep import reverse_sweep
from tenferro.core.tensor import TRACKED, Tensor, describe, seal
from tenferro.core.trace import SEQUENCE, Node
from tenferro.core.tracing import TRACING

from ._replay import same
from ._trees import NUMBERS, flatten, unflatten, where_in

__all__ = ["custom_jvp", "custom_vjp"]


#: The custom_vjp functions whose ``fwd`` is running in this context: a call of one of them
#: there (``def f_fwd(x): return f(x), res``, JAX's idiom) runs the function itself.
_IN_FWD: ContextVar[tuple[Any, ...]] = ContextVar("tenferro_custom_fwd", default=())


def _session(rt: EagerRuntime) -> Any:
    """The session a custom function's op runs on: the one open in this thread, else the
    runtime's implicit one (the one place this module asks for it)."""
    return rt.current_session()


class _Like:
    """A differentiable argument's leaf as its cotangent or tangent must be: its shape and
    dtype, and whether it is a Python number (weakly typed, as in JAX)."""

    __slots__ = ("shape", "dtype", "weak")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, weak: bool):
        self.shape, self.dtype, self.weak = shape, dtype, weak

    def zeros(self, rt: EagerRuntime) -> EagerTensor:
        return EagerTensor(seal(np.zeros(self.shape, self.dtype)), rt)


class _Call:
    """What one call of a custom function leaves for its rules (the node's ``rule`` param):
    the non-differentiable arguments, the differentiable ones (custom_jvp) or the
    residuals (custom_vjp), the structures of both sides, each leaf's shape and dtype,
    which leaves are the op's inputs (``tracked``, flat indices), and the output's
    values (what the op's kernel returns)."""

    __slots__ = (
        "kind",
        "nondiff",
        "positions",
        "primals",
        "residuals",
        "in_specs",
        "likes",
        "tracked",
        "out_spec",
        "values",
        "traced",
    )

    def __init__(self, kind: str, nondiff: tuple[Any, ...], positions: tuple[int, ...], in_specs: list[Any]):
        self.kind = kind
        self.nondiff = nondiff
        self.positions = positions  # of the differentiable arguments among all
        self.in_specs = in_specs
        self.likes: list[_Like] = []
        self.primals: tuple[Any, ...] = ()
        self.residuals: Any = None
        self.tracked: list[int] = []
        self.out_spec: Any = None
        self.values: tuple[Any, ...] = ()
        #: Under a trace (the traced op): the leaves of what the rules read (the residuals,
        #: the custom_jvp's primals; their tensors are the node's inputs), their structure,
        #: and how many output leaves come before them among the inputs.
        self.traced: tuple[list[Any], Any, int] | None = None

    def __repr__(self) -> str:  # how trace listings show the param: ``f[rule=custom_vjp]``
        return self.kind

    def __eq__(self, other: object) -> bool:
        """Whether two traced calls are the same call of a program (``tf.vmap`` compares its
        two traces): the same structures, shapes, tracked leaves and kept values (their
        tensors are the node's inputs, which the trace compares by themselves). An eager
        call holds its run's values, so it is only itself."""
        if self is other:
            return True
        if type(other) is not _Call or self.traced is None or other.traced is None:
            return False
        (mine, my_spec, my_count), (theirs, their_spec, their_count) = self.traced, other.traced
        return (
            (self.kind, self.positions, self.tracked, self.in_specs, self.out_spec, my_spec, my_count)
            == (other.kind, other.positions, other.tracked, other.in_specs, other.out_spec, their_spec, their_count)
            and [(x.shape, x.dtype, x.weak) for x in self.likes] == [(x.shape, x.dtype, x.weak) for x in other.likes]
            and same(self.nondiff, other.nondiff)
            and same(*([None if type(x) is EagerTensor else x for x in kept] for kept in (mine, theirs)))
        )

    def __hash__(self) -> int:  # (consistent with ==)
        return hash((self.kind, self.positions, len(self.tracked)))

    def argument_leaf(self, index: int) -> str:
        """How an error names flat leaf ``index`` of the differentiable arguments:
        ``argument 1 at ['w']``."""
        for position, spec in zip(self.positions, self.in_specs):
            if index < spec.num_leaves:
                return _leaf_name(f"argument {position}", spec, index)
            index -= spec.num_leaves
        return f"leaf {index}"  # not reached: every index is some argument's

    def trees(self, flat: Sequence[Any]) -> tuple[Any, ...]:
        """One tree per differentiable argument from one entry per leaf."""
        trees, start = [], 0
        for spec in self.in_specs:
            trees.append(unflatten(spec, flat[start : start + spec.num_leaves]))
            start += spec.num_leaves
        return tuple(trees)


def _kernel(items: list[Any], rule: _Call) -> tuple[Any, ...]:
    """The op's kernel: the output's values, computed when the call ran ``fwd`` (or ``fun``)."""
    return rule.values


def _given_back(items: list[Any], rule: _Call) -> tuple[Any, ...]:
    """The traced op's kernel: its output leaves, the inputs after the tracked leaves."""
    start = len(rule.tracked)
    return tuple(items[start : start + rule.traced[2]])  # type: ignore[index]


def _per_example(s: Any, call: Callable[..., Any], args: Any, batched: Any, rule: _Call) -> tuple[Any, ...]:
    """The traced op's batching rule: its rules are the user's, written for one example, so
    where a derivative may be taken through the call each example's output is given back
    by a node of its own; where nothing it is given tracks one (``tf.vmap(tf.grad(f))``:
    the rules ran in the trace), the batch of outputs is given back at once."""
    if any(type(x) is EagerTensor and vertex(x) is not None for x in args):
        return batching.per_example(s, call, args, batched, multiple_results=True)
    size = next(x.shape[0] for x, flag in zip(args, batched) if flag)
    start = len(rule.tracked)
    given = zip(args[start : start + rule.traced[2]], batched[start:])  # type: ignore[index]
    return tuple(x if flag else s.broadcast_to(x, (size, *x.shape)) for x, flag in given)


def run_time_op(
    name: str, plugin: str, kernel: Callable[..., Any], accepts: str, doc: str, replayable: bool = False, **rules: Any
) -> Op:
    """The op of one function made at run time (a custom function, a checkpoint), never
    registered: its one input the list of a call's tracked leaves, its param ``rule`` the
    call's record (what its rules read), its results the output's leaves (an integer one a
    constant, as any op's). ``replayable``: its kernel computes from its inputs alone (see
    ``OpSpec.replayable``), and its rules read them, so its node keeps them."""
    return Op(
        OpSpec(
            name=name,
            inputs=("args",),
            forward=kernel,
            params={"rule": REQUIRED},
            accepts=accepts,
            residuals=None if replayable else (),  # (else what the rules read is in the call's param)
            variadic=True,
            multiple_results=True,
            integer_results=True,
            replayable=replayable,
            plugin=plugin,
            doc=doc,
            **rules,
        )
    )


class _Custom:
    """What ``custom_vjp`` and ``custom_jvp`` share: the function, its non-differentiable
    arguments, its op, and the call that records a node of it (see the module doc)."""

    kind = ""

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()):
        if not callable(fun):
            raise ArgumentError(
                f"tf.{self.kind}: fun must be the callable whose derivative the rules give, got {shown(fun)}"
            )
        self.fun = fun
        self.name = getattr(fun, "__name__", type(fun).__name__)
        self.nondiff_argnums = _nondiff_argnums(nondiff_argnums, fun, f"tf.{self.kind}({self.name})")
        functools.update_wrapper(self, fun)
        self._signature = _signature(fun)
        doc = f"{self.kind} function {self.name}."
        self.op = run_time_op(self.name, self.kind, _kernel, "biufc", doc, vjp=self._vjp, jvp=self._jvp)
        #: The op of a call under a trace (see :meth:`_traced`): the output leaves given back.
        self.traced_op = run_time_op(
            self.name,
            self.kind,
            _given_back,
            "biufc",
            f"{self.kind} function {self.name}, traced.",
            replayable=True,
            vjp=self._traced_vjp,
            jvp=self._traced_jvp,
            returns_view=True,
            batch=_per_example,
        )

    def __repr__(self) -> str:
        return f"<{self.kind} function {self.name}>"

    def _error(self, rule: str, message: str) -> RuleError:
        """A RuleError about this function's ``rule`` (``"vjp"``, ``"jvp"``; ``""`` for what
        ``fwd`` or the function returned), with its fields: the function as the op, the
        kind as its plugin."""
        return RuleError(message, op=self.name, plugin=self.kind, rule=rule or None)

    # -- the call ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_defined()
        if kwargs:
            args = self._positional(args, kwargs)
        nondiff = self.nondiff_argnums
        for n in nondiff:
            if n >= len(args):
                raise ArgumentError(
                    f"{self.name}: nondiff_argnums names argument {n}, but the call has {len(args)} positional "
                    f"argument(s); pass it, or fix nondiff_argnums of tf.{self.kind}"
                )
        flat = [(n, flatten(arg)) for n, arg in enumerate(args) if n not in nondiff]  # per differentiable argument
        rt = None
        for _, (leaves, _) in flat:
            for leaf in leaves:
                if type(leaf) is EagerTensor and vertex(leaf) is not None and leaf.runtime not in paused():
                    rt = leaf.runtime
                    break
        for n in nondiff:
            for leaf in optree.tree_leaves(args[n]):
                if type(leaf) is EagerTensor and vertex(leaf) is not None and leaf.runtime not in paused():
                    raise ArgumentError(
                        f"{self.name}: argument {n} is in nondiff_argnums but holds a tensor that tracks gradients, "
                        f"whose derivative the rules could not give; pass it as a differentiable argument (the rule "
                        f"may give None for it) or pass tf.stop_gradient of it (as JAX refuses a tracer there)"
                    )
        if rt is None or self in _IN_FWD.get():  # nothing carries a derivative, or inside its own fwd
            return self.fun(*args)
        call, items = self._call(args, flat)
        return self._differentiated(rt, args, call, items)

    def _differentiated(self, rt: EagerRuntime, args: tuple[Any, ...], call: _Call, items: list[EagerTensor]) -> Any:
        raise NotImplementedError  # each kind's own

    def _check_defined(self) -> None:
        raise NotImplementedError  # each kind's own

    def _positional(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Keyword arguments as positional ones, by the function's signature (JAX resolves
        them so too: the rules take the arguments positionally)."""
        try:
            if self._signature is None:
                raise TypeError("its signature cannot be read")
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentError(f"{self.name}: the arguments do not fit its signature: {exc}") from None
        bound.apply_defaults()
        if bound.kwargs:
            raise ArgumentError(
                f"{self.name}: keyword-only argument(s) {', '.join(map(repr, bound.kwargs))} cannot be given to its "
                f"rules positionally; make them positional parameters of the function"
            )
        return tuple(bound.args)

    def _call(self, args: tuple[Any, ...], flat: list[tuple[int, Any]]) -> tuple[_Call, list[EagerTensor]]:
        """The record of one call (the structure of each differentiable argument, the shape
        and dtype of each leaf: an ArgumentError for a leaf that is no array), and the
        tracked leaves, the op's inputs."""
        nondiff = tuple(args[n] for n in self.nondiff_argnums)
        call = _Call(self.kind, nondiff, tuple(n for n, _ in flat), [spec for _, (_, spec) in flat])
        items, index = [], 0
        for position, (leaves, _) in flat:
            for i, leaf in enumerate(leaves):
                call.likes.append(_like(leaf, lambda i=i, p=position: where_in(self.name, f"argument {p}", args[p], i)))
                if type(leaf) is EagerTensor and vertex(leaf) is not None:
                    call.tracked.append(index)
                    items.append(leaf)
                index += 1
        return call, items

    def _record(self, rt: EagerRuntime, call: _Call, items: list[EagerTensor], out: Any, made_by: str) -> Any:
        """The output of one call as results of the function's op, recorded on the current
        session from the tracked leaves ``items``; ``made_by`` names what computed ``out``."""
        leaves, out_spec = flatten(out)
        if not leaves:  # nothing to differentiate
            return out
        values = []
        for index, leaf in enumerate(leaves):
            if type(leaf) is EagerTensor:
                if leaf.runtime is not rt:
                    raise self._error(
                        "",
                        f"{made_by} returned, as {where_in(self.name, 'its output', out, index)}, a tensor of another "
                        f"runtime than the arguments'",
                    )
                values.append(held(leaf))
            else:
                values.append(
                    _array(
                        leaf,
                        lambda index=index: f"{made_by} returned as {where_in(self.name, 'its output', out, index)}",
                    )
                )
        _check_closure(leaves, items, made_by)
        call.out_spec, call.values = out_spec, tuple(values)
        return unflatten(out_spec, self.op(_session(rt), items, call))  # (the param positionally: no binding)

    def _traced(
        self, rt: EagerRuntime, call: _Call, items: list[EagerTensor], out: Any, made_by: str, kept: Any
    ) -> Any:
        """A call under a trace (``tf.jit``'s, ``tf.vmap``'s): one node of the function's
        traced op, whose inputs are the tracked leaves, then the output leaves and the
        tensors of ``kept``, what the rules read (custom_vjp: the residuals; custom_jvp:
        the primals), all recorded by the ops that computed them, so that a replay computes
        them from each call's values and the rules read them from the node (:meth:`_kept`);
        the op's own node would hand back the trace's values (see ``OpSpec.replayable``)."""
        leaves, call.out_spec = flatten(out)
        if not leaves:  # nothing to differentiate
            return out
        outs = [
            leaf if type(leaf) is EagerTensor else EagerTensor(_array(leaf, lambda: f"{made_by} returned as"), rt)
            for leaf in leaves
        ]
        if any(x.runtime is not rt for x in outs):
            raise self._error("", f"{made_by} returned a tensor of another runtime than the arguments'")
        _check_closure(outs, items, made_by)
        kept_leaves, spec = flatten(kept)
        call.traced = (kept_leaves, spec, len(outs))  # (the node holds the tensors)
        tensors = [x for x in kept_leaves if type(x) is EagerTensor]
        results = self.traced_op(_session(rt), [*items, *outs, *tensors], call)
        return unflatten(call.out_spec, results)

    @staticmethod
    def _kept(rule: _Call, inputs: Sequence[Any]) -> Any:
        """What a traced call kept for its rules, its tensors the node's inputs."""
        leaves, spec, count = rule.traced  # type: ignore[misc]
        given = iter(inputs[len(rule.tracked) + count :])
        return unflatten(spec, [next(given) if type(x) is EagerTensor else x for x in leaves])

    def _traced_vjp(self, s: Any, g: tuple[Any, ...], inputs: Any, out: Any, rule: _Call) -> list[Any]:
        raise NotImplementedError  # each kind's own

    def _traced_jvp(self, s: Any, tangents: list[Any], inputs: Any, out: Any, rule: _Call) -> tuple[Any, ...]:
        raise NotImplementedError  # each kind's own

    # -- what the rules return -----------------------------------------------------------------
    def _leaves(
        self,
        returned: Any,
        specs: Sequence[Any],
        likes: Sequence[_Like],
        rt: EagerRuntime,
        said: Any,
        name_of: Callable[[int], str],
    ) -> list[Any]:
        """Per leaf of ``specs``, the tensor a rule returned in ``returned`` (one tree per spec,
        None for zeros), checked: None, or an EagerTensor of the leaf's shape and dtype (a
        NumPy array or a Python number becomes a constant). ``said(what)`` is the RuleError,
        ``name_of(index)`` how it names a leaf."""
        flat: list[Any] = []
        for n, (tree, spec) in enumerate(zip(returned, specs)):
            if tree is None:
                flat += [None] * spec.num_leaves
                continue
            try:
                got = spec.flatten_up_to(tree)
            except (ValueError, TypeError):
                raise said(f"{_showtree(tree)} for entry {n}, whose structure is {spec}") from None
            flat += got
        checked = []
        for index, (leaf, like) in enumerate(zip(flat, likes)):
            if leaf is None or like.dtype not in TRACKED:  # no derivative for an integer leaf
                checked.append(None)
                continue
            if type(leaf) is EagerTensor:
                if leaf.runtime is not rt or not has_value(leaf):
                    raise said(f"a tensor of another runtime (or without a value) for {name_of(index)}")
                tensor = leaf
            else:
                try:
                    value = _array(leaf, lambda: "")
                except RuleError:
                    raise said(f"a {type(leaf).__name__} for {name_of(index)}") from None
                if value.dtype != like.dtype and isinstance(leaf, NUMBERS) and value.dtype.kind != "c":
                    value = value.astype(like.dtype)
                tensor = EagerTensor(seal(value), rt)
            if tensor.shape != like.shape or tensor.dtype != like.dtype:
                raise said(
                    f"{describe(tensor.shape, tensor.dtype)} for {name_of(index)}, which is "
                    f"{describe(like.shape, like.dtype)}"
                )
            checked.append(tensor)
        return checked


class custom_vjp(_Custom):  # noqa: N801 - JAX's name
    """A function with a reverse-mode rule of your own, as ``jax.custom_vjp``::

        @tf.custom_vjp
        def f(x, y): ...
        def f_fwd(x, y): return out, residuals   # residuals: any pytree
        def f_bwd(residuals, g): return (gx, gy) # one cotangent per differentiable argument
        f.defvjp(f_fwd, f_bwd)

    Called with no argument that carries a derivative, ``f`` runs as it is. Otherwise the
    call runs ``fwd`` (recorded, so an outer derivative differentiates ``bwd`` through the
    residuals) and its ``out`` is the result; a derivative runs ``bwd(residuals, g)``, ``g``
    shaped like ``out``, which returns a tuple with one cotangent per differentiable
    argument, each of its argument's structure, shapes and dtypes (None for zero).
    ``nondiff_argnums``: arguments passed first to ``bwd`` (as ``bwd(*nondiff, residuals,
    g)``), as given, with no cotangent (Python values: functions, shapes, flags). Forward
    mode is refused (NotDifferentiable), as in JAX. See docs/transforms.md, "Custom
    derivative rules"."""

    kind = "custom_vjp"

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None:
        """Give the rule: ``fwd(*args)`` returns ``(out, residuals)``, ``bwd(*nondiff,
        residuals, g)`` the cotangents of the differentiable arguments."""
        for name, rule in (("fwd", fwd), ("bwd", bwd)):
            if not callable(rule):
                raise ArgumentError(f"{self.name}.defvjp: {name} must be callable, got {shown(rule)}")
        self.fwd, self.bwd = fwd, bwd

    def _check_defined(self) -> None:
        if self.fwd is None:
            raise ArgumentError(
                f"{self.name}: no VJP rule is defined for this custom_vjp function; call "
                f"{self.name}.defvjp(fwd, bwd) before calling it"
            )

    def _differentiated(self, rt: EagerRuntime, args: tuple[Any, ...], call: _Call, items: list[EagerTensor]) -> Any:
        token = _IN_FWD.set((*_IN_FWD.get(), self))
        try:
            returned = self.fwd(*args)  # type: ignore[misc]
        finally:
            _IN_FWD.reset(token)
        fwd = _name_of(self.fwd)
        if not (isinstance(returned, (tuple, list)) and len(returned) == 2):
            raise self._error(
                "",
                f"custom_vjp function {self.name!r}: its fwd {fwd} returned {_showtree(returned)}; it must return a "
                f"pair (out, residuals), out the function's output and residuals what bwd needs (any pytree)",
            )
        out, residuals = returned
        made_by = f"custom_vjp function {self.name!r}: its fwd {fwd}"
        if TRACING.get() is not None:
            return self._traced(rt, call, items, out, made_by, residuals)
        call.residuals = residuals
        return self._record(rt, call, items, out, made_by)

    def _traced_vjp(self, s: Any, g: tuple[Any, ...], inputs: Any, out: Any, rule: _Call) -> list[Any]:
        """The traced op's VJP: ``bwd`` on the residuals its node holds as inputs; no
        cotangent for the output and residual inputs (the rule is their derivative)."""
        cotangents = self._cotangents(s, g, out, self._kept(rule, inputs), rule)
        return [*cotangents, *[None] * (len(inputs) - len(cotangents))]

    def _jvp(self, s: Any, tangents: list[Any], inputs: Any, out: Any, rule: _Call) -> tuple[Any, ...]:
        """Forward mode: refused, as JAX refuses it (see the module doc)."""
        raise NotDifferentiable(
            f"custom_vjp function {self.name!r} has a reverse-mode rule only, so forward mode (tf.jvp, tf.linearize, "
            f"tf.jacfwd, and tf.hessian and tf.hvp, which push tangents through a gradient) cannot go through it, as "
            f"in JAX: give it a rule of both modes with tf.custom_jvp, or stay in reverse mode "
            f"(tf.jacrev(tf.jacrev(f)) for a Hessian)",
            op=self.name,
            plugin=self.kind,
        )

    _traced_jvp = _jvp

    def _vjp(self, s: Any, g: tuple[Any, ...], inputs: Any, out: Any, rule: _Call) -> list[Any]:
        """The op's VJP: ``bwd`` on the residuals and the output's cotangent (zeros where
        none flows), its cotangents checked, one per tracked leaf."""
        return self._cotangents(s, g, rule.values, rule.residuals, rule)

    def _cotangents(self, s: Any, g: tuple[Any, ...], outs: Any, residuals: Any, rule: _Call) -> list[Any]:
        """``bwd(*nondiff, residuals, g)`` for the outputs ``outs`` (their shapes and dtypes
        give the zeros where no cotangent flows), checked: one cotangent per tracked leaf."""
        rt = s.runtime
        gs = [EagerTensor(seal(np.zeros(v.shape, v.dtype)), rt) if ct is None else ct for ct, v in zip(g, outs)]
        bwd = _name_of(self.bwd)
        try:
            with computing_rule(rt):
                returned = self.bwd(*rule.nondiff, residuals, unflatten(rule.out_spec, gs))  # type: ignore[misc]
        except Exception as exc:
            if passes_through(exc):
                raise
            raise self._error(
                "vjp", f"the VJP of custom_vjp function {self.name!r} failed: its bwd {bwd} raised {exc!r}"
            ) from exc
        count = len(rule.in_specs)

        def said(what: str) -> RuleError:
            return self._error(
                "vjp",
                f"the VJP of custom_vjp function {self.name!r}: its bwd {bwd} returned {what}; bwd returns a tuple "
                f"with one cotangent per differentiable argument ({count}), each of its argument's structure, shapes "
                f"and dtypes (None for zero; cast with .astype, sum broadcast axes back)",
            )

        if not isinstance(returned, (tuple, list)):
            raise said(f"{_showtree(returned)}, not a tuple (for one argument write (g,))")
        if len(returned) != count:
            raise said(f"{len(returned)} cotangents")
        flat = self._leaves(returned, rule.in_specs, rule.likes, rt, said, rule.argument_leaf)
        return [flat[index] for index in rule.tracked]


class custom_jvp(_Custom):  # noqa: N801 - JAX's name
    """A function with a forward-mode rule of your own, as ``jax.custom_jvp``::

        @tf.custom_jvp
        def g(x): ...
        @g.defjvp
        def g_jvp(primals, tangents): return primal_out, tangent_out

    Called with no argument that carries a derivative, ``g`` runs as it is; otherwise too,
    and its result is recorded as one op whose derivative is the rule: forward mode calls
    it, reverse mode transposes it (so it must be linear in the tangents and written with
    ``tenferro.numpy`` ops). ``primals`` and ``tangents`` are tuples with one entry per
    differentiable argument (a zero tangent where none flows); ``tangent_out`` is shaped
    like the output (None for zero). ``nondiff_argnums``: arguments passed first to the
    rule, ``rule(*nondiff, primals, tangents)``. See docs/transforms.md."""

    kind = "custom_jvp"

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()):
        super().__init__(fun, nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None

    def defjvp(self, jvp: Callable[..., Any]) -> Callable[..., Any]:
        """Give the rule, ``jvp(*nondiff, primals, tangents) -> (primal_out, tangent_out)``;
        returns it, so that it decorates."""
        if not callable(jvp):
            raise ArgumentError(f"{self.name}.defjvp: jvp must be callable, got {shown(jvp)}")
        self.jvp = jvp
        return jvp

    def _check_defined(self) -> None:
        if self.jvp is None:
            raise ArgumentError(
                f"{self.name}: no JVP rule is defined for this custom_jvp function; call {self.name}.defjvp(rule) "
                f"(or decorate the rule with @{self.name}.defjvp) before calling it"
            )

    def _differentiated(self, rt: EagerRuntime, args: tuple[Any, ...], call: _Call, items: list[EagerTensor]) -> Any:
        primals = tuple(arg for n, arg in enumerate(args) if n not in self.nondiff_argnums)
        out, made_by = self.fun(*args), f"custom_jvp function {self.name!r}"
        if TRACING.get() is not None:
            return self._traced(rt, call, items, out, made_by, primals)
        call.primals = primals
        return self._record(rt, call, items, out, made_by)

    def _tangents_out(
        self, rule: _Call, tangents: Sequence[Any], rt: EagerRuntime, primals: tuple[Any, ...], outs: Sequence[Any]
    ) -> list[Any]:
        """The rule's tangent of each output leaf (None for zero), checked, given one
        tangent per tracked leaf (None for zero), the call's ``primals`` and its output
        leaves ``outs`` (what shapes and dtypes the tangents take)."""
        flat: list[Any] = [like.zeros(rt) for like in rule.likes]
        for index, tangent in zip(rule.tracked, tangents):
            if tangent is not None:
                flat[index] = tangent
        name = _name_of(self.jvp)
        try:
            with computing_rule(rt):
                returned = self.jvp(*rule.nondiff, primals, rule.trees(flat))  # type: ignore[misc]
        except Exception as exc:
            if passes_through(exc):
                raise
            raise self._error(
                "jvp", f"the JVP of custom_jvp function {self.name!r} failed: its rule {name} raised {exc!r}"
            ) from exc

        def said(what: str) -> RuleError:
            return self._error(
                "jvp",
                f"the JVP of custom_jvp function {self.name!r}: its rule {name} returned {what}; the rule returns a "
                f"pair (primal_out, tangent_out), both of the function's output structure ({rule.out_spec}), each "
                f"tangent of its output's shape and dtype (None for zero)",
            )

        if not (isinstance(returned, (tuple, list)) and len(returned) == 2):
            raise said(_showtree(returned))
        primal_out, tangent_out = returned
        if flatten(primal_out)[1] != rule.out_spec:
            raise said(f"a primal_out of structure {flatten(primal_out)[1]}")
        likes = [_Like(v.shape, v.dtype, False) for v in outs]
        return self._leaves(
            (tangent_out,), (rule.out_spec,), likes, rt, said, lambda i: _leaf_name("the output", rule.out_spec, i)
        )

    def _jvp(self, s: Any, tangents: list[Any], inputs: Any, out: Any, rule: _Call) -> tuple[Any, ...]:
        """The op's forward-mode rule: the user's."""
        return tuple(self._tangents_out(rule, tangents, s.runtime, rule.primals, rule.values))

    def _traced_jvp(self, s: Any, tangents: list[Any], inputs: Any, out: Any, rule: _Call) -> tuple[Any, ...]:
        """The traced op's: the user's rule on the primals its node holds as inputs; the
        tangents of the output and primal inputs are not read (the rule is their derivative)."""
        count = len(rule.tracked)
        return tuple(self._tangents_out(rule, tangents[:count], s.runtime, self._kept(rule, inputs), out))

    def _vjp(self, s: Any, g: tuple[Any, ...], inputs: Any, out: Any, rule: _Call) -> list[Any]:
        """The op's VJP: the rule transposed (:meth:`_transposed`)."""
        return self._transposed(s, g, rule, rule.primals, rule.values)

    def _traced_vjp(self, s: Any, g: tuple[Any, ...], inputs: Any, out: Any, rule: _Call) -> list[Any]:
        """The traced op's VJP: the rule transposed on the primals its node holds as inputs;
        no cotangent for the output and primal inputs."""
        cotangents = self._transposed(s, g, rule, self._kept(rule, inputs), out)
        return [*cotangents, *[None] * (len(inputs) - len(cotangents))]

    def _transposed(
        self, s: Any, g: tuple[Any, ...], rule: _Call, primals: tuple[Any, ...], outs: Sequence[Any]
    ) -> list[Any]:
        """The rule transposed. Recorded on tangent variables of its own (ones: a rule may
        decide by a tangent's value), it is linear in them; sweeping it back from ``g``
        gives each tracked leaf's cotangent. The sweep records where the enclosing one
        does (``rt.grad``), so the gradient differentiates again."""
        rt = s.runtime
        ts = [
            EagerTensor(seal(np.ones(rule.likes[i].shape, rule.likes[i].dtype)), rt, None, leaf=True)
            for i in rule.tracked
        ]
        floor = next(SEQUENCE)  # every node the rule records comes after this number
        with recording(rt), rt.rule_session():
            tangents_out = self._tangents_out(rule, ts, rt, primals, outs)
        wanted = {id(t) for t in ts}
        roots = []
        for index, (tangent, ct) in enumerate(zip(tangents_out, g)):
            if tangent is None or ct is None:
                continue
            found = vertex(tangent)
            if found is not None and depends_on(found, frozenset(wanted), floor):
                roots.append((found, ct))
            elif np.any(held(tangent) != 0):
                raise self._error(
                    "jvp",
                    f"the JVP of custom_jvp function {self.name!r}: its rule {_name_of(self.jvp)} returned, for "
                    f"{_leaf_name('the output', rule.out_spec, index)}, a nonzero tangent that is not computed from "
                    f"the tangents with tenferro ops; reverse mode transposes the rule, so each tangent_out must be "
                    f"computed from the tangents (linear in them)",
                )
        got: dict[int, Any] = {}
        if roots:
            needed = leading_to(reachable(*(v for v, _ in roots), floor=floor), wanted)
            with rt.rule_session(needed) as sweep:
                got = reverse_sweep(sweep, roots)
        return [got.get(id(t), (t, None))[1] for t in ts]


# -- helpers ------------------------------------------------------------------------------------
def _nondiff_argnums(argnums: Any, fun: Callable[..., Any], who: str) -> tuple[int, ...]:
    """``nondiff_argnums`` as a sorted tuple of distinct non-negative ints, each within the
    function's positional parameters where its signature says how many it takes."""
    if isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool):
        argnums = (argnums,)
    if not isinstance(argnums, (tuple, list)) or not all(
        isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 0 for n in argnums
    ):
        raise ArgumentError(f"{who}: nondiff_argnums must be a tuple of non-negative ints, got {shown(argnums)}")
    if len(set(argnums)) != len(argnums):
        raise ArgumentError(f"{who}: nondiff_argnums names an argument twice ({list(argnums)}); name each once")
    signature = _signature(fun)
    if signature is not None:
        kinds = [p.kind for p in signature.parameters.values()]
        if inspect.Parameter.VAR_POSITIONAL not in kinds:
            count = sum(
                k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD) for k in kinds
            )
            for n in argnums:
                if n >= count:
                    raise ArgumentError(
                        f"{who}: nondiff_argnums {n} is out of range for a function of {count} positional argument(s)"
                    )
    return tuple(sorted(int(n) for n in argnums))


def _signature(fun: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):  # a builtin without one
        return None


def _name_of(rule: Any) -> str:
    return getattr(rule, "__name__", type(rule).__name__)


def _leaf_name(what: str, spec: Any, index: int) -> str:
    """``argument 1 at ['w']``: leaf ``index`` of a tree of structure ``spec`` called ``what``."""
    path = "".join(f"[{key!r}]" for key in spec.paths()[index])
    return f"{what} at {path}" if path else what


def _showtree(tree: Any) -> str:
    if isinstance(tree, EagerTensor):
        return f"a single array {describe(tree.shape, tree.dtype)}"
    if isinstance(tree, (tuple, list)):
        return f"a {type(tree).__name__} of {len(tree)}"
    return "None" if tree is None else f"a {type(tree).__name__}"


def _array(leaf: Any, what: Callable[[], str]) -> np.ndarray:
    """The read-only array a leaf that is not an EagerTensor stands for (a NumPy array, a
    Tensor, a Python or NumPy number), or the RuleError that says ``what`` it is."""
    if isinstance(leaf, Tensor):
        return np.asarray(leaf)  # its read-only array, not a copy
    if isinstance(leaf, (np.ndarray, np.generic, *NUMBERS)):
        array = np.array(leaf)
        if array.dtype.kind in "biufc":
            return seal(array)
    raise RuleError(f"{what()} a {type(leaf).__name__}, not an array; outputs are pytrees of arrays")


def _like(leaf: Any, what: Callable[[], str]) -> _Like:
    """A differentiable argument's leaf as a :class:`_Like`, or the ArgumentError naming it."""
    if isinstance(leaf, (EagerTensor, Tensor, np.ndarray, np.generic)):
        return _Like(tuple(leaf.shape), np.dtype(leaf.dtype), False)
    if isinstance(leaf, NUMBERS):
        return _Like((), np.asarray(leaf).dtype, True)
    raise ArgumentError(
        f"{what()} is {shown(leaf)}, not an array; the differentiable arguments of a custom function are pytrees of "
        f"arrays: pass other values in nondiff_argnums"
    )


def _check_closure(outputs: list[Any], items: list[EagerTensor], made_by: str) -> None:
    """Refuse an output that depends on a tensor tracking gradients that is not one of the
    arguments (a closure): the rules give derivatives for the arguments only, so that
    derivative would be lost without a word (JAX refuses it too)."""
    roots = [v for v in map(vertex, outputs) if v is not None]
    if not roots:
        return
    inputs = {id(vertex(item)) for item in items}
    for reached in reachable(*roots, stops=inputs).values():
        if type(reached) is not Node and id(reached) not in inputs:
            raise ArgumentError(
                f"{made_by} computed its output from {describe(reached.shape, reached.dtype)}, a tensor that tracks "
                f"gradients and is not one of its arguments (a closure); the custom rule gives derivatives for the "
                f"arguments only, so that one would be lost: pass it as an argument (the rule may give None for it), "
                f"or close over tf.stop_gradient of it"
            )
