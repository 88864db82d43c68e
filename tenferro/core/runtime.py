"""`EagerRuntime`: the entry point. It owns the op registry and the recording switch, makes
variables and constants, opens sessions, and runs backward passes and ``rt.grad``."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any, TypeVar

import numpy as np

from . import engine as engines
from .eager import EagerTensor, Gradients, vertex
from .engine import CpuEngine, Engine
from .errors import (
    ArgumentError,
    ContextMismatch,
    DTypeError,
    GradInactive,
    NonScalarGrad,
    ShapeMismatch,
)
from .graph import leading_to, reachable
from .loading import default_registry, load_registry
from .recording import no_grad, paused
from .registry import Registry
from .session import EagerSession, session_class
from .sweep import reverse_sweep
from .tensor import TRACKED, Tensor, array_from, describe, freeze, seal
from .trace import Node
from .tracing import note_read

T = TypeVar("T")

#: The seed of a scalar's backward pass, per dtype (values are immutable, so one serves all).
_ONE = {dtype: freeze(np.ones((), dtype)) for dtype in (np.dtype(np.float32), np.dtype(np.float64))}


#: Marks a positional argument that was not passed (the seed's forms take one more).
class _Missing:
    def __repr__(self) -> str:
        return "<not given>"


_MISSING: Any = _Missing()


class _SessionSlot(threading.local):
    """The innermost open session of one runtime, per thread: thread-local rather than a
    context variable, so that a thread started with a copy of this context
    (``asyncio.to_thread``) or a task that runs after the block has ended finds none."""

    session: EagerSession | None = None


def _run_in(rt: EagerRuntime, session: EagerSession, fn: Callable[..., T], *args: Any) -> T:
    """``fn(session, *args)`` with ``session`` current in this thread, closed when it
    returns: how a session is opened. A function, for every backward pass and every
    ``with_eager_session`` goes through it: an object entered by a ``with`` block costs
    about 0.35 µs more, a generator about 1 µs. :class:`_Opened` is its ``with`` form."""
    here = rt._here
    previous, here.session = here.session, session
    try:
        return fn(session, *args)
    finally:
        session._open = session._fast = False  # its ops raise SessionClosed from now on
        here.session = previous


class _Opened:
    """:func:`_run_in` as a ``with`` block, for a block that is not a function (the rule
    sessions of forward mode and of the transforms, ``eager_session``), entering ``loan``
    first when one is given (the engine lent to the session)."""

    __slots__ = ("rt", "session", "previous", "loan")

    def __init__(self, rt: EagerRuntime, session: EagerSession, loan: AbstractContextManager[Any] | None = None):
        self.rt, self.session, self.loan = rt, session, loan

    def __enter__(self) -> EagerSession:
        if self.loan is not None:
            self.loan.__enter__()
        here = self.rt._here
        self.previous, here.session = here.session, self.session
        return self.session

    def __exit__(self, *exc_info: object) -> None:
        self.session._open = self.session._fast = False
        self.rt._here.session = self.previous
        if self.loan is not None:
            self.loan.__exit__(*exc_info)


class EagerRuntime:
    """Owns the ops (every installed plugin, see ``tenferro ops``) and the recording state.

    ``EagerRuntime()`` loads every plugin registered under the ``tenferro`` entry point.
    ``engine=`` sets a default engine so the ``eng`` argument of ``with_eager_session``,
    ``eager_session``, ``backward``, ``backward_with``, ``detach`` and ``grad`` may be
    omitted. ``plugins=`` adds plugin objects (modules with ``@hookimpl`` functions) that
    are not installed as entry points; ``entry_points=False`` loads none from the
    environment (only ``add_any``, the core's accumulation op, and ``plugins``). A plugin
    that fails to load is left out with a ``PluginWarning``; ``strict=True`` (or
    ``TENFERRO_STRICT_PLUGINS=1``) makes that a ``PluginError``.
    """

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        plugins: Iterable[Any] = (),
        entry_points: bool = True,
        registry: Registry | None = None,
        strict: bool | None = None,
    ):
        if engine is not None and not isinstance(engine, Engine):
            hint = f"; did you mean {engine.__qualname__}()?" if callable(engine) else ""
            raise ArgumentError(
                f"EagerRuntime: engine must be an engine such as CpuEngine.serial(), got {engine!r}{hint}"
            )
        if registry is not None and not isinstance(registry, Registry):
            raise ArgumentError(
                f"EagerRuntime: registry must be a Registry (tenferro.core.load_registry(...)), got {registry!r}"
            )
        plugins = tuple(plugins)
        if registry is None:
            registry = (
                default_registry(strict=strict)
                if entry_points and not plugins
                else load_registry(plugins, entry_points=entry_points, strict=strict)
            )
        self.registry = registry
        self._session_class = session_class(registry)
        self._engine = engine
        self._slots = threading.Lock()  # makes each slot's read-add-write one step across threads
        #: The innermost open session of this runtime in the current thread.
        self._here = _SessionSlot()
        # Where ops go outside any session: each runs at once under the engine's context, lending
        # nothing (so threads use it together); without a default engine, on NumPy in the calling thread.
        self._implicit = self._session_class(self, engine or _CALLING_THREAD, implicit=True)

    # -- values --------------------------------------------------------------------------
    def variable_from(self, tensor: Tensor | Any) -> EagerTensor:
        """A leaf that requires gradients (torch's ``requires_grad=True``): a float32,
        float64, complex64 or complex128 Tensor or anything ``np.array`` accepts (copied),
        or an engine's array (a dask array: kept as it is, not computed)."""
        value = _as_array(tensor, "variable_from")
        if value.dtype not in TRACKED:
            raise DTypeError(
                f"variable_from: a variable must be float32, float64, complex64 or complex128, got {value.dtype}; "
                f"convert first (a.astype(np.float64)) or use constant_from"
            )
        return EagerTensor(value, self, None, leaf=True)

    def constant_from(self, tensor: Tensor | Any) -> EagerTensor:
        """A plain tensor: no gradient flows into it. Takes a Tensor or anything
        ``np.array`` accepts (copied), or an engine's array (kept, not computed)."""
        return EagerTensor(_as_array(tensor, "constant_from"), self)

    # -- sessions ------------------------------------------------------------------------
    def with_eager_session(
        self, engine_or_fn: Engine | Callable[[EagerSession], T], fn: Any = _MISSING, /, *, engine: Engine | None = None
    ) -> T:
        """``with_eager_session(fn, *, engine=None)``, or the seed's
        ``with_eager_session(engine, fn)``: lend the engine to a new session, call
        ``fn(session)`` and return what it returns. Every result already holds its number.
        Without an engine the runtime's default is used."""
        engine, (fn,) = self._split_engine((engine_or_fn, fn), engine, "with_eager_session", ("fn",))
        if not callable(fn):
            raise ArgumentError(f"with_eager_session: fn must be callable, got {type(fn).__name__}")
        with engine.lend("a session"):
            return _run_in(self, self._session_class(self, engine), fn)

    def eager_session(self, engine: Engine | None = None) -> AbstractContextManager[EagerSession]:
        """``with rt.eager_session(eng) as s:`` — the context-manager form of
        :meth:`with_eager_session`; the session is closed when the block ends."""
        engine = self._engine_or_default(engine, "eager_session")
        return _Opened(self, self._session_class(self, engine), engine.lend("a session"))

    @property
    def engine(self) -> Engine | None:
        """The default engine, as given when the runtime was made (None: each call names one,
        and the implicit session runs NumPy in the calling thread)."""
        return self._engine

    def open_session(self) -> EagerSession | None:
        """The session open on this runtime in the current thread (the innermost
        ``with_eager_session``/``eager_session``, or the one a sweep runs rules on), None if
        none is (then :meth:`current_session` is the implicit one)."""
        return self._here.session

    def current_session(self) -> EagerSession:
        """The session this runtime's ops go to in the current thread: the innermost open
        ``with_eager_session``/``eager_session`` (or the reverse sweep running rules), else
        the runtime's implicit session, which runs each op at once on the default engine
        (NumPy in the calling thread when the runtime has none) without lending it.
        Operators and ``tenferro.numpy`` functions call ops through it."""
        session = self._here.session
        return self._implicit if session is None else session

    def no_grad(self) -> AbstractContextManager[None]:
        """Within the block ops of this runtime compute but record nothing (torch's
        ``no_grad``); their results do not track gradients and ``backward`` on them returns
        empty Gradients, inside the block or after it (backward of a constant computed
        with recording on raises GradInactive instead). Like PyTorch's, it applies to the current thread (and asyncio
        task) only: other threads keep recording."""
        return no_grad(self)

    # -- derivatives ---------------------------------------------------------------------
    def grad(
        self,
        engine_or_out: Engine | EagerTensor,
        out_or_wrt: Any,
        wrt: Any = _MISSING,
        /,
        *,
        engine: Engine | None = None,
    ) -> EagerTensor | list[EagerTensor]:
        """``grad(out, wrt, *, engine=None)``, or the seed's ``grad(engine, out, wrt)``: the
        gradient of scalar ``out`` with respect to the variable ``wrt`` (or a list of them,
        giving a list), without touching any slot.

        Like ``jax.grad``, the result is recorded, so it can be differentiated again:
        ``rt.grad(s.reduce_sum(s.mul(rt.grad(out, x), v)), x)`` is a Hessian-vector product.
        (Under ``rt.no_grad()`` nothing is recorded.) ``wrt`` must be variables ``out``
        depends on; anything else raises ``GradInactive``.
        """
        engine, (out, wrt) = self._split_engine((engine_or_out, out_or_wrt, wrt), engine, "grad", ("out", "wrt"))
        single = isinstance(wrt, EagerTensor)
        targets = [wrt] if single else list(wrt) if isinstance(wrt, (list, tuple)) else None
        if targets is None:
            raise ArgumentError(f"grad: wrt must be an EagerTensor or a list of them, got {type(wrt).__name__}")
        self._check_member(out, "grad: out")
        for index, target in enumerate(targets):
            if type(target) is not EagerTensor or target._rt is not self:  # the message only when it fails
                self._check_member(target, f"grad: wrt[{index}]")
        if not out.tracks_grad():
            raise GradInactive(
                "grad is inactive: the output does not track gradients (it was computed from "
                "constants only, or under rt.no_grad())"
            )
        reached = reachable(vertex(out))  # out tracks, so its vertex is not None
        for index, target in enumerate(targets):
            if not target._leaf:
                raise GradInactive(
                    f"grad is inactive: wrt[{index}] ({describe(target.shape, target.dtype)}) is "
                    f"{'an intermediate result' if target._node is not None else 'a constant'}, not a "
                    f"variable; rt.grad differentiates with respect to variables only (make it one "
                    f"with rt.variable_from(t.value()) and recompute from it)"
                )
            if id(target) not in reached:
                raise GradInactive(
                    f"grad is inactive: the output does not depend on wrt[{index}] "
                    f"({describe(target.shape, target.dtype)}), so its derivative is identically zero"
                )
        wanted = {id(wrt)} if single else {id(t) for t in targets}
        # Prune branches that lead to no target, unless every variable reached is one.
        everything = all(type(v) is Node or id(v) in wanted for v in reached.values())
        needed = None if everything else leading_to(reached, wanted)
        leaves = self._sweep(engine, "rt.grad", out, self._seed(out), needed)
        grads = [_zero_if_none(self, *leaves.get(id(t), (t, None))) for t in targets]
        return grads[0] if single else grads

    def _backward(self, engine: Engine | None, out: EagerTensor, cotangent: Any = _MISSING) -> Gradients:
        """``out.backward()``, or ``out.backward_with(cotangent)`` when one is given."""
        call = "backward" if cotangent is _MISSING else "backward_with"
        engine = self._engine_or_default(engine, call)
        self._check_member(out, call)
        seed = self._seed(out) if cotangent is _MISSING else self._cotangent(out, cotangent)
        if not out.tracks_grad():
            if out._unrecorded or self in paused():  # computed under no_grad, or backward inside it (B11)
                return Gradients({})
            raise GradInactive(
                f"{call}: grad is inactive: the output is a constant, computed from no variable, so there is no "
                f"gradient to give (PyTorch: it does not require grad); make what you differentiate with respect to "
                f"a variable (tf.variable(a), rt.variable_from(a)) and compute the output from it"
            )
        with no_grad(self):  # backward builds no derivative trace
            leaves = self._sweep(engine, "backward", out, seed)
        # Every gradient is computed before any slot is written: a failing rule leaves
        # all slots as they were.
        computed = {key: (variable, _zero_if_none(self, variable, ct)._value) for key, (variable, ct) in leaves.items()}
        with self._slots:
            for variable, value in computed.values():
                variable._grad = value if variable._grad is None else seal(variable._grad + value)
        return Gradients(computed)

    def _sweep(
        self,
        engine: Engine,
        holder: str,
        out: EagerTensor,
        seed: EagerTensor,
        needed: set[int] | None = None,
    ) -> dict[int, tuple[EagerTensor, Any]]:
        """The reverse sweep from ``out`` on a session of its own (recording unless paused)."""
        with engine.lend(holder):
            session = self._session_class(self, engine, needed=needed, in_sweep=True)
            return _run_in(self, session, reverse_sweep, [(vertex(out), seed)])

    def rule_session(
        self, needed: set[int] | None = None, engine: Engine | None = None, *, lend: bool = False
    ) -> AbstractContextManager[EagerSession]:
        """A session for derivative rules, current in this thread for the block (rules
        written with operators record there too). It lends nothing (the caller has lent the
        engine, or is inside a session that has) unless ``lend``: then ``engine`` is lent
        for the block. ``needed`` as in :meth:`grad`'s sweep. Its ops run as ``engine``'s
        (by default the engine of the session open here)."""
        if engine is None:
            open_here = self._here.session
            engine = None if open_here is None else open_here._engine
        loan = engine.lend("a derivative sweep") if lend and engine is not None else None
        return _Opened(self, self._session_class(self, engine, needed=needed, in_sweep=True), loan)

    def _detach(self, engine: Engine | None, tensor: EagerTensor) -> EagerTensor:
        # The seed's signature takes an engine; copying a value runs no kernel, so it is
        # checked but not borrowed (detach works inside a session on the same engine).
        self._engine_or_default(engine, "detach")
        self._check_member(tensor, "detach")
        note_read(tensor, "x.detach() (tf.stop_gradient)")  # a constant a trace would keep as it is
        return EagerTensor(seal(tensor._held().copy()), self)

    # -- argument checks -----------------------------------------------------------------
    def _engine_or_default(self, engine: Engine | None, call: str) -> Engine:
        if engine is None:
            engine = self._engine
            if engine is None:
                raise ArgumentError(
                    f"{call}: pass an engine (e.g. CpuEngine.serial()), or create the runtime "
                    f"with EagerRuntime(engine=CpuEngine.serial()) to make one the default"
                )
        elif not isinstance(engine, Engine):
            raise ArgumentError(f"{call}: expected an engine such as CpuEngine.serial(), got {type(engine).__name__}")
        return engine

    def _split_engine(
        self, given: Sequence[Any], engine: Engine | None, call: str, names: tuple[str, ...]
    ) -> tuple[Engine, tuple[Any, ...]]:
        """The engine and arguments of ``call(*names, engine=...)`` or of the seed's
        ``call(engine, *names)``; ``given`` holds the positional arguments (``_MISSING``
        where none was passed)."""
        if (
            len(given) == len(names) + 1
            and given[-1] is not _MISSING
            and type(given[0]) is CpuEngine
            and engine is None
        ):
            return given[0], tuple(given[1:])  # the seed's form with a CpuEngine: checked already
        args = tuple(given[:-1]) if given[-1] is _MISSING else tuple(given)  # only the last may be missing
        if len(args) == len(names) + 1:
            if engine is not None:
                raise ArgumentError(f"{call}: the engine was given twice (first argument and engine=)")
            return self._engine_or_default(args[0], call), args[1:]
        if len(args) == len(names) and not isinstance(args[0], Engine):
            return self._engine_or_default(engine, call), args
        forms = f"({', '.join(names)}, *, engine=None) or the seed's (engine, {', '.join(names)})"
        raise ArgumentError(f"{call} takes {forms}, got {len(args)} positional arguments")

    def _check_member(self, tensor: Any, what: str) -> None:
        if not isinstance(tensor, EagerTensor):
            raise ArgumentError(f"{what} must be an EagerTensor, got {type(tensor).__name__}")
        if tensor._rt is not self:
            raise ContextMismatch(
                f"{what} belongs to {tensor._rt!r}, not to {self!r}; tensors of two runtimes cannot be mixed: "
                f"{self.mixed_with(tensor._rt)}"
            )

    def _seed(self, out: EagerTensor) -> EagerTensor:
        if out.shape != ():
            raise NonScalarGrad(out.shape)
        if out.dtype.kind == "c":
            raise DTypeError(
                f"the output is {describe(out.shape, out.dtype)}: a gradient is defined for a real "
                f"scalar (as in PyTorch); differentiate s.real(out) or s.abs(out), or give the "
                f"complex cotangent with backward_with"
            )
        one = _ONE.get(out.dtype)
        return EagerTensor(one if one is not None else freeze(np.ones((), out.dtype)), self)

    def _cotangent(self, out: EagerTensor, cotangent: Any) -> EagerTensor:
        if isinstance(cotangent, EagerTensor):
            self._check_member(cotangent, "backward_with: the cotangent v")
            value = cotangent._value
        elif isinstance(cotangent, Tensor):
            value = cotangent._array
        else:
            raise ArgumentError(
                f"backward_with: the cotangent v must be an EagerTensor or a Tensor, got {type(cotangent).__name__}"
            )
        if value.shape != out.shape:
            raise ShapeMismatch(
                f"backward_with: the cotangent v has shape {list(value.shape)}, but the output "
                f"has shape {list(out.shape)}; they must be equal"
            )
        if value.dtype != out.dtype:
            raise DTypeError(
                f"backward_with: the cotangent v has dtype {value.dtype}, but the output has "
                f"dtype {out.dtype}; they must be equal"
            )
        return EagerTensor(value, self)

    def __enter__(self) -> EagerRuntime:
        """``with rt:`` makes ``rt`` the runtime that the functions making a tensor from no
        tensor use in this context (``tnp.zeros``, ``tnp.eye``, ``tnp.arange``,
        ``tnp.asarray``, ``tf.constant``, ``tf.variable``, ``tf.no_grad``: what
        :func:`default_runtime` returns), as ``jax.default_device`` does for devices; the
        previous one again after the block. Nested blocks stack; other threads and tasks
        keep theirs."""
        _ENTERED.set((*_ENTERED.get(), self))
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc_info: object) -> None:
        """The runtimes as they were before this block: those entered inside it and not
        left end with it too, which is an ArgumentError naming them (unless an exception
        is already on its way out, which it would hide)."""
        entered = _ENTERED.get()
        at = next((i for i in range(len(entered) - 1, -1, -1) if entered[i] is self), None)
        if at is None:
            if kind is None:
                raise ArgumentError(f"{self!r} left a `with` block it did not enter in this context")
            return
        _ENTERED.set(entered[:at])
        left = entered[at + 1 :]
        if left and kind is None:
            raise ArgumentError(
                f"{self!r} left its `with` block while {', '.join(map(repr, left))} entered inside it had not left "
                f"theirs; nest the blocks (each ends before the one around it)"
            )

    def __repr__(self) -> str:
        return f"<EagerRuntime {id(self):#x}: {self._words()}>"

    def _words(self) -> str:
        """Which runtime this is, as a user tells them apart: the default one, or one with
        the installed plugins, with plugin objects of its own, or with those alone."""
        if self is _DEFAULT:
            return "the default runtime"
        plugins = self.registry.plugins
        own = sorted(name for name, info in plugins.items() if not info.distribution)  # passed as objects
        installed = any(info.distribution and name != "core" for name, info in plugins.items())
        if not own:
            return "a runtime of the installed plugins"
        listed = ", ".join(own)
        return f"a runtime of the installed plugins and {listed}" if installed else f"a runtime of the plugins {listed}"

    def mixed_with(self, other: EagerRuntime) -> str:
        """What to do about a tensor of ``other`` given to an op of this runtime."""
        if other is _DEFAULT:
            return (
                "tnp.zeros, tnp.eye, tnp.asarray, tf.constant and tf.variable make tensors of the default runtime: "
                "make them inside `with rt:`, where they make this runtime's, make the value a tensor of this "
                "runtime (its constant_from or variable_from), or pass the NumPy array itself, which operators and "
                "tenferro.numpy functions take as a constant of their tensors' runtime"
            )
        return "make the value a tensor of this runtime (its constant_from(t.value()))"


#: The engine of a runtime's implicit session when it has no default engine.
_CALLING_THREAD = CpuEngine("calling_thread")

_DEFAULT: EagerRuntime | None = None
_DEFAULT_LOCK = threading.Lock()
#: The runtimes entered with ``with rt:`` in this context, innermost last.
_ENTERED: ContextVar[tuple[EagerRuntime, ...]] = ContextVar("tenferro_entered_runtimes", default=())


def default_runtime() -> EagerRuntime:
    """The runtime ``tenferro.variable``, ``tenferro.constant`` and ``tenferro.numpy`` use
    when no tensor says otherwise: the innermost one entered with ``with rt:`` in this
    context, else the default runtime: every installed plugin, and a
    ``CpuEngine.per_thread()`` default engine, so ``backward()`` needs no engine and
    threads never refuse each other."""
    entered = _ENTERED.get()
    if entered:
        return entered[-1]
    global _DEFAULT
    if _DEFAULT is None:
        with _DEFAULT_LOCK:
            if _DEFAULT is None:
                _DEFAULT = EagerRuntime(engine=CpuEngine.per_thread())
    return _DEFAULT


def _as_array(tensor: Any, call: str) -> Any:
    if isinstance(tensor, EagerTensor):
        raise ArgumentError(f"{call}: got an EagerTensor; pass its value (x.value()) to make a new leaf")
    if type(tensor) is np.ndarray or isinstance(tensor, Tensor):  # the common case: copied below
        return array_from(tensor, call)
    # an engine's array (also one whose engine was not made yet): not gathered, and immutable here
    held = engines.kept(tensor)
    if engines.ENGINE_ARRAYS and isinstance(tensor, engines.ENGINE_ARRAYS):
        if tensor.dtype.kind not in "biufc":
            raise DTypeError(
                f"{call}: dtype {tensor.dtype} is not supported; use a bool, integer, float or complex array"
            )
        return held  # a new object, so that the caller's own cannot be changed under us (x[0] = 1)
    return array_from(tensor, call)


def _zero_if_none(rt: EagerRuntime, variable: EagerTensor, ct: EagerTensor | None) -> EagerTensor:
    if ct is not None:
        return ct
    value = variable._value
    if type(value) is not np.ndarray:  # another engine's variable: its own zeros (lazy, chunked alike)
        return EagerTensor(np.zeros_like(value), rt)
    return EagerTensor(freeze(np.zeros(variable.shape, variable.dtype)), rt)
