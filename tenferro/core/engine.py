"""Engines: what kernels run on, lent to one session or backward pass at a time.

The engine is an explicit object (as in the seed, where the caller owns a CPU thread pool
and lends it) so that other engines (Dask, CuPy) can come later behind the same seam: an
engine is lent with :meth:`Engine.lend`, and while it is lent its :meth:`Engine.context`
is in force around every kernel the session runs.

The seam for engines whose values are not NumPy arrays (``tenferro.DaskEngine``): such an
engine is not :attr:`Engine.native`, and the ops of its sessions (see ``call.method``) give
each NumPy value to :meth:`Engine.enter` before the kernel, run the kernel as
:meth:`Engine.kernel` wraps it, and hand each result that is not an ndarray to
:meth:`Engine.adopt`. A native engine's sessions keep the inline
``type(x) is np.ndarray`` checks and pay nothing for the seam. Values of another engine are
read (computed, gathered) only at the exits: ``x.value()``, ``np.asarray(x)``, ``float(x)``,
``x.grad()``, ``grads[x]`` and printing (``tensor.read``).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .errors import EngineBusy

T = TypeVar("T")

try:  # NumPy's error state is a context variable; setting it costs 0.2 µs, np.errstate 1.2 µs
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE

    with np.errstate(all="ignore"):
        _QUIET = _ERRSTATE.get()
except (ImportError, AttributeError):  # another NumPy layout: the public (slower) context manager
    _ERRSTATE = None


#: Array types of engines that are not native (registered by them, e.g. dask's Array):
#: ``rt.variable_from``/``constant_from`` keep such a value (no gather), as :func:`kept` says.
ENGINE_ARRAYS: tuple[type, ...] = ()
_KEEP: dict[type, Callable[[Any], Any]] = {}


def register_array_type(cls: type, keep: Callable[[Any], Any]) -> None:
    """Declare ``cls`` the array type of an engine; ``keep(a)`` is ``a`` as tenferro holds
    it: a value no later change to the caller's ``a`` can reach (without copying data)."""
    global ENGINE_ARRAYS
    if cls not in ENGINE_ARRAYS:
        ENGINE_ARRAYS = (*ENGINE_ARRAYS, cls)
    _KEEP[cls] = keep


#: Functions that recognise an engine's array before its engine was made (its library was
#: imported after tenferro) and register its type; see :func:`kept`.
_DISCOVERERS: list[Callable[[Any], bool]] = []


def discover_array_types(discover: Callable[[Any], bool]) -> None:
    """Add ``discover(value)``: True after it registered ``value``'s type as an engine's
    (``register_array_type``), so that such a value is never taken for array-like data
    and computed into a NumPy array in this process."""
    _DISCOVERERS.append(discover)


def kept(value: Any, discovering: bool = True) -> Any:
    """An engine's array given to ``variable_from``/``constant_from``, as tenferro holds it."""
    for cls, keep in _KEEP.items():
        if isinstance(value, cls):
            return keep(value)
    if discovering and not isinstance(value, (np.ndarray, np.generic)) and any(d(value) for d in _DISCOVERERS):
        return kept(value, discovering=False)
    return value


class Engine:
    """Base class of engines: lending, and the context kernels run in.

    An engine whose values are NumPy arrays is :attr:`native`; one that holds values of
    another type (dask arrays) sets ``native = False`` and overrides :meth:`enter`,
    :meth:`adopt`, :meth:`kernel` and :meth:`ones` (see the module docstring)."""

    __slots__ = ("name", "_lock", "_holder", "_kernels", "__weakref__")

    #: Whether values are NumPy arrays (sessions then take the inline checks of NumPy values).
    native: bool = True

    def __init__(self, name: str = "serial"):
        self.name = name
        self._lock = threading.Lock()
        self._holder = ""
        self._kernels: dict[Any, Callable[..., Any]] = {}  # an engine that is not native: its kernel per op

    def lend(self, holder: str) -> Loan:
        """Lend the engine to ``holder`` for the duration of a ``with`` block.

        A second borrow while the first is active raises :class:`EngineBusy` at once (it
        never waits, so a nested session on the same engine cannot deadlock).
        """
        return Loan(self, holder)

    def context(self) -> contextlib.AbstractContextManager[Any]:
        """What is in force while the engine is lent (nothing, for the base class)."""
        return contextlib.nullcontext()

    def kernel_state(self) -> tuple[contextvars.ContextVar[Any], Any] | None:
        """When :meth:`context` amounts to setting one context variable: the variable and
        its value, which a loan sets instead of entering :meth:`context`, and an op called
        outside any session around its kernel alone (a few hundred ns cheaper per op than
        entering :meth:`context`). None: enter :meth:`context`."""
        return None

    # -- the seam for engines whose values are not NumPy arrays ------------------------------
    def enter(self, value: np.ndarray) -> Any:
        """A NumPy value an op of this engine's session receives, as this engine's array
        (the tensor holding it keeps the result: it moves to the engine once)."""
        return value

    def adopt(self, out: Any) -> Any:
        """A kernel's result that is not an ndarray, as this engine's value; None when it is
        not one of this engine's arrays (the session then converts NumPy scalars itself)."""
        return None

    def kernel(self, spec: Any) -> Callable[..., Any]:
        """The forward kernel of ``spec`` as this engine runs it (wrapped, e.g. to refuse a
        kernel that would gather its inputs to one process)."""
        return spec.forward

    def kernel_of(self, op: Any) -> Callable[..., Any]:
        """:meth:`kernel` of an op's spec (``op``, an :class:`~tenferro.core.op.Op`), made
        once per op: what a session on this engine runs (kept on the engine, so the op's
        kernels go with it)."""
        kernel = self._kernels.get(op)
        if kernel is None:
            kernel = self._kernels[op] = self.kernel(op.spec)
        return kernel

    def ones(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        """Ones as a value of this engine (the cotangent forward mode transposes a VJP on)."""
        return np.ones(shape, dtype)

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        """Zeros as a value of this engine (the tangent of an input that has none)."""
        return np.zeros(shape, dtype)

    @property
    def busy(self) -> bool:
        """True while the engine is lent."""
        return self._lock.locked()

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}()"


class Loan:
    """The context manager of :meth:`Engine.lend` (a class, not a generator: it is entered
    for every session and backward pass, and a generator costs ~1 µs more)."""

    __slots__ = ("engine", "holder", "_context")

    def __init__(self, engine: Engine, holder: str):
        self.engine = engine
        self.holder = holder

    def __enter__(self) -> Engine:
        engine = self.engine
        if not engine._lock.acquire(False):  # never waits (positional: 0.14 µs less per lend)
            raise EngineBusy(
                f"{engine!r} is already lent to {engine._holder}; one engine serves one session or "
                f"backward pass at a time. Call backward/rt.grad after the session returns, "
                f"or give the inner call an engine of its own"
            )
        engine._holder = self.holder
        try:
            state = engine.kernel_state()
            if state is None:
                self._context = engine.context()
                self._context.__enter__()
            else:  # one context variable: set it (0.2 µs) rather than enter np.errstate (1.2 µs)
                self._context = (state[0], state[0].set(state[1]))
        except BaseException:
            engine._holder = ""
            engine._lock.release()  # a context that fails to start must not leave the engine lent
            raise
        return engine

    def __exit__(self, *exc_info: object) -> None:
        context = self._context
        if type(context) is tuple:
            context[0].reset(context[1])
        else:
            context.__exit__(*exc_info)
        self.engine._holder = ""
        self.engine._lock.release()


class CpuEngine(Engine):
    """Runs kernels with NumPy on the calling thread."""

    __slots__ = ()

    @classmethod
    def serial(cls) -> CpuEngine:
        """An engine that runs every kernel on the calling thread, one after another."""
        return cls("serial")

    @classmethod
    def per_thread(cls) -> CpuEngine:
        """An engine each thread borrows on its own: nested use in one thread raises
        ``EngineBusy`` as for :meth:`serial`, but two threads never wait for or refuse each
        other. ``tenferro.default_runtime()`` uses one, so the front end works from any thread."""
        return _PerThreadCpuEngine("per_thread")

    def context(self) -> contextlib.AbstractContextManager[Any]:
        """NumPy's floating-point warnings are off while the engine is lent: kernels return
        IEEE results (``log(0) = -inf``, ``1/0 = inf``) silently, as PyTorch and JAX do."""
        return np.errstate(all="ignore")

    def kernel_state(self) -> tuple[contextvars.ContextVar[Any], Any] | None:
        """NumPy's error-state context variable, when this NumPy keeps it where tenferro
        looks, and the state ``np.errstate(all="ignore")`` made at import: every warning off,
        NumPy's default buffer size and no ``np.seterrcall`` callback (a kernel rarely
        depends on either; a sixth of ``np.errstate``'s cost per call)."""
        if _ERRSTATE is None or type(self).context is not CpuEngine.context:
            return None  # a subclass with a context of its own: that context, not this shortcut
        return _ERRSTATE, _QUIET


class _PerThreadCpuEngine(CpuEngine):
    """A CpuEngine lent per thread: each thread borrows a serial engine of its own."""

    __slots__ = ("_mine",)

    def __init__(self, name: str):
        super().__init__(name)
        self._mine = threading.local()

    def _engine(self) -> CpuEngine:
        engine = getattr(self._mine, "engine", None)
        if engine is None:
            engine = self._mine.engine = CpuEngine("per_thread")
        return engine

    def lend(self, holder: str) -> Loan:
        return Loan(self._engine(), holder)

    @property
    def busy(self) -> bool:
        """True while the engine is lent in this thread."""
        return self._engine().busy
