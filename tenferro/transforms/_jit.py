"""``tf.jit``: a function traced once per signature and replayed as a compiled plan.

The first call with a new signature (the arguments' pytree structure, each array's shape
and dtype, the static values) runs ``f`` eagerly with its array arguments as variables of
a trace (``_replay._Program``, as ``tf.vmap``'s trace), which records every op computed
from them, derivative rules of transforms inside ``f`` included; its results are that
run's. The recorded program is kept in a bounded cache; a later call with the same
signature runs it as a plan (``_plan.Plan``, compiled at that first replay): its kernels
on the argument arrays, nothing recorded, bitwise the numbers of the eager call. Where an argument tracks a
derivative (``tf.grad(tf.jit(f))``, ``tf.jit`` inside ``tf.vmap``) or the program reads a
tensor from outside that does, the program runs through its ops instead, so that the
derivative flows (still without running ``f``'s Python again).

As in JAX, ``f``'s Python runs only while tracing: a read of a traced value into Python or
NumPy (``float(x)``, ``if x > 0``, ``np.asarray(x)``) is refused with
:class:`TracedValueError`, naming the line; Python numbers and other non-array leaves
among the arguments are static (part of the signature, each new value traced again), as
are the arguments ``static_argnums``/``static_argnames`` name; NumPy random draws and
side effects happen at the trace only; constants ``f`` closes over are read at the trace.
"""

from __future__ import annotations

import collections
import functools
import linecache
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tenferro.core.eager import EagerTensor, held
from tenferro.core.errors import ArgumentError, EngineError, TenferroError
from tenferro.core.runtime import default_runtime
from tenferro.core.tracing import Trace

from ._plan import Plan, reads_outside
from ._replay import _Program, replay
from ._trees import as_value, flatten, unflatten

#: How many signatures a jitted function keeps by default (least recently used dropped).
CACHE_SIZE = 64
#: The traces after which a jitted function warns that it traces again and again.
RETRACES_WARNED = 8

CacheInfo = collections.namedtuple("CacheInfo", "hits misses maxsize currsize")

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TracedValueError(TenferroError, TypeError):
    """A jitted function read a traced value as a Python or NumPy value (``float(x)``,
    ``if x > 0``, ``np.asarray(x)``), which the compiled plan cannot replay (JAX's
    ``ConcretizationTypeError``); the message names the line and the remedies."""


class RetraceWarning(UserWarning):
    """A jitted function was traced again many times: its signatures keep changing (a
    Python number or a shape that differs per call)."""


def jit(
    fun: Callable[..., Any],
    *,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    cache_size: int = CACHE_SIZE,
) -> Jitted:
    """``fun`` traced once per signature and replayed as a compiled plan, as ``jax.jit``
    (the module doc says what is traced, what is static and what is refused): results are
    bitwise the eager call's; it composes with the other transforms both ways
    (docs/jit.md)."""
    if not callable(fun):
        raise ArgumentError(f"jit: the function to compile must be callable, got {type(fun).__name__}")
    numbers = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise ArgumentError(f"jit: static_argnums must be ints, got {static_argnums!r}")
    if not all(isinstance(n, str) for n in names):
        raise ArgumentError(f"jit: static_argnames must be strings, got {static_argnames!r}")
    if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 1:
        raise ArgumentError(f"jit: cache_size must be a positive int, got {cache_size!r}")
    return Jitted(fun, numbers, names, cache_size)


class _Entry:
    """One signature's trace: the program, whether it reads a tracked tensor from outside
    (``_plan.reads_outside``), the output structure, and its plan, compiled when first run
    (a function called once with a signature never pays for it)."""

    __slots__ = ("program", "name", "outside", "out_spec", "_plan")

    def __init__(self, program: _Program, name: str):
        self.program, self.name, self.out_spec = program, name, program.out_spec
        self.outside = reads_outside(program)
        self._plan: Plan | None = None

    @property
    def plan(self) -> Plan:
        if self._plan is None:
            self._plan = Plan(self.program, self.name)
        return self._plan


class Jitted:
    """A jitted function (see :func:`jit`): call it as ``fun``; ``cache_info()`` counts its
    traces, ``plan_source(*args)`` shows the plan it runs for such arguments."""

    def __init__(
        self, fun: Callable[..., Any], static_argnums: tuple[int, ...], static_argnames: tuple[str, ...], size: int
    ):
        self._fun = fun
        self._static_argnums = static_argnums
        self._static_argnames = frozenset(static_argnames)
        self._size = size
        self._cache: collections.OrderedDict[Any, _Entry] = collections.OrderedDict()
        self._hits = self._misses = 0
        self._last_key: Any = None
        self._warned = False
        functools.update_wrapper(self, fun, updated=())
        self.__name__ = self.__qualname__ = f"jit({getattr(fun, '__name__', type(fun).__name__)})"

    def cache_info(self) -> CacheInfo:
        """Hits, misses (traces), the cache's size bound and how many signatures it holds,
        as ``functools.lru_cache``'s."""
        return CacheInfo(self._hits, self._misses, self._size, len(self._cache))

    def clear_cache(self) -> None:
        """Drop every plan (the counts stay)."""
        self._cache.clear()

    def plan_source(self, *args: Any, **kwargs: Any) -> str:
        """The text of the plan these arguments run (tracing ``fun`` if their signature is
        new), for reading what was traced."""
        call = _Arguments(self, args, kwargs)
        entry = self._cache.get(call.key)
        if entry is None:
            entry = self._trace(call)[0]
        if entry.program.unreplayable is not None:
            return f"# {self.__name__} runs eagerly at each call: {_eager_reason(entry.program)}\n"
        return entry.plan.source

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = _Arguments(self, args, kwargs)
        entry = self._cache.get(call.key)
        if entry is None:
            return self._trace(call)[1]
        self._hits += 1
        self._cache.move_to_end(call.key)
        if entry.program.unreplayable is not None:  # (see _trace)
            *positional, keywords = unflatten(call.spec, call.leaves)
            return call.function(*positional, **keywords)
        if call.tracks or entry.outside:
            return unflatten(entry.out_spec, _through_ops(entry.program, call))
        plan = entry.plan  # (compiled here on its first replay, outside the fallback below)
        try:
            results = _run(plan, call)
        except Exception as exc:  # a kernel refused these values: the ops again, for the error an eager call raises
            results = _through_ops(entry.program, call)
            warnings.warn(  # (they did not raise it: the plan itself is at fault)
                f"{self.__name__}: its plan raised {type(exc).__name__} ({exc}) where its ops did not, so this "
                f"call ran through the ops; this is a tenferro bug, please report it",
                RuntimeWarning,
                stacklevel=2,
            )
        return unflatten(entry.out_spec, results)

    def _trace(self, call: _Arguments) -> tuple[_Entry, Any]:
        """``fun`` traced on these arguments: the new entry and the results of the run."""
        self._misses += 1
        self._warn_if_retracing(call.key)
        name = self.__name__
        trace = Trace(refuse=functools.partial(_refused, name), traced="the jitted function's arguments")
        what = lambda: "an argument leaf"  # noqa: E731 - (the leaves were checked: as_value reads them)
        values = [None if x is None else as_value(x, call.rt, name, what) for x in call.traced]
        program = _Program(call.function, call.leaves, values, call.spec, call.rt, trace)
        if program.unreplayable is not None:
            warnings.warn(
                f"{name} runs the function eagerly at each call of this signature: {_eager_reason(program)}",
                UserWarning,
                stacklevel=3,
            )
        entry = _Entry(program, name)
        self._cache[call.key] = entry
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        if call.tracks or entry.outside:  # the derivative must flow from the caller's arguments
            results = _through_ops(program, call)
        else:  # the trace's own run, its results made constants
            results = [EagerTensor(held(x), call.rt) if type(x) is EagerTensor else x for x in program.outputs]
        return entry, unflatten(entry.out_spec, results)

    def _warn_if_retracing(self, key: Any) -> None:
        previous, self._last_key = self._last_key, key
        if self._misses < RETRACES_WARNED or self._warned:
            return
        self._warned = True
        changed = _difference(previous, key) if previous is not None else "the signature"
        warnings.warn(
            f"{self.__name__} was traced {self._misses} times; the last trace was for a new {changed}. "
            f"Pass values that change per call as arrays (a Python number is static: each value traces "
            f"again), or keep shapes fixed (docs/jit.md)",
            RetraceWarning,
            stacklevel=4,
        )


class _Arguments:
    """One call's arguments as the cache sees them: the signature (``key``), the leaves
    (static ones as they are; :attr:`traced` and :attr:`arrays` pick the array leaves),
    ``values``: the array leaves' arrays as the plan reads them, ``numpy_inputs``: those
    that are the caller's NumPy arrays, whether one tracks a derivative, the runtime and
    its current session, and ``function``, which puts the static arguments back around the
    leaves."""

    __slots__ = ("key", "leaves", "values", "numpy_inputs", "tracks", "spec", "rt", "session", "function")

    def __init__(self, jitted: Jitted, args: tuple[Any, ...], kwargs: dict[str, Any]):
        static: tuple[Any, ...] = ()
        if jitted._static_argnums or jitted._static_argnames:
            args, kwargs, static = _split_statics(jitted, args, kwargs)
        self.function = _with_statics(jitted._fun, dict(static)) if static else jitted._fun
        self.leaves, self.spec = flatten((*args, kwargs))
        descriptors: list[Any] = []
        self.values, self.numpy_inputs = values, numpy_inputs = [], []
        rt, tracks = None, False
        for index, leaf in enumerate(self.leaves):  # (the common leaf first: this loop is on every call)
            kind = type(leaf)
            if kind is np.ndarray:
                if leaf.dtype.kind not in "biufc":
                    raise ArgumentError(
                        f"{jitted.__name__}: argument leaf {index} is an array of dtype {leaf.dtype}, not of numbers; "
                        f"mark the argument static (static_argnums) or pass it another way"
                    )
                # read in place; C order, as the copy an op makes of it (sums in its order)
                numpy_inputs.append(leaf)
                values.append(leaf if leaf.flags.c_contiguous else np.ascontiguousarray(leaf))
            elif kind is EagerTensor:
                if rt is None:
                    rt = leaf.runtime
                elif leaf.runtime is not rt:
                    raise ArgumentError(
                        f"{jitted.__name__}: argument leaf {index} belongs to {leaf.runtime!r}, but the other "
                        f"arrays to {rt!r}; tensors of two runtimes cannot be mixed"
                    )
                tracks = tracks or leaf.tracks_grad()
                value = held(leaf)
                values.append(value)
                if not value.flags.c_contiguous:  # (a plan writes into buffers by the orders it traced)
                    descriptors.append((leaf.shape, leaf.dtype, False))
                    continue
            else:  # a Python number, a string, a NumPy scalar: static, by type and value
                descriptors.append((kind, _hashable(leaf, jitted, f"argument leaf {index}")))
                continue
            descriptors.append((leaf.shape, leaf.dtype))
        self.rt = rt = rt if rt is not None else default_runtime()
        self.session = session = rt.current_session()
        if not session.native:
            raise EngineError(
                f"{jitted.__name__}: tf.jit runs on a CpuEngine; this session's engine holds arrays that are not "
                f"NumPy's (a DaskEngine): call the function without tf.jit there"
            )
        self.tracks = tracks
        self.key = (self.spec, tuple(descriptors), static, self.rt)

    @property
    def traced(self) -> list[Any]:
        """Per leaf, the leaf where it is an array (traced), else None (static)."""
        return [leaf if type(leaf) in _ARRAYS else None for leaf in self.leaves]

    @property
    def arrays(self) -> list[Any]:
        return [leaf for leaf in self.leaves if type(leaf) in _ARRAYS]


#: The leaves a jitted function traces (the others are static).
_ARRAYS = frozenset({np.ndarray, EagerTensor})


def _split_statics(
    jitted: Jitted, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any], tuple[Any, ...]]:
    """The arguments with the static ones left empty (None, an empty pytree), and the
    static ones, by position or name, with their values."""
    count = len(args)
    positions = {n % count for n in jitted._static_argnums if -count <= n < count}
    names = jitted._static_argnames
    static = tuple((i, _hashable(args[i], jitted, f"static argument {i}")) for i in sorted(positions))
    static += tuple((k, _hashable(kwargs[k], jitted, f"static argument {k!r}")) for k in sorted(names) if k in kwargs)
    positional = tuple(None if i in positions else a for i, a in enumerate(args))
    return positional, {k: None if k in names else v for k, v in kwargs.items()}, static


def _with_statics(fun: Callable[..., Any], values: dict[Any, Any]) -> Callable[..., Any]:
    """``fun`` called with the static arguments (by position or name) in their places."""

    def function(*given: Any, **named: Any) -> Any:
        positional = (values.get(i, a) for i, a in enumerate(given))
        return fun(*positional, **{k: values.get(k, v) for k, v in named.items()})

    return function


def _hashable(value: Any, jitted: Jitted, what: str) -> Any:
    try:
        hash(value)
    except TypeError:
        raise ArgumentError(
            f"{jitted.__name__}: {what} is a {type(value).__name__}, which is neither an array nor hashable; a "
            f"static value must be hashable (it is part of the signature the plan is kept for)"
        ) from None
    return value


def _through_ops(program: _Program, call: _Arguments) -> list[Any]:
    """The program's ops called on the call's arguments (recorded, as any op: derivatives
    flow from arguments that track them)."""
    given = [(x if type(x) is EagerTensor else call.rt.constant_from(x), False) for x in call.arrays]
    return [value for value, _ in replay(program, given, call.rt)]


def _run(plan: Plan, call: _Arguments) -> list[Any]:
    """The plan on the call's arrays, under the engine's kernel context as an op's kernel
    runs (NumPy's floating-point warnings off); the results as constants, each copied
    where it shares memory with a NumPy argument (the plan reads those in place)."""
    rt, numpy_inputs = call.rt, call.numpy_inputs
    results = list(call.session.run_kernels(plan.run, *call.values))
    for index in plan.tensors:
        out = results[index]
        # an argument itself, what an op that may return its input gave, or a view (the
        # plan reads NumPy arguments in place)
        if numpy_inputs and (out.base is not None or index in plan.passed):
            if any(np.may_share_memory(out, x) for x in numpy_inputs):
                out = out.copy()
        out.setflags(False)  # (positional: a fifth of the cost of write=False)
        results[index] = EagerTensor(out, rt)
    return results


def _eager_reason(program: _Program) -> str:
    return (
        f"it calls {program.unreplayable}, an op whose recorded call holds the values of its run "
        f"(OpSpec(replayable=False)), so its trace cannot be replayed on other values (docs/jit.md)"
    )


def _refused(name: str, reason: str) -> TracedValueError:
    """The error for what blocks a jitted function's trace, naming the line of the user's
    code that did it (the innermost frame outside tenferro)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    where = ""
    if frame is not None:
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
        where = f" at {frame.f_code.co_filename}:{frame.f_lineno}" + (f" ({line})" if line else "")
    return TracedValueError(
        f"{name}: {reason}{where}. A jitted function is traced once per signature and replayed, so its Python "
        f"cannot depend on array values: compute a choice on values with tnp.where(cond, a, b), or mark the "
        f"argument static (tf.jit(f, static_argnums=...)) to trace once per value"
    )


def _difference(previous: Any, key: Any) -> str:
    """What differs between two signatures, in words."""
    spec_a, leaves_a, static_a, _ = previous
    spec_b, leaves_b, static_b, _ = key
    if spec_a != spec_b:
        return f"argument structure ({spec_b})"
    for index, (a, b) in enumerate(zip(leaves_a, leaves_b)):
        if a != b:
            return f"argument leaf {index} ({_shown(b)}; the trace before: {_shown(a)})"
    return "static argument value" if static_a != static_b else "signature"


def _shown(descriptor: Any) -> str:
    first, second, *order = descriptor
    if isinstance(first, tuple):
        return f"shape {list(first)} dtype {second}" + (" (not C order)" if order else "")
    return f"{first.__name__} {second!r}"
