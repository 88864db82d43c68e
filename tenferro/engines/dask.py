"""`DaskEngine`: the same kernels on dask arrays, chunked, on a ``distributed`` cluster when
there is one.

Values are dask arrays. The families' own (engine-neutral) kernels run on them through
NumPy's protocols, so an op builds a dask graph: its result has its shape and dtype at
once and is computed when read (``x.value()``, ``np.asarray(x)``, ``float(x)``,
``x.grad()``), or at once in the background on the workers with ``persist=True``. A NumPy
value that an op of this engine receives (a variable made from a NumPy array, the seed of
a backward pass) becomes a dask array with the engine's ``chunks`` and stays one (the
tensor keeps it). A kernel that would gather its dask arguments to this process (NumPy's
fallback for a function dask does not implement, ``np.asarray`` or ``bool`` of a dask
array inside a kernel) or whose result has a shape that depends on the values (boolean
masks, ``nonzero``) runs per matrix where its spec maps over leading batch axes (linalg's),
gathers where the engine's ``gather`` names it, and else raises
:class:`~tenferro.EngineError` naming the op and the engine. Making an engine changes
nothing in dask: what kernels need of it they ask through :mod:`tenferro.chunked`.

See docs/engines.md for the policy, its memory cost and what was measured.
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from collections.abc import Callable, Collection
from typing import Any

import numpy as np

from tenferro import batching
from tenferro.chunked import RUNNING
from tenferro.core.engine import Engine, discover_array_types, register_array_type
from tenferro.core.errors import ArgumentError, EngineError, KernelError, TenferroError

#: How dask announces that it is about to compute a function it does not implement.
_FALLBACK_WARNING = r".*is not implemented by Dask array"


class _Gathered(Exception):
    """Raised by the scheduler in force while a kernel runs: the kernel asked for a value."""


def fitted(chunks: Any, ndim: int) -> Any:
    """The engine's ``chunks`` for an array of ``ndim`` axes: a per-axis tuple for arrays of
    its rank, "auto" for the others (which of its sizes would fit a bias vector's axis or a
    per-example vector's cannot be told: an engine chunked (1000, 8) would give labels of
    10⁵ examples 12 500 chunks of 8); a number, a size or "auto" applies to every axis and
    a dict (by axis) to the axes an array has, as dask reads them."""
    if type(chunks) is tuple and len(chunks) != ndim:
        return "auto"
    return chunks


def _checked_chunks(da: Any, chunks: Any) -> Any:
    """``chunks`` as the engine keeps them, or ArgumentError: what ``da.from_array`` accepts
    but block sizes per axis (a tuple of tuples), which fit one shape only."""
    given = tuple(chunks) if isinstance(chunks, list) else chunks
    entries = given if type(given) is tuple else given.values() if isinstance(given, dict) else (given,)
    if any(isinstance(entry, (tuple, list)) for entry in entries):
        raise ArgumentError(
            f"DaskEngine: chunks={chunks!r} gives block sizes, which fit arrays of one shape only, but the engine "
            f"chunks every array that enters it; give a size per axis (an int, -1 or None for the whole axis, "
            f"'auto'), one for all axes, or a byte size ('64 MiB')"
        )
    ndim = len(given) if type(given) is tuple else 2  # (a dict's axes an array lacks: ignored, as dask does)
    try:
        da.core.normalize_chunks(fitted(given, ndim), (1024,) * ndim, dtype=np.float64)
    except Exception as exc:
        raise ArgumentError(f"DaskEngine: chunks={chunks!r} is not what dask.array.from_array takes: {exc}") from None
    return given


def _checked_gather(gather: Any) -> tuple[str, ...]:
    """``gather`` as a tuple of op names (one name alone is taken too), or ArgumentError."""
    names = (gather,) if isinstance(gather, str) else gather
    try:
        names = tuple(names)
    except TypeError:
        names = None
    if names is None or not all(isinstance(name, str) for name in names):
        raise ArgumentError(
            f"DaskEngine: gather={gather!r} must name the ops that may gather their inputs, e.g. "
            f"gather=('boolean_mask', 'argwhere')"
        )
    return names


def _kept(array: Any) -> Any:
    """A new dask Array object on the same graph: ``a[i] = v`` rebinds the caller's object
    (dask's setitem), never this one, and no data is copied (``a.copy()`` of one chunk would)."""
    return type(array)(array.dask, array.name, array.chunks, meta=array._meta)


def _dask() -> tuple[Any, Any]:
    """``dask`` and ``dask.array``, or the error that says how to install them."""
    try:
        import dask
        import dask.array as da
    except ImportError as exc:
        raise EngineError(
            f"DaskEngine needs dask[array] and distributed ({exc}); install them with pip install -e '.[dask]' "
            f"in a clone of tenferro"
        ) from None
    register_array_type(da.Array, _kept)
    return dask, da


class DaskEngine(Engine):
    """Runs every op's kernel on dask arrays (see the module docstring).

    ``client``: a ``distributed.Client`` whose workers hold persisted values (``None``:
    dask's current scheduler, which is a Client you created, else dask's threads).
    ``chunks``: how a NumPy value entering the engine is chunked (``da.from_array``'s
    ``chunks``; ``"auto"`` gives chunks of about dask's ``array.chunk-size``, 128 MiB),
    fitted to each array's rank (:func:`fitted`: a size per axis for arrays of its rank,
    "auto" for the others); block sizes per axis, which fit one shape only, are refused
    here (ArgumentError).
    ``persist``: ``False`` keeps every result a lazy graph (nothing is computed until read;
    reading a gradient computes the forward pieces it needs once, as a hand-written dask
    gradient does); ``True`` persists each result as it is made, so the trace holds
    computed chunks on the workers (memory: every value the trace keeps, on the cluster).
    ``gather``: names of ops that may gather their inputs into this process where they have
    no path on dask (an op whose result's shape is its values', ``boolean_mask``,
    ``argwhere``, ``nonzero``; ``scatter``'s modes other than add): their NumPy kernel runs
    here on the computed inputs, and the results enter the engine again. No other op ever
    gathers; each gathered call costs its inputs' transfer (docs/engines.md).
    """

    __slots__ = ("client", "chunks", "persist", "gather", "_dask", "_da")

    native = False

    def __init__(
        self, client: Any = None, chunks: Any = "auto", persist: bool = False, gather: Collection[str] = ()
    ) -> None:
        super().__init__("dask")
        self._dask, self._da = _dask()
        self.client = client
        self.chunks = _checked_chunks(self._da, chunks)
        self.persist = bool(persist)
        self.gather = _checked_gather(gather)

    def context(self) -> contextlib.AbstractContextManager[Any]:
        """NumPy's floating-point warnings off (as CpuEngine) for what runs in this process."""
        return np.errstate(all="ignore")

    # -- the seam ----------------------------------------------------------------------------
    def enter(self, value: np.ndarray) -> Any:
        """A NumPy value as a dask array of the engine's chunks (named by its content, so
        the same array entered twice is one set of chunks in a graph)."""
        return self._da.from_array(value, chunks=fitted(self.chunks, value.ndim) if value.ndim else ())

    def adopt(self, out: Any) -> Any:
        if not isinstance(out, self._da.Array):
            return None
        if self.persist:  # computed now: under the engine's context, as its kernels are
            with self.context():
                return self.client.persist(out) if self.client is not None else out.persist()
        return out

    def ones(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        return self._da.ones(shape, dtype=dtype, chunks=fitted(self.chunks, len(shape)) if shape else ())

    def zeros(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        return self._da.zeros(shape, dtype=dtype, chunks=fitted(self.chunks, len(shape)) if shape else ())

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        """``np.broadcast_to(x, shape)`` of a dask array in a kernel of this engine, the
        axes it makes or stretches chunked as this engine chunks a new array, where dask
        would make each one chunk: the cotangent of a sum (its seed broadcast to the input's
        shape) then has the input's chunks, each made where it is used, instead of one chunk
        of N elements split and sent between workers. Values are np.broadcast_to's."""
        da = self._da
        new = len(shape) - x.ndim
        if new < 0 or shape == x.shape or not all(o in (1, n) for o, n in zip(x.shape, shape[new:])):
            return np.broadcast_to(x, shape)  # (nothing to chunk, or NumPy's error)
        target = da.core.normalize_chunks(fitted(self.chunks, len(shape)), shape, dtype=x.dtype)
        chunks = tuple(target[i] if i < new or x.shape[i - new] == 1 else x.chunks[i - new] for i in range(len(shape)))
        return da.broadcast_to(x, shape, chunks=chunks)

    def kernel(self, spec: Any) -> Callable[..., Any]:
        """``spec.forward`` run so that it cannot compute a dask value: while it runs, dask's
        scheduler is one that refuses in this context (a gather would happen in this
        process); a refusal, or a result whose shape depends on the values, goes to
        :meth:`_without_path` (per matrix, gathered where asked, or an EngineError)."""
        forward, dask, array_type = spec.forward, self._dask, self._da.Array
        engine = self

        def run(*values: Any, **params: Any) -> Any:
            asked: list[str] = []
            refused: str | None = None  # why dask refused the kernel's call, if it did

            def refuse(*args: Any, **kwargs: Any) -> Any:
                if RUNNING.get() is not engine:  # another thread computing meanwhile: not this kernel's gather
                    return _unrefused_scheduler()(*args, **kwargs)
                asked.append(_gathering())
                raise _Gathered

            token = RUNNING.set(engine)  # (and tenferro.chunked.broadcast asks it for chunks)
            try:
                with dask.config.set(scheduler=refuse), warnings.catch_warnings():
                    warnings.filterwarnings("ignore", _FALLBACK_WARNING, FutureWarning)
                    out = forward(*values, **params)
            except EngineError as exc:  # the kernel's own word that it has no path here
                if spec.name not in engine.gather:
                    raise EngineError(f"{exc}; or let the engine gather its inputs: {_opt_in(spec)}") from None
                refused = str(exc)
            except TenferroError:
                raise
            except Exception as exc:
                if not asked:
                    # The op's explain (what the session would call) sees dask values too: it
                    # may not compute them either, so it runs here, under the refusing scheduler.
                    with dask.config.set(scheduler=refuse):
                        explained = _explained(spec, values, params)
                    if explained is not None:  # the arguments are wrong on any engine
                        raise explained from None
                    if not _raised_by_dask(exc):
                        raise KernelError(
                            f"{spec.name} (plugin {spec.plugin!r}) failed on {engine!r}: {type(exc).__name__}: "
                            f"{exc}; check its arguments against its signature {spec.signature}"
                        ) from None
                    refused = f"dask refused it ({type(exc).__name__}: {exc})"  # chunking, an unsupported argument
            finally:
                RUNNING.reset(token)
            if asked:
                return engine._without_path(spec, values, params, asked[0])
            if refused is not None:
                return engine._without_path(spec, values, params, refused)
            for item in out if isinstance(out, (tuple, list)) else (out,):
                if isinstance(item, array_type) and any(math.isnan(d) for d in item.shape):
                    return engine._without_path(spec, values, params, "the shape of its result depends on the values")
            return out

        return run

    def _without_path(self, spec: Any, values: tuple[Any, ...], params: dict[str, Any], why: str) -> Any:
        """An op whose kernel has no path on dask arrays (``why``): per matrix where its
        spec says it maps over leading batch axes, gathered where ``gather`` names it, else
        the EngineError that says so."""
        stacked = _per_matrix(self._da, spec, values, params)
        if stacked is not None:
            return stacked
        if spec.name not in self.gather:
            raise _no_path(spec, self, why)
        arrays = [i for i, v in enumerate(values) if isinstance(v, self._da.Array)]
        pending = [values[i] for i in arrays]
        client = self.client
        computed = client.gather(client.compute(pending)) if client is not None else self._dask.compute(*pending)
        given = list(values)
        for i, value in zip(arrays, computed):
            given[i] = value
        with self.context():
            out = spec.forward(*given, **params)
        if isinstance(out, (tuple, list)):
            return type(out)(self.enter(np.asarray(item)) for item in out)
        return self.enter(np.asarray(out))

    def __repr__(self) -> str:
        client = "None" if self.client is None else type(self.client).__name__
        gather = f", gather={self.gather!r}" if self.gather else ""
        return f"DaskEngine(client={client}, chunks={self.chunks!r}, persist={self.persist}{gather})"


#: The batching rules that say an op maps over leading batch axes by itself (linalg's):
#: its kernel can run on each block of a stack whose matrices are whole (see _per_matrix).
_STACKED_RULES = (batching.leading, batching.solve, batching.matrices)


def _per_matrix(da: Any, spec: Any, values: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """``spec.forward`` on each block of its inputs' stacks, each matrix (an input's last
    two axes, and for the first input's batch axes the rest of another input's; a solve's
    1-D right-hand side is a vector) whole in one chunk (``da.apply_gufunc``): NumPy's
    kernel per matrix, bitwise CpuEngine's, for an op that maps over leading batch axes and
    has no distributed algorithm for these arguments (dask's own, tried first, refused).
    The results' core shapes and dtypes are the kernel's on a stack of one identity matrix
    per input (shapes do not depend on values). None for any other op."""
    if spec.batch not in _STACKED_RULES or spec.variadic:
        return None
    arrays = [i for i, v in enumerate(values) if isinstance(v, da.Array)]
    if not arrays or arrays[0] != 0:
        return None
    batch = values[0].ndim - 2  # the first input is a stack of matrices
    if batch < 0:
        return None  # (the kernel's own error stands)
    if spec.batch is batching.solve:  # b: a vector when 1-D (NumPy 2's rule), else a stack of matrices
        cores = {i: 1 if i == 1 and values[i].ndim == 1 else 2 for i in arrays}
    elif spec.batch is batching.matrices:  # stacks of matrices, batch axes broadcasting
        cores = dict.fromkeys(arrays, 2)
    else:  # every input has the first one's batch axes (eigh_weighted's weights: a stack of vectors)
        cores = {i: values[i].ndim - batch for i in arrays}
    if any(cores[i] < 0 or values[i].ndim < cores[i] for i in arrays):
        return None
    lead = max(values[i].ndim - cores[i] for i in arrays)
    probes = list(values)
    for i in arrays:
        value, core = values[i], values[i].shape[values[i].ndim - cores[i] :]
        probe = np.eye(*core, dtype=value.dtype) if len(core) == 2 else np.ones(core, value.dtype)
        probes[i] = np.reshape(probe, (1,) * (value.ndim - cores[i]) + core)
    with np.errstate(all="ignore"):
        shown = spec.forward(*probes, **params)  # a TenferroError here is the arguments' own
    results = tuple(shown) if spec.multiple_results else (shown,)
    names = {i: [f"i{i}_{d}" for d in range(cores[i])] for i in arrays}
    sizes = {f"r{k}_{d}": n for k, r in enumerate(results) for d, n in enumerate(np.shape(r)[lead:])}
    outs = [f"({','.join(f'r{k}_{d}' for d in range(np.ndim(r) - lead))})" for k, r in enumerate(results)]
    ins = ["(" + ",".join(names[i]) + ")" for i in arrays]
    signature = f"{','.join(ins)}->{','.join(outs)}"

    def kernel(*blocks: Any) -> Any:
        given = list(values)
        for i, block in zip(arrays, blocks):
            given[i] = block
        out = spec.forward(*given, **params)
        return tuple(out) if spec.multiple_results else out

    dtypes = [np.result_type(r) for r in results]
    out = da.apply_gufunc(
        kernel,
        signature,
        *(values[i] for i in arrays),
        output_dtypes=dtypes if spec.multiple_results else dtypes[0],
        output_sizes=sizes,
        allow_rechunk=True,
    )
    return tuple(out) if spec.multiple_results else out


def _unrefused_scheduler() -> Callable[..., Any]:
    """The scheduler dask picks when none is configured (the refusing one is, for the few
    microseconds a kernel runs, process-wide): the default distributed Client's, else
    dask's threads."""
    try:
        from distributed import get_client  # noqa: PLC0415

        return get_client().get
    except (ImportError, ValueError):  # no distributed, or no client
        import dask.threaded  # noqa: PLC0415

        return dask.threaded.get


def _gathering() -> str:
    """What, in the kernel running now, asked dask to compute: the NumPy function dask
    does not implement (found in dask's fallback frame), else a conversion."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "handle_nonmatching_names" and "func" in frame.f_locals:
            func = frame.f_locals["func"]
            return (
                f"its kernel calls {func.__module__}.{func.__name__}, which dask does not implement (dask would gather)"
            )
        frame = frame.f_back
    return "its kernel reads a dask value (np.asarray, bool, float or compute: a gather to one process)"


def _explained(spec: Any, values: tuple[Any, ...], params: dict[str, Any]) -> Exception | None:
    """The TenferroError the op's ``explain`` gives for these arguments, if any."""
    if spec.explain is None:
        return None
    try:
        found = spec.explain(*values, **params)
    except TenferroError as raised:
        return raised
    except Exception:
        return None
    return found if isinstance(found, TenferroError) else None


def _raised_by_dask(exc: BaseException) -> bool:
    """Whether the innermost frame of ``exc``'s traceback is dask's own code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and str(tb.tb_frame.f_globals.get("__name__", "")).startswith("dask.")


def _no_path(spec: Any, engine: DaskEngine, why: str) -> EngineError:
    return EngineError(
        f"{spec.name} (plugin {spec.plugin!r}) has no path on {engine!r}: {why}; tenferro never gathers a dask "
        f"value silently. Run this op on CpuEngine with values read first (x.value()), apply it to a part "
        f"that fits in memory, or let the engine gather its inputs: {_opt_in(spec)}"
    )


def _opt_in(spec: Any) -> str:
    return f"DaskEngine(..., gather=({spec.name!r},))"


def _discover(value: Any) -> bool:
    """A dask array met before any DaskEngine was made (dask imported after tenferro): its
    type is registered then, so it is kept lazily, not computed into this process."""
    module = sys.modules.get("dask.array")
    if module is not None and isinstance(value, module.Array):
        register_array_type(module.Array, _kept)
        return True
    return False


if "dask.array" in sys.modules:  # dask already loaded: its arrays are engine values from now on
    register_array_type(sys.modules["dask.array"].Array, _kept)
discover_array_types(_discover)
