"""Op specs and the registry that plugins fill.

One :class:`OpSpec` per op carries everything tenferro and its conformance suite know about
it (the JAX ``Primitive`` idea: one object, its rules attached). A :class:`Registry` maps
op names to specs; :func:`load_registry` builds one from the ``tenferro`` entry points plus
any plugin objects passed in, calling each plugin's ``tenferro_register_ops`` hook once.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib.metadata
import keyword
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pluggy

from . import hookspecs
from .errors import ArgumentError, PluginError, TenferroError, UnknownOp
from .params import frozen

#: Environment variable: comma-separated plugin names that are not loaded.
BLOCK_ENV = "TENFERRO_BLOCK_PLUGINS"

#: dtype kinds (NumPy ``dtype.kind``) an op input may accept.
_KINDS = set("biufc")


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
    """Everything about one op.

    ``forward(*arrays, **params)`` computes the value with NumPy; tensor arguments arrive as
    read-only arrays, Python-scalar arguments as they were given. It must not write into
    its arguments.

    ``vjp(s, g, inputs, out, **params)`` returns one cotangent per input (``None`` means
    zero), written with the ops of session ``s`` so that it is itself differentiable.
    ``inputs`` are the op's arguments as recorded (EagerTensors or Python scalars), ``out``
    is the op's result and ``g`` the cotangent of ``out``. ``s.needs_grad(a)`` tells which
    inputs need a cotangent; the others may be skipped (return ``None``).

    ``accepts`` gives, per input, the NumPy dtype kinds allowed (``"f"`` float, ``"i"``/``"u"``
    integer, ``"b"`` bool); one string applies to all inputs. ``explain(*arrays, **params)``
    is called only when ``forward`` raised a non-tenferro exception and returns the
    TenferroError that says what the caller did wrong (or ``None``).

    ``residuals`` names the inputs (and ``"out"``, the result) whose *values* the VJP reads;
    the trace keeps only those, and holds the rest as shape-and-dtype handles, so that e.g.
    ``reduce_sum`` does not keep its input alive. ``None`` (the default) keeps all.
    A VJP that reads a value it did not declare raises RuleError.

    ``returns_view`` declares that the result may share memory with an input (a read-only
    view such as a broadcast); otherwise the conformance suite requires a fresh array.
    ``integer_results`` declares that a differentiable op may return a bool or integer
    result for float inputs (``astype`` to an integer dtype); such a result carries no
    gradient. Without it, that result is a kernel bug and raises KernelError at the call.

    ``sample`` is a zero-argument factory returning a hypothesis strategy of
    :class:`SampleInput` (valid inputs, away from kinks and poles); ``reference`` is an
    independent NumPy implementation; ``error_inputs`` a zero-argument factory of
    :class:`ErrorInput`. ``differentiable`` marks, per input, whether a gradient flows to it
    (default: every input that accepts floats, when a vjp is given). ``second_order`` is
    False when the VJP uses an op that has no VJP of its own.

    ``kinks`` states the op's conventions where it is not differentiable, as :class:`Kink`
    points with the cotangents expected there. ``internal`` marks an op that exists for
    other ops' VJPs, not for users to call (``tenferro ops`` marks it).
    """

    name: str
    inputs: tuple[str, ...]
    forward: Callable[..., Any]
    vjp: Callable[..., Sequence[Any]] | None = None
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
    integer_results: bool = False
    doc: str = ""
    plugin: str = ""
    #: Derived from ``residuals``: the positions of the inputs whose values the trace does
    #: not keep, and whether it keeps the result's.
    drops: tuple[int, ...] = field(init=False, repr=False, compare=False)
    keeps_out: bool = field(init=False, repr=False, compare=False)
    kinks: tuple[Kink, ...] = ()
    internal: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.inputs, str):
            raise PluginError(
                f"OpSpec {self.name!r}: inputs must be a tuple of names, got the string {self.inputs!r}; "
                f"for one input write ({self.inputs!r},)"
            )
        object.__setattr__(self, "kinks", tuple(self.kinks))
        accepts = self.accepts
        if isinstance(accepts, str):
            accepts = (accepts,) * len(self.inputs)
        object.__setattr__(self, "accepts", tuple(accepts))
        if self.differentiable is None:
            flags = tuple(self.vjp is not None and "f" in kinds for kinds in self.accepts)
            object.__setattr__(self, "differentiable", flags)
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "params", {name: frozen(value) for name, value in dict(self.params).items()})
        kept = set(self.inputs) | {"out"} if self.residuals is None else set(self.residuals)
        object.__setattr__(self, "drops", tuple(i for i, name in enumerate(self.inputs) if name not in kept))
        object.__setattr__(self, "keeps_out", "out" in kept)

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


def _validate(spec: OpSpec, plugin: str) -> None:
    """Reject a malformed spec at registration, naming the plugin, so that a bad spec never
    turns into a confusing error at call time."""

    def bad(why: str) -> PluginError:
        return PluginError(f"plugin {plugin!r} registered a bad spec for op {spec.name!r}: {why}")

    if not isinstance(spec, OpSpec):
        raise PluginError(f"plugin {plugin!r} passed {spec!r} to registry.add; expected an OpSpec")
    names = (spec.name, *spec.inputs, *spec.params)
    for name in names:
        if not (isinstance(name, str) and name.isidentifier()) or keyword.iskeyword(name):
            raise bad(f"{name!r} is not a valid Python identifier")
    if spec.name.startswith("_"):
        raise bad("op names must not start with an underscore")
    if len(set(names[1:])) != len(names) - 1:
        raise bad("input and param names must be distinct")
    if not spec.inputs:
        raise bad("an op needs at least one tensor input")
    if "out" in spec.inputs:
        raise bad("'out' is reserved for the result (in residuals); name the input differently")
    if spec.residuals is not None and set(spec.residuals) - set(spec.inputs) - {"out"}:
        raise bad(f"residuals {spec.residuals!r} must name inputs or 'out'")
    if len(spec.accepts) != len(spec.inputs):
        raise bad(f"accepts has {len(spec.accepts)} entries for {len(spec.inputs)} inputs")
    for kinds in spec.accepts:
        if not kinds or set(kinds) - _KINDS:
            raise bad(f"accepts entry {kinds!r} must be made of the dtype kinds 'biufc'")
    if len(spec.differentiable) != len(spec.inputs):
        raise bad("differentiable must have one flag per input")
    if not callable(spec.forward) or (spec.vjp is not None and not callable(spec.vjp)):
        raise bad("forward and vjp must be callables")
    arity = len(spec.inputs)
    for kink in spec.kinks:
        if not isinstance(kink, Kink) or len(kink.args) != arity or len(kink.cotangents) != arity:
            raise bad(f"kinks must be Kink values with one arg and one cotangent per input, got {kink!r}")


@dataclass
class PluginInfo:
    """A loaded plugin: its name, the distribution that ships it, its ops, and the plugin
    object itself (a module, or an instance with hook methods)."""

    name: str
    distribution: str = ""
    version: str = ""
    ops: list[str] = field(default_factory=list)
    plugin: Any = None


class Registry:
    """Op name -> :class:`OpSpec`, plus which plugin supplied each."""

    def __init__(self) -> None:
        self._specs: dict[str, OpSpec] = {}
        self.plugins: dict[str, PluginInfo] = {}

    def add(self, spec: OpSpec, plugin: str) -> None:
        """Register ``spec`` for ``plugin``; a name already taken is a PluginError."""
        _validate(spec, plugin)
        owner = self._specs.get(spec.name)
        if owner is not None:
            raise PluginError(
                f"op {spec.name!r} is registered by both plugin {owner.plugin!r} and plugin "
                f"{plugin!r}; rename one of them, or block a plugin with {BLOCK_ENV}={plugin}"
            )
        self._specs[spec.name] = dataclasses.replace(spec, plugin=plugin)
        self.plugins.setdefault(plugin, PluginInfo(plugin)).ops.append(spec.name)

    def __getitem__(self, name: str) -> OpSpec:
        try:
            return self._specs[name]
        except KeyError:
            raise self.unknown(name) from None

    def unknown(self, name: str) -> UnknownOp:
        """The error for an op name nobody registered, with the closest names as a hint."""
        close = difflib.get_close_matches(name, self._specs, n=3)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        return UnknownOp(f"no op named {name!r} is registered{hint} (`tenferro ops` lists every op)")

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[OpSpec]:
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def of_plugin(self, plugin: str) -> list[OpSpec]:
        """The specs one plugin registered, in registration order."""
        return [self._specs[name] for name in self.plugins[plugin].ops] if plugin in self.plugins else []


class PluginRegistrar:
    """What a plugin's ``tenferro_register_ops`` hook receives: a registry bound to the
    plugin's name, so specs are attributed to the plugin that added them."""

    def __init__(self, registry: Registry, plugin: str):
        self._registry = registry
        self.plugin = plugin

    def add(self, spec: OpSpec) -> None:
        self._registry.add(spec, self.plugin)


def _entry_point_plugins(blocked: set[str]) -> Iterator[tuple[str, Any, str, str]]:
    for ep in importlib.metadata.entry_points(group=hookspecs.PROJECT):
        if ep.name in blocked:
            continue
        dist = ep.dist
        try:
            plugin = ep.load()
        except Exception as exc:
            raise PluginError(
                f"plugin {ep.name!r} (entry point {ep.value!r} of distribution "
                f"{dist.name if dist else '?'}) failed to import: {exc!r}; fix or uninstall it, "
                f"or block it with {BLOCK_ENV}={ep.name}"
            ) from exc
        yield ep.name, plugin, dist.name if dist else "", dist.version if dist else ""


def load_registry(
    plugins: Iterable[Any] = (),
    *,
    entry_points: bool = True,
    blocked: Iterable[str] | None = None,
) -> Registry:
    """Build a registry from the installed ``tenferro`` entry points (unless
    ``entry_points=False``) and the given plugin objects (modules or instances with
    ``@hookimpl`` functions, named by their ``__name__`` or class name, or ``(name,
    plugin)`` pairs).

    ``blocked`` names plugins to skip; by default it is read from ``TENFERRO_BLOCK_PLUGINS``.
    """
    from .sweep import ADD_ANY  # the core's one primitive: cotangent accumulation

    if blocked is None:
        blocked = [b.strip() for b in os.environ.get(BLOCK_ENV, "").split(",") if b.strip()]
    blocked = set(blocked)
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    registry = Registry()
    registry.add(ADD_ANY, "core")
    core = registry.plugins["core"]
    core.distribution = "tenferro"
    try:
        core.version = importlib.metadata.version("tenferro")
    except importlib.metadata.PackageNotFoundError:
        core.version = "(source checkout)"
    found = list(_entry_point_plugins(blocked)) if entry_points else []
    for entry in plugins:
        name, plugin = entry if isinstance(entry, tuple) else (getattr(entry, "__name__", type(entry).__name__), entry)
        if plugin is None or isinstance(plugin, (str, bytes, int, float)) or not isinstance(name, str):
            hint = "; import the module first (importlib.import_module)" if isinstance(plugin, str) else ""
            raise ArgumentError(
                f"plugins: each entry must be a plugin module or object with @hookimpl functions, or a "
                f"(name, plugin) pair; got {entry!r}{hint}"
            )
        if name not in blocked:
            found.append((name, plugin, "", ""))
    for name, plugin, dist, version in found:
        if pm.get_plugin(name) is not None:
            raise PluginError(f"two plugins are named {name!r}; plugin names must be unique")
        try:
            pm.register(plugin, name=name)
        except Exception as exc:
            raise PluginError(f"plugin {name!r} could not be registered: {exc}") from exc
        registry.plugins[name] = PluginInfo(name, dist, version, plugin=plugin)
    for impl in pm.hook.tenferro_register_ops.get_hookimpls():
        try:
            impl.function(registry=PluginRegistrar(registry, impl.plugin_name))
        except TenferroError:
            raise
        except Exception as exc:
            raise PluginError(f"plugin {impl.plugin_name!r} failed while registering its ops: {exc!r}") from exc
    return registry


_DEFAULT: list[Registry] = []
_DEFAULT_LOCK = threading.Lock()


def default_registry() -> Registry:
    """The registry of every installed plugin, built once per process (also when several
    threads ask for it first at the same time)."""
    if not _DEFAULT:
        with _DEFAULT_LOCK:
            if not _DEFAULT:
                _DEFAULT.append(load_registry())
    return _DEFAULT[0]
