"""`EagerTensor`: a value that belongs to a runtime and may carry its recorded history; the
values its op's rules derive once per node (:func:`derived`); and the :class:`Gradients` a
backward pass returns."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .. import _operators
from .._array import ArrayMethods
from .._operators import Operators
from .engine import Engine
from .errors import ArgumentError, NotInGradients, RuleError
from .graph import TraceListing, depends_on, listing
from .protocols import Runtime
from .recording import differentiating, paused, refused
from .tensor import Hollow, Tensor, describe, read
from .trace import SEQUENCE, Node, Vertex
from .tracing import note_read


class EagerTensor(Operators, ArrayMethods):
    """A tensor of an :class:`~tenferro.EagerRuntime`: the array ``tenferro.numpy``'s
    functions and its operators take and return, whose ops are recorded so that it can be
    differentiated (a :class:`~tenferro.Tensor` is a plain value, never recorded).

    Three kinds exist: *variables* (``rt.variable_from``; leaves with a gradient slot),
    *constants* (``rt.constant_from``, or anything computed with nothing to track), and
    *results* recorded from a variable, which carry the :class:`Node` that made them.
    Only variables have a gradient slot; :meth:`grad` of anything else is ``None``.
    ``_unrecorded`` marks a result computed with recording off (``no_grad``): it tracks
    nothing on purpose, so ``backward`` of it gives an empty ``Gradients`` (B11) where a
    constant's raises ``GradInactive``.

    Operators (``tenferro._operators.Operators``) and NumPy's methods and
    conversions (``tenferro._array.ArrayMethods``) come from its base classes.
    ``==`` is elementwise; hashing is by identity, so tensors can key dicts (see
    ``Gradients``).
    """

    __slots__ = ("_value", "_rt", "_node", "_leaf", "_unrecorded", "_grad")

    def __init__(
        self,
        value: np.ndarray | Hollow,
        rt: Runtime,
        node: Node | None = None,
        leaf: bool = False,
        unrecorded: bool = False,
    ):
        self._value = value
        self._rt = rt
        self._node = node
        self._leaf = leaf
        self._unrecorded = unrecorded
        self._grad: np.ndarray | None = None

    # -- value ---------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.shape

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def runtime(self) -> Runtime:
        return self._rt

    def value(self) -> Tensor:
        """The number this tensor holds, as an immutable :class:`Tensor` (no copy; the value
        of an engine such as ``DaskEngine`` is computed here, each time it is read)."""
        return Tensor._wrap(read(self._read("x.value()")))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return Tensor._wrap(read(self._read("np.asarray(x)"))).__array__(dtype, copy)

    def _read(self, exit: str) -> np.ndarray:
        """The value, for an exit that hands it to NumPy or Python (``exit`` names it):
        refused (ArgumentError) for a value a function transform running in this context is
        differentiating, whose derivative would silently be zero, as JAX refuses a tracer."""
        note_read(self, exit)
        running = differentiating()
        if running and (self._node is not None or self._leaf):
            # Derivative rules read values to decide (a degenerate spectrum), never to compute:
            # their session refuses NumPy arrays as op arguments. What they read is free of the
            # transforms running when the sweep began, not of one a rule starts itself.
            session = self._rt._here.session
            began = session._rules_floor if session is not None and session._in_sweep else -1
            root = self._node if self._node is not None else self
            for transform, floor, ids in running:
                if floor > began and depends_on(root, ids, floor):
                    raise refused(
                        ArgumentError(
                            f"{exit}: {self.describe()} is computed from the arguments {transform} is differentiating; "
                            f"a NumPy array or Python number made from it carries no derivative, so the result "
                            f"would silently miss that part. Compute with tenferro.numpy functions and operators, "
                            f"return the value as aux (has_aux=True) to read it outside, or stop the derivative on "
                            f"purpose with x.detach()"
                        )
                    )
        return self._held()

    def _held(self) -> np.ndarray:
        """The value as held: a NumPy array, or the array of the engine that made it (not
        computed); a RuleError for a value the trace did not keep."""
        if isinstance(self._value, Hollow):
            raise RuleError(
                f"{self.describe()} was recorded without its value: a derivative rule (VJP or JVP) read a value "
                f"its op's spec does not list in residuals (add it there)",
                unkept=True,
            )
        return self._value

    def hollow(self) -> EagerTensor:
        """This tensor as a trace records it when the op's VJP does not read its value."""
        node = self._node  # a node is the Hollow of its own result
        hollow = node if node is not None else Hollow(self._value.shape, self._value.dtype)
        return EagerTensor(hollow, self._rt, node, self._leaf)

    def describe(self) -> str:
        """``the result of mul``, ``a variable`` or ``a constant``: what this tensor is."""
        if self._node is not None:
            return f"the result of {self._node.spec.name}"
        return "a variable" if self._leaf else "a constant"

    # -- gradient bookkeeping ------------------------------------------------------------
    def tracks_grad(self) -> bool:
        """True for variables and for results recorded from one (torch's ``requires_grad``)."""
        return self._leaf or self._node is not None

    def is_variable(self) -> bool:
        """True for leaves made by ``rt.variable_from``: the only tensors with a grad slot."""
        return self._leaf

    def grad(self) -> Tensor | None:
        """The gradient accumulated in this variable's slot by ``backward``; ``None`` if no
        backward has reached it yet, and always ``None`` for non-variables (no warning)."""
        g = self._grad
        return None if g is None else Tensor._wrap(g if type(g) is np.ndarray else read(g))

    def clear_grad(self) -> None:
        """Empty the slot (torch's ``x.grad = None``); call it before each training step,
        since every ``backward`` adds to the slot."""
        self._grad = None

    def backward(
        self,
        engine: Engine | None = None,
        *,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
    ) -> Gradients:
        """Gradient of this scalar with respect to every variable it depends on, added
        into their slots. Returns the gradients of this call (see ``Gradients``).

        Raises ``NonScalarGrad`` for a non-scalar (use :meth:`backward_with`). A result
        computed under ``no_grad`` gives an empty ``Gradients`` (as does any backward
        inside ``no_grad``); any other tensor computed from no variable raises
        ``GradInactive``, as PyTorch refuses a tensor that does not require grad.

        PyTorch's keywords: ``gradient=v`` is :meth:`backward_with`; ``retain_graph`` is
        accepted and changes nothing (the trace is always kept, so a second backward works);
        ``create_graph=True`` is refused: ``rt.grad`` (or ``tf.grad``) gives a gradient that
        differentiates again.
        """
        if create_graph is not False:
            raise ArgumentError(
                "backward(create_graph=True): slots hold values, not recorded tensors; for a gradient that "
                "differentiates again use rt.grad(loss, x) or tf.grad(f), whose result records"
            )
        if isinstance(engine, (EagerTensor, Tensor, np.ndarray)):
            raise ArgumentError(
                "backward: its argument is the engine (the seed's backward(eng)); for PyTorch's backward(v) "
                "write backward(gradient=v) or backward_with(v)"
            )
        if gradient is not None:
            return self._rt._backward(engine, self, gradient)
        return self._rt._backward(engine, self)

    def backward_with(self, engine_or_v: Any, v: Any = None, /, *, engine: Engine | None = None) -> Gradients:
        """``backward_with(v, *, engine=None)``, or the seed's ``backward_with(engine, v)``:
        backward seeded with the cotangent ``v`` (an EagerTensor of this runtime, or a
        Tensor, of this tensor's shape and dtype); each slot receives ⟨v, ∂self/∂x⟩.
        PyTorch's ``backward(gradient=v)``, JAX's ``vjp``."""
        given = (engine_or_v,) if v is None else (engine_or_v, v)
        engine, (cotangent,) = self._rt._split_engine(given, engine, "backward_with", ("v",))
        return self._rt._backward(engine, self, cotangent)

    def detach(self, engine: Engine | None = None) -> EagerTensor:
        """A constant copy of this tensor's value: gradients do not flow through it
        (torch's ``detach``, JAX's ``stop_gradient``)."""
        return self._rt._detach(engine, self)

    def trace(self) -> TraceListing:
        """The recorded program that computed this tensor, one op per line."""
        return listing(vertex(self))

    def __reduce__(self) -> Any:
        raise ArgumentError(
            "an EagerTensor cannot be pickled or copied: it belongs to a runtime and its recorded "
            "program; pickle or copy x.value() (a Tensor), or make a new leaf with rt.variable_from"
        )

    def __repr__(self) -> str:
        kind = "variable" if self._leaf else "result" if self._node is not None else "constant"
        if isinstance(self._value, Hollow):
            return f"EagerTensor({describe(self.shape, self.dtype)}, {kind}, value not kept)"
        body = np.array2string(read(self._value), threshold=6, edgeitems=3, separator=", ")
        return f"EagerTensor({describe(self.shape, self.dtype)}, {kind}, {body})"


_operators.EagerTensor = EagerTensor  # the operators' hot path compares an operand's type with it

#: ``held(x)``: x's value as held (a NumPy array, or the array of the engine that made it,
#: not computed), for a read that carries no derivative on purpose (an index, a rank, a
#: transform's own bookkeeping); a RuleError for a value the trace did not keep.
held = EagerTensor._held

#: ``value_out(x, exit)``: x's value handed to NumPy or Python by ``exit`` (named in the
#: error), refused where a function transform is differentiating it (see ``EagerTensor._read``).
value_out = EagerTensor._read


def has_value(tensor: EagerTensor) -> bool:
    """Whether ``tensor`` holds its value: False for an op's input as a trace recorded it
    without (a hollow copy, see ``trace.py``)."""
    return not isinstance(tensor._value, Hollow)


def slot(variable: EagerTensor) -> Any:
    """The gradient slot of ``variable`` as held (None if empty): an engine's array stays
    on its engine, where :meth:`EagerTensor.grad` would compute it here."""
    return variable._grad


@contextmanager
def computing_rule(rt: Runtime) -> Iterator[None]:
    """For the block, a derivative rule that computes with values, as user code does (a
    custom_vjp's bwd, a custom_jvp's rule): where its sweep or push records (a higher
    derivative), a NumPy or Python read of a value the running transforms differentiate is
    refused, as outside rules, since it would cut that derivative silently. Plugin rules
    keep their exemption: they read values to decide, never to compute."""
    session = rt._here.session
    if session is None or not session._in_sweep or rt in paused():
        yield
        return
    began, session._rules_floor = session._rules_floor, -1
    try:
        yield
    finally:
        session._rules_floor = began


def in_rules(rt: Runtime) -> bool:
    """Whether derivative rules are running on ``rt`` in this thread (a sweep or push)."""
    session = rt._here.session
    return session is not None and session._in_sweep


def vertex(arg: Any) -> Vertex | None:
    """The vertex an op argument stands for: the node that computed it, the variable itself,
    or None for a constant or a scalar (gradients stop there). "Tracked" means not None."""
    if type(arg) is EagerTensor:
        node = arg._node
        if node is not None:
            return node
        if arg._leaf:
            return arg
    return None


def holds_tracked(value: Any) -> bool:
    """Whether ``value`` is, or holds in a list, tuple or dict at any depth, a tracked
    tensor: what the NumPy-facing layers ask before running NumPy's own function on values."""
    kind = type(value)
    if kind is EagerTensor:
        return vertex(value) is not None
    if kind is list or kind is tuple:
        return any(map(holds_tracked, value))
    if kind is dict:
        return any(map(holds_tracked, value.values()))
    return False


def is_broadcast_ones(t: Any) -> bool:
    """Whether ``t`` is a constant of ones stored as one broadcast element (what a sum's
    rule hands down from a seed of 1): a rule may then return ``g·b`` as ``b`` itself,
    bitwise the same value without a pass over memory. On every product rule's path: it
    reads the tensor's slots (``tenferro.extend`` gives it to plugins)."""
    if type(t) is not EagerTensor or t._node is not None or t._leaf:
        return False
    value = t._value
    return (
        type(value) is np.ndarray
        and value.ndim > 0
        and value.size > 0
        and not any(value.strides)
        and value.flat[0] == 1
    )


def derived(out: Any, key: Any, compute: Callable[..., Any], *args: Any) -> Any:
    """``compute(*args)``, a value a rule derives from its op's inputs and params alone with
    one session op (sin's ``cos(x)``; never anything computed from the cotangent
    or tangent), computed once per node: where it is recorded, the node keeps it, and a
    later sweep over the node (the second sweep of a Hessian-vector product, each row of a
    Jacobian of a gradient) takes it again without running the kernel. Where that sweep
    records, the value is recorded anew as a node like the one running ``compute`` would
    make (same op, inputs and params, created now), so every derivative is bitwise what
    it was without the reuse. The derivative trace holds that value anyway.

    Kept only when ``out`` is the node (an op whose rules do not read its result: one
    computed from the result would hold the node that holds it, a cycle), when every
    tensor among ``args`` is one of the node's inputs (a value computed from the cotangent
    would be stale in the next sweep: it is computed each time instead), when ``compute``
    recorded exactly one op on values made before it, and never where nothing records (a
    ``backward`` pass: a training loop holds nothing more) nor for another engine's values
    (a dask array). ``key`` tells apart several values of one node; ``compute`` and
    ``args`` are given apart so that a rule makes no closure per call."""
    if type(out) is not Node:
        return compute(*args)
    kept = out.derived
    if kept is not None and key in kept:
        value = kept[key]
        rt = value._rt
        if rt in paused():
            return value
        made = value._node
        return type(value)(value._value, rt, Node(made.op, made.inputs, made.parents, made.params, value._value))
    before = next(SEQUENCE)
    value = compute(*args)
    made = getattr(value, "_node", None)
    if (
        made is not None
        and made.seq > before
        and made.output is None
        and type(value._value) is np.ndarray
        and all(type(parent) is not Node or parent.seq < before for parent in made.parents)
        # every tensor argument (an EagerTensor, as value is) one of the node's own inputs
        and all(type(arg) is not type(value) or any(arg is given for given in out.inputs) for arg in args)
    ):
        if kept is None:
            out.derived = {key: value}
        else:
            kept[key] = value
    return value


class Gradients:
    """The gradients one ``backward`` call computed, keyed by variable.

    ``len(grads)``, ``grads[x]`` (a :class:`Tensor`), ``x in grads`` and iteration over
    ``(variable, Tensor)`` pairs. These are the gradients of this call alone; the slots
    (``x.grad()``) hold the sum over every backward since the last ``clear_grad``.
    """

    __slots__ = ("_items",)

    def __init__(self, items: dict[int, tuple[EagerTensor, np.ndarray]]):
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, variable: EagerTensor) -> Tensor:
        try:
            return Tensor._wrap(read(self._items[id(variable)][1]))
        except KeyError:
            raise NotInGradients(
                f"{variable!r} received no gradient in this backward pass (it is not a variable the output "
                f"depends on); `x in grads` tells whether one did"
            ) from None

    def __contains__(self, variable: object) -> bool:
        return id(variable) in self._items

    def __iter__(self) -> Iterator[tuple[EagerTensor, Tensor]]:
        for variable, value in self._items.values():
            yield variable, Tensor._wrap(read(value))

    def __repr__(self) -> str:
        kinds = ", ".join(describe(v.shape, v.dtype) for v, _ in self._items.values())
        return f"Gradients({len(self)} variables: {kinds})"
