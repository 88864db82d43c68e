"""`EagerSession`: the context ops are called in — a runtime, an engine, and the state of
the reverse sweep or forward push running rules there.

A session is handed to the callback of ``rt.with_eager_session`` (or bound by
``with rt.eager_session(eng) as s``); a reverse sweep runs rules on one of its own, and each
runtime has an implicit one for ops called outside any. Its methods are the registry's ops
(each an :class:`~tenferro.core.op.Op`'s ``call``, so ``s.mul.op`` is mul's Op), installed
once per registry on a session subclass, so ``s.mul(a, b)`` is a plain method call: no
pluggy, no per-call name lookup.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable
from typing import Any

from .eager import EagerTensor
from .engine import Engine
from .op import Op
from .protocols import Runtime
from .registry import Registry
from .trace import SEQUENCE


class EagerSession:
    """The ops of a runtime, bound to a lent engine.

    Every op takes its tensor arguments positionally (EagerTensors of the session's
    runtime, or Python/NumPy scalars as constants) followed by its static params, and
    returns a new EagerTensor; no op modifies its arguments. ``tenferro ops`` lists them.
    """

    #: While forward mode runs a jvp rule of an op with several results: (the results as the
    #: rule sees them, the indices of those whose tangent is read); None otherwise.
    _reads: tuple[tuple[Any, ...], set[int]] | None = None
    #: Inside rt.grad: the vertices that lead to a wanted variable (None: every vertex).
    _needed: set[int] | None = None
    #: Whether derivative rules run on it (a sweep's or forward mode's session).
    _in_sweep = False
    #: The creation number when such a session began: a transform started after it (inside
    #: a rule, such as a custom_vjp's bwd calling tf.vjp) still refuses reads of its values.
    _rules_floor = -1
    #: What an op's kernel runs under when nothing is lent (an ``implicit`` session, which
    #: lends nothing, so any number of threads may use it together): the engine's context
    #: variable and its value (``Engine.kernel_state``), or its context; None inside a loan.
    _kernel_context: Any = None

    def __init__(
        self,
        rt: Runtime,
        engine: Engine | None = None,
        *,
        needed: set[int] | None = None,
        in_sweep: bool = False,
        implicit: bool = False,
    ):
        self._rt = rt
        #: The engine when it is not native (its values are not NumPy arrays), else None.
        self._engine = None if engine is None or engine.native else engine
        self._open = True  # (set False when it ends: its ops raise SessionClosed then)
        #: Whether ops may take their inline checks (open, on NumPy values; see call.method).
        self._fast = self._engine is None
        if needed is not None:  # (the class's defaults otherwise: a session is made per backward)
            self._needed = needed
        if in_sweep:
            self._in_sweep = True
            self._rules_floor = next(SEQUENCE)
        if implicit and engine is not None:
            self._kernel_context = engine.kernel_state() or engine.context

    @property
    def runtime(self) -> Runtime:
        return self._rt

    @property
    def native(self) -> bool:
        """Whether the session's values are NumPy arrays (its engine is native, a CpuEngine)."""
        return self._engine is None

    def run_kernels(self, fun: Callable[..., Any], *args: Any) -> Any:
        """``fun(*args)``, a function calling op kernels directly (``tf.jit``'s plan), under
        the context an op's kernel runs under in this session (the engine's, when nothing
        is lent: NumPy's floating-point warnings off, for a CpuEngine)."""
        state = self._kernel_context
        if state is None:  # inside a loan: its context is in force
            return fun(*args)
        if type(state) is tuple:
            token = state[0].set(state[1])
            try:
                return fun(*args)
            finally:
                state[0].reset(token)
        with state():
            return fun(*args)

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


#: The distribution of the op families whose result shapes the session leaves unchecked.
SHIPPED = "tenferro"


def _checks_shapes(registry: Registry, spec: Any) -> bool:
    """Whether calls of ``spec`` check the result shape of an elementwise op: for every
    plugin but the families tenferro ships, whose shapes the conformance suite proves
    against their NumPy references in tenferro's own tests, so that the per-op path of the
    ops a program is made of pays nothing for the check."""
    info = registry.plugins.get(spec.plugin)
    return info is None or info.distribution != SHIPPED


_CLASSES: weakref.WeakKeyDictionary[Registry, type[EagerSession]] = weakref.WeakKeyDictionary()
_CLASSES_LOCK = threading.Lock()


def session_class(registry: Registry) -> type[EagerSession]:
    """The subclass of EagerSession with one method per op of ``registry`` (its Op's
    ``call``): built once per registry (also when several threads build their first
    runtime at the same time)."""
    with _CLASSES_LOCK:
        cls = _CLASSES.get(registry)
        if cls is None:
            # spec.RESERVED_NAMES keeps the methods apart from the session's own attributes
            methods = {spec.name: Op(spec, _checks_shapes(registry, spec)).call for spec in registry}
            doc = f"An EagerSession whose methods are the {len(methods)} ops of one registry."
            cls = type("RegistrySession", (EagerSession,), {"__module__": __name__, "__doc__": doc, **methods})
            _CLASSES[registry] = cls
            registry.watch(functools.partial(_install, cls))
    return cls


def _install(cls: type[EagerSession], registry: Registry, spec: Any) -> None:
    """Install the method of an op added to ``registry`` after ``cls`` was built (see
    :meth:`Registry.watch`), so that late registration is whole."""
    setattr(cls, spec.name, Op(spec, _checks_shapes(registry, spec)).call)
