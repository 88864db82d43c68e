"""The op spec: one :class:`OpSpec` per op, its rules attached (the JAX ``Primitive`` idea),
and the records its tests are made of (:class:`SampleInput`, :class:`ErrorInput`,
:class:`Kink`). Checking a spec is here too; building a registry of them is not
(``registry.py``, ``loading.py``).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import keyword
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import PluginError, TenferroError
from .params import frozen
from .rules import InputRule, Unbroadcast, WholeRule, linear_jvp, multilinear_jvp

#: dtype kinds (NumPy ``dtype.kind``) an op input may accept.
KINDS = frozenset("biufc")
#: Names an op may not take: the public attributes of a session, where ops are methods.
RESERVED_NAMES = frozenset({"runtime", "native", "needs_grad", "run_kernels", "wants_tangent", "op"})


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Marks a static parameter that has no default.
REQUIRED: Any = _Required()


@dataclass(frozen=True)
class SampleInput:
    """One valid call of an op: positional tensor arguments (NumPy arrays or Python scalars)
    and static params. Produced by an op's ``sample`` strategy."""

    args: tuple[Any, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    #: For an op with ``multiple_results``, the result the conformance checks look at (the
    #: suite draws it; a strategy leaves it 0).
    result: int = 0


@dataclass(frozen=True)
class ErrorInput:
    """A call of an op that must raise ``error`` (a TenferroError subclass) with a message
    containing ``match``."""

    args: tuple[Any, ...]
    params: Mapping[str, Any]
    error: type[TenferroError]
    match: str = ""


@dataclass(frozen=True)
class Kink:
    """A point where an op is not differentiable, and the cotangents its VJP gives there by
    the op's convention (``abs'(0) = 0``, ties split evenly, ...). Samples keep away from
    kinks, so this is how a convention gets checked (the ``kinks`` check) and shown
    (``tenferro ops``).

    ``args`` and ``params`` are the call, ``g`` the cotangent of the result (broadcast to
    its shape), ``cotangents`` the expected one per input (``None``: zero or not a tensor)."""

    args: tuple[Any, ...]
    cotangents: tuple[Any, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    g: Any = 1.0

    def describe(self, op: str, inputs: Sequence[str]) -> str:
        """``abs(x=[0.0]) with g=1.0 gives x: [0.0]``: the call and the cotangents it must give."""
        named = [*zip(inputs, self.args), *self.params.items()]
        call = ", ".join(f"{n}={_show(a)}" for n, a in named)
        given = ", ".join(f"{n}: {_show(ct)}" for n, ct in zip(inputs, self.cotangents) if ct is not None)
        return f"{op}({call}) with g={_show(self.g)} gives {given or 'zero cotangents'}"


def _show(value: Any) -> str:
    """An array as its nested list (``[0.0, -0.0]``), anything else as its repr."""
    return repr(value.tolist()) if isinstance(value, np.ndarray) else repr(value)


@dataclass(frozen=True, eq=False)
class OpSpec:
    """Everything about one op, in four groups.

    **What it computes.** ``name``; ``inputs``, the names of its tensor arguments;
    ``params``, its static parameters with their defaults (``REQUIRED`` for none);
    ``forward(*arrays, **params)``, the kernel, which gets tensor arguments as read-only
    arrays (Python scalars as given), must not write into them, and returns a new array
    of the type it was given (use NumPy functions, not methods, so other engines' arrays
    pass through); ``accepts``, per input, the dtype kinds allowed (``"f"`` float,
    ``"i"``/``"u"`` integer, ``"b"`` bool, ``"c"`` complex; one string for all inputs);
    ``explain(*arrays, **params)``, called only when the kernel raised something other
    than a TenferroError, returning the TenferroError that tells the caller what was
    wrong (or None); ``doc``; ``internal`` for an op that exists for other ops' rules;
    ``variadic`` for an op whose one input is a sequence of tensors (``s.concat([a, b])``):
    its kernel gets a list of arrays, its rule (a whole-op ``vjp``) returns one cotangent
    per item, and its samples, kinks and error inputs give the items as separate args;
    ``multiple_results`` for an op whose kernel returns a tuple of arrays (``split``,
    ``eigh``): the session returns a tuple of tensors, and its rules, called once per call,
    get ``g`` and ``out`` as tuples, one entry per result (``None`` in ``g`` for a result
    with no cotangent); ``elementwise`` for an op whose result has the broadcast shape of
    its tensor arguments (``sin``, ``mul``, ``where_select``): the session checks each
    result's shape against it, so a kernel that returns another shape is a KernelError
    naming the plugin and the op at once, not a RuleError of its VJP later.

    **How it differentiates** (the vocabulary of :mod:`tenferro.core.rules`): ``vjps``,
    one rule per input (``rule(s, g, out, *inputs, **params)``), or ``vjp``, one rule for
    the whole op (``vjp(s, g, inputs, out, **params)`` returning one cotangent per input);
    ``unbroadcast`` for an op that broadcasts its inputs (``tenferro.extend.unbroadcast``:
    per-input rules are then written as if nothing broadcast);
    ``linear``/``multilinear`` when the op is linear in its differentiable inputs
    jointly/each separately; ``jvp``, an optional forward-mode rule (derived for linear
    and multilinear ops; without one the core transposes the VJP); ``residuals``, the
    inputs (and ``"out"``) whose values the rules read, so the trace keeps only those
    (None keeps all; linear ops default to none); ``differentiable``, per input, whether
    a gradient flows to it (default: inputs with a rule that accept floats);
    ``second_order``, False when the rules use an op with no rule of its own;
    ``integer_results``, when a float input may give an integer result that carries no
    gradient (``astype``); ``returns_view``, when the result may share memory with an
    input (a read-only broadcast view).

    **How it maps over a batch** (``tf.vmap``): ``batch``, the rule that runs the op once
    on a batch (``batch(s, args, batched, **params)``: the arguments, those whose
    ``batched`` flag is set with the batch as a new leading axis, the others as the op
    takes them; it returns the batched result), or ``"elementwise"`` for an op whose
    arguments broadcast (derived: batched arguments get the missing axes after the batch
    axis); default ``"elementwise"`` for ``elementwise`` ops and none for the others,
    which ``tf.vmap`` then calls once per example. ``replayable=False`` for an op whose
    kernel hands back values its caller computed (a custom function's call, whose params
    hold them): a trace holding it is not replayed on other values (``tf.vmap`` runs the
    function once per example, ``tf.jit`` runs it eagerly at each call).

    **How it is replayed** (``tf.jit``): ``traced_forward``, the kernel a compiled plan
    calls in place of ``forward``: ``forward`` without the checks the trace's signature
    (shapes, dtypes) already stands for, computing the same numbers (``add_any``'s is
    ``np.add``; a plan writes a ufunc's result into a dead input). The conformance suite's
    ``jit`` check holds the plan to the eager call bitwise.

    **How it is tested** (``tenferro.testing``): ``sample``, a zero-argument factory of a
    hypothesis strategy of :class:`SampleInput` (valid inputs, away from kinks and poles);
    ``reference``, an independent NumPy implementation; ``error_inputs``, a zero-argument
    factory of :class:`ErrorInput`; ``kinks``, the op's conventions where it is not
    differentiable, as :class:`Kink` points; ``refuses``, per dtype kind the op does not
    accept, why and what to do instead (the end of the DTypeError, e.g.
    ``tenferro.extend.NO_ORDER``; a complex argument of an op that accepts floats is told
    by default that the op is a function of real numbers, and what to apply first);
    ``complex_sample``, the strategy of complex samples for an op that accepts complex
    inputs (default: the float samples with an imaginary part added to each input that
    accepts complex; give it where the inputs need structure, such as a Hermitian matrix).

    **Where it comes from**: ``plugin``, set by the registry.

    Derived, not given: ``drops`` and ``keeps_out``, what the trace does not keep.
    """

    name: str
    inputs: tuple[str, ...]
    forward: Callable[..., Any]
    vjp: WholeRule | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    accepts: str | tuple[str, ...] = "fiu"
    explain: Callable[..., TenferroError | None] | None = None
    sample: Callable[[], Any] | None = None
    reference: Callable[..., Any] | None = None
    error_inputs: Callable[[], Iterable[ErrorInput]] | None = None
    differentiable: tuple[bool, ...] | None = None
    second_order: bool = True
    residuals: tuple[str, ...] | None = None
    returns_view: bool = False
    doc: str = ""
    plugin: str = ""
    vjps: tuple[InputRule | None, ...] | None = field(default=None, kw_only=True)
    unbroadcast: Unbroadcast | None = field(default=None, kw_only=True)
    linear: bool = field(default=False, kw_only=True)
    multilinear: bool = field(default=False, kw_only=True)
    jvp: Callable[..., Any] | None = field(default=None, kw_only=True)
    integer_results: bool = field(default=False, kw_only=True)
    kinks: tuple[Kink, ...] = field(default=(), kw_only=True)
    internal: bool = field(default=False, kw_only=True)
    replayable: bool = field(default=True, kw_only=True)
    traced_forward: Callable[..., Any] | None = field(default=None, kw_only=True)
    variadic: bool = field(default=False, kw_only=True)
    multiple_results: bool = field(default=False, kw_only=True)
    complex_sample: Callable[[], Any] | None = field(default=None, kw_only=True)
    refuses: Mapping[str, str] = field(default_factory=dict, kw_only=True)
    elementwise: bool = field(default=False, kw_only=True)
    batch: Callable[..., Any] | str | None = field(default=None, kw_only=True)
    drops: tuple[int, ...] = field(init=False, repr=False, compare=False)
    keeps_out: bool = field(init=False, repr=False, compare=False)

    @property
    def batch_rule(self) -> Callable[..., Any] | str | None:
        """The batching rule ``tf.vmap`` uses: ``batch``, else ``"elementwise"`` for an
        elementwise op, else None (the op runs once per example)."""
        return self.batch if self.batch is not None else ("elementwise" if self.elementwise else None)

    @property
    def batched(self) -> bool:
        return self.batch_rule is not None

    def __post_init__(self) -> None:
        _check_field_types(self)
        derived = functools.partial(object.__setattr__, self)  # the dataclass is frozen
        derived("inputs", tuple(self.inputs))
        derived("params", {name: frozen(value) for name, value in dict(self.params).items()})
        derived("kinks", tuple(self.kinks))
        accepts = self.accepts
        derived("accepts", tuple((accepts,) * len(self.inputs) if isinstance(accepts, str) else accepts))
        rules = tuple(self.vjps) if self.vjps is not None else (self.vjp,) * len(self.inputs)
        if self.differentiable is None:
            flags = tuple(
                rule is not None and ("f" in kinds or "c" in kinds) for rule, kinds in zip(rules, self.accepts)
            )
        else:
            flags = tuple(self.differentiable)
        derived("differentiable", flags)
        if self.vjps is not None and len(rules) == len(flags):  # (else validate() names the miscount)
            # an input declared not differentiable gets no rule called
            derived("vjps", tuple(rule if flag else None for rule, flag in zip(rules, flags)))
        if self.jvp is None and self.linear:
            derived("jvp", linear_jvp(self.name, flags, self.variadic))
        elif self.jvp is None and self.multilinear and not self.variadic:
            derived("jvp", multilinear_jvp(self.name, flags))
        if self.residuals is None and self.linear:
            # a linear op's rules read no values of the inputs it is linear in, only shapes
            derived("residuals", tuple(name for name, flag in zip(self.inputs, flags) if not flag))
        kept = set(self.inputs) | {"out"} if self.residuals is None else set(self.residuals)
        derived("drops", tuple(i for i, name in enumerate(self.inputs) if name not in kept))
        derived("keeps_out", "out" in kept)

    def slot(self, index: int) -> int:
        """The input an argument at position ``index`` is for: itself, or a variadic op's one input."""
        return 0 if self.variadic else index

    def input_name(self, index: int) -> str:
        """How errors name the argument at position ``index``: ``'x'``, or ``'arrays[2]'``."""
        return f"{self.inputs[0]}[{index}]" if self.variadic else self.inputs[index]

    def pack(self, args: Sequence[Any]) -> tuple[Any, ...]:
        """The call's positional tensor arguments from a flat list of them (a variadic op
        takes its items as one list)."""
        return (list(args),) if self.variadic else tuple(args)

    @property
    def has_rules(self) -> bool:
        """Whether derivatives can flow through the op (it states vjps or a vjp)."""
        return self.vjp is not None or self.vjps is not None

    @property
    def signature(self) -> str:
        """``name(a, b, axes=None)``: how the op is called on a session."""
        parts = list(self.inputs)
        for pname, default in self.params.items():
            parts.append(pname if default is REQUIRED else f"{pname}={default!r}")
        return f"{self.name}({', '.join(parts)})"

    @property
    def summary(self) -> str:
        """First line of the doc string."""
        return self.doc.strip().splitlines()[0] if self.doc.strip() else ""


def _named_fields(init: Callable[..., None]) -> Callable[..., None]:
    """OpSpec's dataclass ``__init__``, with a misspelled field (``residual=``) named as a
    PluginError with the field meant, not Python's bare "unexpected keyword argument"."""
    names = [f.name for f in dataclasses.fields(OpSpec) if f.init]

    @functools.wraps(init)
    def checked_init(self: OpSpec, *args: Any, **kwargs: Any) -> None:
        for given in kwargs:
            if given not in names:
                close = difflib.get_close_matches(given, names, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; its fields are {', '.join(names)}"
                raise PluginError(f"OpSpec has no field {given!r}{hint}")
        init(self, *args, **kwargs)

    return checked_init


OpSpec.__init__ = _named_fields(OpSpec.__init__)  # type: ignore[method-assign]


def _check_field_types(spec: OpSpec) -> None:
    """A PluginError, not a raw TypeError from deep inside, when a field has the wrong kind
    of value (the checks that need the plugin's name come later, in :func:`validate`)."""
    problems = []
    for name in ("inputs", "residuals"):
        value = getattr(spec, name)
        if isinstance(value, str):
            problems.append(
                f"{name} must be a tuple of names, got the string {value!r}; for one name write ({value!r},)"
            )
        elif value is not None and not isinstance(value, (tuple, list)):
            problems.append(f"{name} must be a tuple of names, got {value!r}")
    if spec.inputs is None:
        problems.append("inputs must be a tuple of names, got None")
    if not isinstance(spec.params, Mapping):
        problems.append(f"params must be a mapping of names to defaults, got {spec.params!r}")
    if not isinstance(spec.accepts, (str, tuple, list)):
        problems.append(f"accepts must be a string of dtype kinds or one per input, got {spec.accepts!r}")
    if not isinstance(spec.refuses, Mapping) or not all(
        kind in ("b", "i", "u", "f", "c") and isinstance(why, str) for kind, why in spec.refuses.items()
    ):
        problems.append(f"refuses must map dtype kinds ('biufc') to why the op refuses them, got {spec.refuses!r}")
    for name in ("vjps", "differentiable", "kinks"):
        value = getattr(spec, name)
        if not (value is None or isinstance(value, (tuple, list))) or (value is None and name == "kinks"):
            problems.append(f"{name} must be a tuple (one entry per input for vjps and differentiable), got {value!r}")
    if not (spec.batch is None or spec.batch == "elementwise" or callable(spec.batch)):
        problems.append(f"batch must be a rule (a function), 'elementwise' or None, got {spec.batch!r}")
    if problems:
        raise PluginError(f"OpSpec {spec.name!r}: {'; '.join(problems)}")


def validate(spec: OpSpec, plugin: str) -> None:
    """Reject a malformed spec at registration, naming the plugin, so that a bad spec never
    turns into a confusing error at call time."""

    def bad(why: str) -> PluginError:
        return PluginError(f"plugin {plugin!r} registered a bad spec for op {spec.name!r}: {why}")

    if not isinstance(spec, OpSpec):
        raise PluginError(f"plugin {plugin!r} passed {spec!r} to registrar.add; expected an OpSpec")
    names = (spec.name, *spec.inputs, *spec.params)
    for name in names:
        if not (isinstance(name, str) and name.isidentifier()) or keyword.iskeyword(name):
            raise bad(f"{name!r} is not a valid Python identifier")
    if spec.name.startswith("_"):
        raise bad("op names must not start with an underscore")
    if spec.name in RESERVED_NAMES:
        raise bad(
            f"{spec.name!r} is a session attribute (reserved: {', '.join(sorted(RESERVED_NAMES))}); rename the op"
        )
    if len(set(names[1:])) != len(names) - 1:
        raise bad("input and param names must be distinct")
    if not spec.inputs:
        raise bad("an op needs at least one tensor input")
    if spec.variadic and (len(spec.inputs) != 1 or spec.vjps is not None):
        raise bad("a variadic op has one input (the sequence) and a whole-op vjp, not per-input vjps")
    if spec.elementwise is not True and spec.elementwise is not False:
        raise bad(f"elementwise must be True or False, got {spec.elementwise!r}")
    if spec.elementwise and (spec.variadic or spec.multiple_results):
        raise bad("an elementwise op has one result of its inputs' broadcast shape: not variadic, not multiple_results")
    if "out" in spec.inputs:
        raise bad("'out' is reserved for the result (in residuals); name the input differently")
    if spec.residuals is not None and set(spec.residuals) - set(spec.inputs) - {"out"}:
        raise bad(f"residuals {spec.residuals!r} must name inputs or 'out'")
    arity = len(spec.inputs)
    if len(spec.accepts) != arity:
        raise bad(f"accepts has {len(spec.accepts)} entries for {arity} inputs")
    for kinds in spec.accepts:
        if not kinds or set(kinds) - KINDS:
            raise bad(f"accepts entry {kinds!r} must be made of the dtype kinds 'biufc'")
    _validate_rules(spec, arity, bad)  # before differentiable, which per-input rules imply
    if len(spec.differentiable) != arity:
        raise bad("differentiable must have one flag per input")
    for kink in spec.kinks:
        given = len(kink.args) if spec.variadic else arity
        if not isinstance(kink, Kink) or len(kink.args) != given or len(kink.cotangents) != given:
            raise bad(f"kinks must be Kink values with one arg and one cotangent per input, got {kink!r}")


def _validate_rules(spec: OpSpec, arity: int, bad: Callable[[str], PluginError]) -> None:
    if not callable(spec.forward):
        raise bad("forward must be a callable")
    if spec.vjp is not None and spec.vjps is not None:
        raise bad("give vjps (one rule per input) or vjp (one rule for the whole op), not both")
    if spec.vjp is not None and not callable(spec.vjp):
        raise bad("vjp must be a callable")
    if spec.vjps is not None:
        if len(spec.vjps) != arity:
            raise bad(f"vjps has {len(spec.vjps)} rules for {arity} inputs; use None for an input without one")
        if any(rule is not None and not callable(rule) for rule in spec.vjps):
            raise bad("each of vjps must be a callable or None")
    if spec.unbroadcast is not None and (spec.vjps is None or not callable(spec.unbroadcast)):
        raise bad("unbroadcast is applied to per-input rules: give vjps, and unbroadcast a callable")
    if spec.linear and spec.multilinear:
        raise bad("linear (in all inputs jointly) and multilinear (in each separately) exclude each other")
    if (spec.linear or spec.multilinear) and not spec.has_rules:
        raise bad("a linear or multilinear op needs a rule (vjps or vjp)")
    if spec.jvp is not None and not callable(spec.jvp):
        raise bad("jvp must be a callable")
