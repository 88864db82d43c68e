"""The one recording switch: whether ops of a runtime record nodes right now.

Recording is on unless the current thread (or asyncio task) is inside ``rt.no_grad()`` for
that runtime. The state lives in a context variable, as PyTorch's grad mode is
thread-local: ``no_grad`` in one thread never pauses another thread's training, and two
``no_grad`` blocks that overlap without nesting (two threads, two tasks) each restore
their own state (a block removes its own entry on exit, so even blocks that overlap
without nesting in one thread restore recording correctly). ``backward`` runs its VJP
rules under the same switch, so it builds no derivative trace.
"""

from __future__ import annotations

import os
import sys
from contextvars import ContextVar
from types import FrameType, TracebackType
from typing import Any

from .errors import ArgumentError, TenferroError

#: The runtimes whose recording is paused in the current context, once per open block.
_PAUSED: ContextVar[tuple[Any, ...]] = ContextVar("tenferro_paused_runtimes", default=())

#: ``runtime in paused()``: True while ``runtime`` records nothing in this context.
paused = _PAUSED.get


class no_grad:  # noqa: N801 - used like a function: ``with no_grad(rt):``
    """Pause recording for ``runtime`` in the current context until the block ends (a
    class, not a generator: ``backward`` enters one per call, and a generator costs µs)."""

    __slots__ = ("runtime",)

    def __init__(self, runtime: Any):
        self.runtime = runtime

    def __enter__(self) -> None:
        _PAUSED.set((*_PAUSED.get(), self.runtime))

    def __exit__(self, *exc_info: object) -> None:
        blocks = list(_PAUSED.get())
        if self.runtime not in blocks:
            raise ArgumentError(
                "no_grad: this block is ending in another thread or context than the one it began in; "
                "enter and leave a no_grad block in one thread (or asyncio task)"
            )
        blocks.remove(self.runtime)  # entries of one runtime are alike: removing any one is right
        _PAUSED.set(tuple(blocks))


class recording:  # noqa: N801 - used like a function: ``with recording(rt):``
    """Record ops of ``runtime`` in the current context until the block ends, even inside
    ``no_grad`` (PyTorch's ``enable_grad``): a function transform differentiates its own
    function whatever the caller paused, as ``torch.func.grad`` does."""

    __slots__ = ("runtime", "_token")

    def __init__(self, runtime: Any):
        self.runtime = runtime

    def __enter__(self) -> None:
        blocks = _PAUSED.get()
        if self.runtime in blocks:
            self._token = _PAUSED.set(tuple(b for b in blocks if b is not self.runtime))
        else:
            self._token = None

    def __exit__(self, *exc_info: object) -> None:
        if self._token is not None:
            _PAUSED.reset(self._token)


#: The function transforms whose function is running in this context, innermost last: per
#: transform its name, the trace's creation number before its arguments were made, and the
#: ids of the vertices it differentiates (see ``EagerTensor._read``).
_DIFFERENTIATING: ContextVar[tuple[tuple[str, int, frozenset[int]], ...]] = ContextVar(
    "tenferro_differentiating", default=()
)

#: ``differentiating()``: the transforms running in this context (empty outside any).
differentiating = _DIFFERENTIATING.get


class differentiated:  # noqa: N801 - used like a function: ``with differentiated(...):``
    """For the block, a transform named ``transform`` differentiates the vertices ``ids``,
    made after creation number ``floor``: reading a value computed from them as a NumPy
    array or a Python float would cut the derivative, and is refused.

    NumPy replaces some errors of the conversions it calls with its own (``a[0] = x[0]``
    and ``a.fill(x)`` call ``float(x)`` and raise "setting an array element with a
    sequence", ``np.nditer(x)`` a TypeError about write flags): an error other than a
    TenferroError that ends the block where a refusal was swallowed (its cause, or raised at
    the line that asked for the value) becomes the refusal again, so its words reach the user."""

    __slots__ = ("entry", "_token", "_refused")

    def __init__(self, transform: str, floor: int, ids: frozenset[int]):
        self.entry = (transform, floor, ids)

    def __enter__(self) -> None:
        self._token = _DIFFERENTIATING.set((*_DIFFERENTIATING.get(), self.entry))
        self._refused = _REFUSED.set(None)

    def __exit__(self, kind: Any, error: BaseException | None, traceback: TracebackType | None) -> None:
        refusal = _REFUSED.get()
        _REFUSED.reset(self._refused)
        _DIFFERENTIATING.reset(self._token)
        if refusal is not None and isinstance(error, Exception) and not isinstance(error, TenferroError):
            if _swallowed(error, *refusal):
                raise ArgumentError(f"{refusal[0]} (NumPy reported it as {type(error).__name__}: {error})") from error


#: The last value refused in this context while a transform's function runs: the error,
#: and the frame and line outside tenferro that asked for the value.
_REFUSED: ContextVar[tuple[ArgumentError, FrameType | None, int] | None] = ContextVar("tenferro_refused", default=None)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def refused(error: ArgumentError) -> ArgumentError:
    """``error``, a value's refusal about to be raised, noted for :class:`differentiated`."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    _REFUSED.set((error, frame, frame.f_lineno if frame is not None else -1))
    return error


def _swallowed(error: BaseException, refusal: ArgumentError, frame: FrameType | None, line: int) -> bool:
    """Whether ``error`` replaced ``refusal``: it is in its chain of causes, or ``error``
    passed the line that asked for the refused value."""
    seen: BaseException | None = error
    while seen is not None:
        if seen is refusal:
            return True
        seen = seen.__cause__ or seen.__context__
    entry = error.__traceback__
    while entry is not None:
        if entry.tb_frame is frame and entry.tb_lineno == line:
            return True
        entry = entry.tb_next
    return False
