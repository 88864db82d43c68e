"""Engines: what executes kernels, lent to one session or backward pass at a time.

The engine is an explicit object (as in the seed, where the caller owns a CPU thread pool
and lends it) so that other engines (threaded, Dask, CuPy) can come later behind the same
two methods: :meth:`Engine.lend` and :meth:`Engine.run`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .errors import EngineBusy


class Engine:
    """Base class of engines. Subclasses define :meth:`run`; one whose ``run`` is a plain
    call on the calling thread sets ``inline = True``, and sessions then call kernels
    directly."""

    __slots__ = ("name", "_lock", "_holder")
    inline = False

    def __init__(self, name: str = "serial"):
        self.name = name
        self._lock = threading.Lock()
        self._holder = ""

    def lend(self, holder: str) -> Loan:
        """Lend the engine to ``holder`` for the duration of a ``with`` block.

        A second borrow while the first is active raises :class:`EngineBusy` at once (it
        never waits, so a nested session on the same engine cannot deadlock). While lent,
        NumPy floating-point warnings are silenced: kernels return IEEE results
        (``log(0) = -inf``, ``1/0 = inf``) without warnings, as PyTorch and JAX do.
        """
        return Loan(self, holder)

    @property
    def busy(self) -> bool:
        """True while the engine is lent."""
        return self._lock.locked()

    def run(self, kernel: Callable[..., Any], args: Sequence[Any], params: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}()"


class Loan:
    """The context manager of :meth:`Engine.lend` (a class, not a generator: it is entered
    for every session and backward pass, and a generator costs ~1 µs more)."""

    __slots__ = ("engine", "holder", "_quiet")

    def __init__(self, engine: Engine, holder: str):
        self.engine = engine
        self.holder = holder

    def __enter__(self) -> Engine:
        engine = self.engine
        if not engine._lock.acquire(blocking=False):
            raise EngineBusy(
                f"{engine!r} is already lent to {engine._holder}; one engine serves one session or "
                f"backward pass at a time. Call backward/rt.grad after the session returns, "
                f"or give the inner call an engine of its own"
            )
        engine._holder = self.holder
        self._quiet = np.errstate(all="ignore")
        self._quiet.__enter__()
        return engine

    def __exit__(self, *exc_info: object) -> None:
        self._quiet.__exit__(*exc_info)
        self.engine._holder = ""
        self.engine._lock.release()


class CpuEngine(Engine):
    """Runs kernels with NumPy on the calling thread."""

    __slots__ = ()
    inline = True

    @classmethod
    def serial(cls) -> CpuEngine:
        """An engine that runs every kernel on the calling thread, one after another."""
        return cls("serial")

    def run(self, kernel: Callable[..., Any], args: Sequence[Any], params: Mapping[str, Any]) -> Any:
        return kernel(*args, **params)
