"""One transform's call of the user's function: its arguments as the transform's own
vertices, the recorded outputs, and the sweeps (backward) and pushes (forward) over them.

A transform records ``f`` once on its arguments' runtime. An argument that an enclosing
transform (or the user's variable) tracks enters as ``alias(x)``, a node of its own, so
the sweeps stop there and the enclosing transform's paths through ``x`` stay its own (no
perturbation confusion); any other argument enters as a fresh variable. Derivatives are
recorded only where something outside the call could differentiate them: an argument, a
closure or a tangent tracked from outside. Otherwise they are computed unrecorded and
returned as constants, so a training loop over transform results keeps no history.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np

from tenferro.core.eager import EagerTensor, held, vertex
from tenferro.core.engine import CpuEngine, Engine
from tenferro.core.errors import ArgumentError, DTypeError, ShapeMismatch
from tenferro.core.forward import Plan, forward_plan, push_tangents
from tenferro.core.graph import leading_to, reachable
from tenferro.core.recording import differentiated, no_grad, paused, recording
from tenferro.core.runtime import EagerRuntime
from tenferro.core.sweep import reverse_sweep
from tenferro.core.tensor import dtype_name, freeze, seal
from tenferro.core.trace import SEQUENCE, Node

from ._borrow import NOTHING_BORROWED, borrow
from ._trees import NUMBERS, as_value, check_dtype, flatten, runtime_of_trees, unflatten, where_in

#: The dtypes of the common differentiated leaf, a real array (checked inline by Call._record).
_REAL = frozenset({np.dtype(np.float64), np.dtype(np.float32)})


class Call:
    """``f`` called once by a transform on its differentiated leaves (see the module doc).

    ``outputs`` are the flat output leaves as EagerTensors, ``out_spec`` their structure;
    ``starts`` the vertices of the differentiated leaves, in order; ``record`` whether
    derivatives must be recorded (something outside the call tracks its inputs, and the
    caller records: inside ``no_grad`` a transform still differentiates its function, as
    ``torch.func.grad`` does, but its results are constants).

    ``complex_inputs`` is ``"allow"`` (reverse mode), ``"refuse"`` (forward-mode Jacobians
    of a non-holomorphic function) or ``"require"`` (``holomorphic=True``), as JAX has it."""

    def __init__(
        self,
        transform: str,
        f: Callable[..., Any],
        args: tuple[Any, ...],
        argnums: tuple[int, ...],
        engine: Engine | None,
        has_aux: bool = False,
        complex_inputs: str = "allow",
        kwargs: dict[str, Any] | None = None,
        borrows: bool = False,
    ):
        self.transform = transform
        if not callable(f):
            raise ArgumentError(f"{transform}: the function to transform must be callable, got {type(f).__name__}")
        argnums = _positions(transform, argnums, len(args))
        self.rt = runtime_of_trees(args)
        self.engine = engine
        #: How many basis vectors a Jacobian maps at a time (None: all; see jacrev).
        self.chunk_size: int | None = None
        self.borrowed = borrow((*args, *kwargs.values()) if kwargs else args) if borrows else NOTHING_BORROWED
        try:
            self._record(f, args, argnums, has_aux, complex_inputs, kwargs)
        except BaseException:
            self.borrowed.release()
            raise
        if self.record:
            self._outlived()

    def _outlived(self) -> None:
        """The call's record outlives it (it records, or a sweep or push from it does): copy
        what it keeps in the memory of the arrays it borrowed, and give them back."""
        if self.borrowed.arrays:
            kept = [x for x in (*self.outputs, *flatten(getattr(self, "aux", None))[0]) if type(x) is EagerTensor]
            self.borrowed.outlived_by([v for v in map(vertex, kept) if v is not None], kept)

    def _record(
        self,
        f: Callable[..., Any],
        args: tuple[Any, ...],
        argnums: tuple[int, ...],
        has_aux: bool,
        complex_inputs: str,
        kwargs: dict[str, Any] | None,
    ) -> None:
        """Call ``f`` on the differentiated leaves as the call's own vertices and record it."""
        transform, rt, borrowed = self.transform, self.rt, self.borrowed
        self.in_specs: list[Any] = []
        self.inputs: list[EagerTensor] = []  # the transform's own tensors, one per differentiated leaf
        self.tracked_inputs = False
        outer_records = rt not in paused()  # read before the call's own recording block
        called = list(args)
        floor = next(SEQUENCE)  # every vertex made from the arguments comes after this number
        with self.context(), recording(rt):
            session = rt.current_session()
            enclosing = MADE.get()
            # The call's own variables, then those the transforms inside f make (see MADE).
            made: dict[int, Any] = {}
            starts: list[Any] = []
            for n in argnums:
                leaves, spec = flatten(args[n])
                self.in_specs.append(spec)
                own = []
                for index, leaf in enumerate(leaves):
                    if (
                        type(leaf) is np.ndarray
                        and leaf.dtype in _REAL
                        and complex_inputs != "require"
                        and not (borrowed.arrays and leaf in borrowed)
                    ):  # the common leaf: a float array, copied (as_value's and check_dtype's work, inline)
                        value = np.array(leaf)
                        value.setflags(write=False)
                    else:
                        what = lambda n=n, index=index: where_in(transform, f"argument {n}", args[n], index)  # noqa: E731
                        value = leaf if leaf in borrowed else as_value(leaf, rt, transform, what)
                        check_dtype(value, transform, what, complex_inputs)
                        if outer_records and type(leaf) is EagerTensor and vertex(leaf) is not None:
                            alias = session.alias(leaf)  # tracked from outside: a node of its own
                            self.tracked_inputs = True
                            own.append(alias)
                            starts.append(vertex(alias))
                            continue
                    variable = EagerTensor(value, rt, None, leaf=True)
                    made[id(variable)] = variable
                    for outer in enclosing:
                        outer[id(variable)] = variable
                    own.append(variable)
                    starts.append(variable)
                self.inputs += own
                called[n] = unflatten(spec, own)
            self.starts = starts
            opened = MADE.set((*enclosing, made))
            watched = differentiated(transform, floor, frozenset(map(id, starts)))
            borrowed.lend()
            try:
                with watched:  # np.asarray or float of what f computes from them is refused
                    returned = f(*called, **(kwargs or {}))
            finally:
                borrowed.end_lending()
                MADE.reset(opened)
        if has_aux:
            if not (isinstance(returned, (tuple, list)) and len(returned) == 2):
                raise ArgumentError(
                    f"{transform}: with has_aux=True the function must return a pair (output, aux), got "
                    f"{type(returned).__name__}"
                )
            returned, self.aux = returned
        leaves, self.out_spec = flatten(returned)
        if all(type(leaf) is EagerTensor and leaf.runtime is rt for leaf in leaves):
            self.outputs = leaves  # (what output() gives for each)
        else:
            self.outputs = [
                self.output(leaf, lambda i=i: where_in(transform, "the output", returned, i))
                for i, leaf in enumerate(leaves)
            ]
        self._reached: dict[int, Any] | None = None
        self._own_only = False  # whether every variable the outputs reach is one of starts
        self.stops = frozenset(v for v in starts if type(v) is Node) if self.tracked_inputs else frozenset()
        self.record = outer_records and (self.tracked_inputs or self._reaches_outside(made))

    def finish(self, compute: Callable[[], Any]) -> Any:
        """``compute()``, the transform's results from this call, as it returns them: none
        sharing the memory of an array the call borrowed, and the arrays given back (also
        when ``compute`` raises)."""
        if not self.borrowed.arrays:  # (the call borrowed nothing, or gave it back already)
            return compute()
        try:
            return self.borrowed.returned(compute())
        finally:
            self.borrowed.release()

    def output(self, leaf: Any, what: Callable[[], str]) -> EagerTensor:
        if type(leaf) is EagerTensor:
            if leaf.runtime is not self.rt:
                raise ArgumentError(f"{self.transform}: {what()} belongs to another runtime than the arguments")
            return leaf
        return EagerTensor(as_value(leaf, self.rt, self.transform, what, "output"), self.rt)

    def _reaches_outside(self, made: dict[int, EagerTensor]) -> bool:
        """Whether the outputs depend on a variable that is not one of the call's own (a
        closure over a tensor some enclosing transform or the user tracks). The variables
        that transforms inside ``f`` made for their own arguments (``made``) do not count: nothing
        outside can differentiate with respect to them (``jacrev`` of a ``jvp`` in its
        tangent depends on the jvp's primal variable, yet its result is a constant)."""
        roots = [v for v in map(vertex, self.outputs) if v is not None]
        if not roots:
            return False
        self._reached = reached = reachable(*roots)  # kept: a sweep from (some of) the outputs reaches no more
        variables = [key for key, v in reached.items() if type(v) is not Node]
        own = {id(v) for v in self.starts}
        if all(key in own for key in variables):
            self._own_only = True  # (so _needed need not look again)
            return False
        return any(key not in made for key in variables)

    # -- where the derivative computations run --------------------------------------------
    def context(self) -> contextlib.AbstractContextManager[Any]:
        """A session of the runtime open for the block: the engine given (the session open
        already where an enclosing transform lent it: ``hessian(f, engine=e)`` nests two),
        else the one open in this thread already, else the runtime's default engine lent
        for the block."""
        rt = self.rt
        if self.engine is not None:
            if self.engine in _LENT.get() and rt.open_session() is not None:
                return contextlib.nullcontext()
            return _lending(rt, self.engine)
        if rt.open_session() is not None:
            return contextlib.nullcontext()
        return rt.eager_session(rt.engine or CpuEngine.serial())

    def records(self, given: Sequence[Any]) -> bool:
        """Whether a sweep or push records: where the call records, or where a seed given (a
        cotangent, a tangent) is tracked and the caller records (``vjp_fn`` of a variable,
        or of an enclosing transform's argument, must be differentiable in it)."""
        if self.record:
            return True
        return self.rt not in paused() and any(type(g) is EagerTensor and vertex(g) is not None for g in given)

    def derivatives(self, records: bool, needed: set[int] | None = None) -> _Derivatives:
        """The context of a sweep or push, one block: the call's engine lent as for ``f``
        (see :meth:`context`), recorded or not (results are then constants), and the rule
        session it runs on (``needed`` as in ``rt.grad``'s sweep). Where no session is
        open and no engine given, the rule session borrows the default engine itself, as
        ``backward`` does: one session, not two."""
        rt = self.rt
        switch = recording(rt) if records else no_grad(rt)
        if self.engine is None and rt.open_session() is None:
            return _Derivatives(rt, None, switch, needed, rt.engine or CpuEngine.serial())
        return _Derivatives(rt, self.context(), switch, needed, None)

    def settle(self, tensor: EagerTensor, records: bool | None = None) -> EagerTensor:
        """A result the transform returns: as it is where the call (or the sweep or push that
        computed it: ``records``) records, else a constant (no history kept alive by a
        result nobody can differentiate)."""
        if (self.record if records is None else records) or vertex(tensor) is None:
            return tensor
        return EagerTensor(held(tensor), self.rt)

    # -- reverse mode -------------------------------------------------------------------
    def pull(self, seeds: Sequence[tuple[EagerTensor, EagerTensor]]) -> list[EagerTensor]:
        """One cotangent per differentiated leaf, given ``(output, cotangent)`` pairs; zeros
        where no path leads."""
        roots = [(v, ct) for v, ct in ((vertex(out), ct) for out, ct in seeds) if v is not None]
        records = self.record or self.records([ct for _, ct in seeds])
        if records:
            self._outlived()
        got: dict[int, Any] = {}
        if roots:
            with self.derivatives(records, self._needed(roots)) as session:
                got = reverse_sweep(session, roots, self.stops)
        return [
            self.settle(_or_zeros(got.get(id(v), (None, None))[1], x), records)
            for v, x in zip(self.starts, self.inputs)
        ]

    def _needed(self, roots: list[tuple[Any, Any]]) -> set[int] | None:
        """The vertices between the roots and the call's own (None: every vertex reached is)."""
        if self._own_only and not self.stops:
            return None
        wanted = {id(v) for v in self.starts}
        seen = self._reached  # the walk that found what the outputs reach, when it had no stops
        if seen is None:
            seen = reachable(*(v for v, _ in roots), stops={id(v) for v in self.stops})
        if not self.stops and all(type(v) is Node or id(v) in wanted for v in seen.values()):
            return None
        return leading_to(seen, wanted)

    # -- forward mode -------------------------------------------------------------------
    def plan(self) -> Plan:
        """The nodes tangents of the call's own vertices flow through to the outputs."""
        roots = [v for v in map(vertex, self.outputs) if v is not None]
        return forward_plan(roots, {id(v) for v in self.starts})

    def push(self, plan: Plan, tangents: Sequence[EagerTensor | None]) -> list[EagerTensor]:
        """The outputs' tangents (zeros where none flows) given one per differentiated leaf."""
        starts = {id(v): t for v, t in zip(self.starts, tangents) if t is not None}
        records = self.records(tangents)
        if records:
            self._outlived()
        with self.derivatives(records) as session:
            got = push_tangents(session, plan, starts)
        return [self.settle(_or_zeros(got.get(id(vertex(out))), out), records) for out in self.outputs]

    def tangent(self, given: Any, like: EagerTensor, what: Callable[[], str], of: str = "its primal") -> EagerTensor:
        """A tangent or cotangent leaf as an EagerTensor of ``like``'s shape and dtype (``of``
        names ``like`` in errors). Its dtype must be ``like``'s, as in JAX, except that a
        Python number (weakly typed) takes it when no imaginary part is lost."""
        value = as_value(given, self.rt, self.transform, what, "tangent")
        tensor = given if type(given) is EagerTensor else None
        if value.shape != like.shape:
            raise ShapeMismatch(
                f"{self.transform}: {what()} has shape {list(value.shape)}, but {of} has shape "
                f"{list(like.shape)}; they must be equal"
            )
        if value.dtype != like.dtype:
            weak = isinstance(given, NUMBERS) and not isinstance(given, bool)
            if not weak or (value.dtype.kind == "c" and like.dtype.kind != "c"):
                raise DTypeError(
                    f"{self.transform}: {what()} has dtype {dtype_name(value.dtype)}, but {of} is "
                    f"{dtype_name(like.dtype)}; give it the same dtype (cast it with .astype)"
                )
            value, tensor = freeze(value.astype(like.dtype)), None
        return tensor if tensor is not None else EagerTensor(value, self.rt)


def _positions(transform: str, argnums: tuple[int, ...], size: int) -> tuple[int, ...]:
    """``argnums`` as positions in a call with ``size`` positional arguments (negative ones
    count from the end), each once."""
    if all(0 <= n < size for n in argnums) and (len(argnums) == 1 or len(set(argnums)) == len(argnums)):
        return argnums
    for n in argnums:
        if not -size <= n < size:
            raise ArgumentError(
                f"{transform}: argnums {n} is out of range for a call with {size} positional argument(s)"
            )
    positions = tuple(n % size for n in argnums)
    if len(set(positions)) != len(positions):
        raise ArgumentError(
            f"{transform}: argnums names positional argument(s) "
            f"{sorted({n for n in positions if positions.count(n) > 1})} more than once; name each once"
        )
    return positions


#: Per transform (or trace: ``_replay._Program``) whose function is running in this context
#: (innermost last): the variables that it and the transforms inside it made for their
#: arguments, by id (held, so ids stay unique while the transform runs).
MADE: ContextVar[tuple[dict[int, EagerTensor], ...]] = ContextVar("tenferro_transform_variables", default=())


#: The engines that transforms running in this context lent to a session of their own.
_LENT: ContextVar[tuple[Engine, ...]] = ContextVar("tenferro_transform_engines", default=())


@contextlib.contextmanager
def _lending(rt: EagerRuntime, engine: Engine) -> Iterator[Any]:
    token = _LENT.set((*_LENT.get(), engine))
    try:
        with rt.eager_session(engine) as session:
            yield session
    finally:
        _LENT.reset(token)


class _Derivatives:
    """:meth:`Call.derivatives`' block: ``outer`` (the call's session, or None), the
    recording ``switch``, then a rule session, lending ``engine`` when one is given (a
    class, not an ExitStack: it is entered for every gradient a transform computes)."""

    __slots__ = ("rt", "outer", "switch", "needed", "engine", "rules")

    def __init__(
        self,
        rt: EagerRuntime,
        outer: contextlib.AbstractContextManager[Any] | None,
        switch: contextlib.AbstractContextManager[None],
        needed: set[int] | None,
        engine: Engine | None,
    ):
        self.rt, self.outer, self.switch, self.needed, self.engine = rt, outer, switch, needed, engine

    def __enter__(self) -> Any:
        if self.outer is not None:
            self.outer.__enter__()
        try:
            self.switch.__enter__()
            try:
                self.rules = self.rt.rule_session(self.needed, self.engine, lend=self.engine is not None)
                return self.rules.__enter__()
            except BaseException:
                self.switch.__exit__(None, None, None)
                raise
        except BaseException:
            if self.outer is not None:
                self.outer.__exit__(None, None, None)
            raise

    def __exit__(self, *exc_info: Any) -> None:
        try:
            self.rules.__exit__(*exc_info)
        finally:
            self.switch.__exit__(*exc_info)
            if self.outer is not None:
                self.outer.__exit__(*exc_info)


def _or_zeros(tensor: EagerTensor | None, like: EagerTensor) -> EagerTensor:
    if tensor is not None:
        return tensor
    return EagerTensor(seal(np.zeros_like(held(like))), like.runtime)  # on like's engine
