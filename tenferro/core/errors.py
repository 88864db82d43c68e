"""Every error tenferro raises, in one hierarchy under :class:`TenferroError`, and the
warnings it gives (:class:`PluginWarning`, a plugin left out, and its subclass
:class:`OpNameClash`, two plugins' ops of one name).

Messages name the op and the argument at fault and say what to do about it, and the error
carries them as fields (``op``, ``plugin``, ``argument``; a :class:`RuleError` also ``rule``,
``input`` and ``unkept``), so code that handles an error reads its fields, never its text, as
pluggy's ``PluginValidationError.plugin``. Where a built-in Python exception has the same
meaning (``TypeError`` for a wrong argument, ``AttributeError`` for an unknown op name,
``IndexError`` for a bad axis) the tenferro error derives from it too, so generic ``except``
clauses keep working.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any


class TenferroError(Exception):
    """Base of every error raised by tenferro. Fields, each None where it does not apply:
    ``op``, the op at fault (its name as registered), ``plugin``, the plugin that adds it,
    and ``argument``, the name of the argument at fault. They survive pickling (an error
    raised on a dask worker keeps them)."""

    op: str | None = None
    plugin: str | None = None
    argument: str | None = None

    def __init__(self, *args: object, op: str | None = None, plugin: str | None = None, argument: str | None = None):
        super().__init__(*args)
        if op is not None:
            self.op = op
        if plugin is not None:
            self.plugin = plugin
        if argument is not None:
            self.argument = argument


class NonScalarGrad(TenferroError, TypeError):
    """``backward``/``rt.grad`` (or ``tf.grad``) was asked for a gradient of a non-scalar
    output; a TypeError, as JAX's ``grad`` raises."""

    def __init__(self, shape: tuple[int, ...], message: str | None = None):
        self.shape = tuple(shape)
        super().__init__(
            message
            or f"grad requires a scalar output, got shape {list(self.shape)}; reduce it to one number first "
            f"(e.g. s.reduce_sum(out, None)), or seed a vector-Jacobian product with out.backward_with(v)"
        )


class ContextMismatch(TenferroError):
    """Tensors of two different runtimes were combined."""


class GradInactive(TenferroError):
    """A gradient was asked with respect to something the output does not depend on
    as a variable (an intermediate result, a constant, an unused variable)."""


class NotInGradients(GradInactive, KeyError):
    """``grads[x]`` for a variable that received no gradient in that backward pass."""

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0])


class ShapeMismatch(TenferroError, ValueError):
    """Shapes that must agree (broadcasting, cotangents, declared shapes) do not."""


class DTypeError(TenferroError, TypeError):
    """A tensor has a dtype the op or call does not accept."""


class AxisError(TenferroError, IndexError):
    """An axis argument is out of range, repeated or not an integer."""


class ArgumentError(TenferroError, TypeError):
    """An op or API call got the wrong number or kind of arguments."""


class UnknownOp(TenferroError, AttributeError):
    """No registered op has this name."""


class UnknownName(TenferroError, AttributeError):
    """A name a tenferro namespace does not have (``tnp.array``): says what to write instead."""

    @classmethod
    def of(
        cls, namespace: str, name: str, names: Iterable[str], instead: Mapping[str, str] = {}, numpy: object = None
    ) -> AttributeError:
        """The error for ``namespace.name`` (each namespace's ``__getattr__`` raises it):
        ``instead`` maps names users bring from NumPy, PyTorch or JAX to tenferro's way of
        writing them; ``numpy`` is the NumPy module of the same name (``numpy.linalg`` for
        ``tnp.linalg``), if any; otherwise the close matches. A protocol probe (a dunder
        name: copy, pickle, doctest) is a plain AttributeError."""
        if name.startswith("__"):
            return AttributeError(f"{namespace} has no attribute {name!r}")
        if name in instead:
            hint = f"; write {instead[name]}"
        elif numpy is not None and callable(getattr(numpy, name, None)):
            hint = (
                f" yet; NumPy's {getattr(numpy, '__name__', 'numpy')}.{name} is not in tenferro.numpy, so no "
                f"derivative flows through it: on values that need no gradient, call NumPy's own on np.asarray(x)"
            )
        else:
            close = difflib.get_close_matches(name, [n for n in names if not n.startswith("_")], n=3)
            hint = f"; did you mean {' or '.join(f'{namespace}.{c}' for c in close)}?" if close else ""
        return cls(f"{namespace} has no {name!r}{hint}")


class PluginError(TenferroError):
    """A plugin failed to load, registered a bad spec or one op name twice, or lacks a
    plugin it requires."""


class PluginWarning(UserWarning):
    """A plugin was left out (it failed to import or register); every other plugin loaded.
    ``TENFERRO_STRICT_PLUGINS=1`` makes it a :class:`PluginError` instead."""


class OpNameClash(PluginWarning):
    """Two plugins add ops of one short name; both loaded. ``holder`` keeps the short name
    (``s.softmax``), ``plugin``'s ``ops`` are reached by their qualified names
    (``s.op("specialx.softmax")``). Not a failure, so strict loading does not raise it;
    ``warnings.filterwarnings("ignore", category=tenferro.OpNameClash)`` silences it."""

    def __init__(self, message: str, plugin: str = "", holder: str = "", ops: tuple[str, ...] = ()):
        super().__init__(message)
        self.plugin, self.holder, self.ops = plugin, holder, tuple(ops)


class RuleError(TenferroError):
    """A derivative rule failed, returned the wrong number of cotangents or one of the wrong
    type, or read a value the trace did not keep. Beside ``op`` and ``plugin`` (the op whose
    rule is at fault): ``rule``, which of its rules (``"vjp"`` or ``"jvp"``; None for an
    error not yet traced to a rule, such as an op called on an unkept value inside one),
    ``input``, the name of the input whose cotangent is wrong (None if not one input's),
    and ``unkept``, whether a rule read a value its op's ``residuals`` do not keep."""

    rule: str | None = None
    input: str | None = None
    unkept: bool = False

    def __init__(
        self, *args: object, rule: str | None = None, input: str | None = None, unkept: bool = False, **fields: Any
    ):
        super().__init__(*args, **fields)
        if rule is not None:
            self.rule = rule
        if input is not None:
            self.input = input
        if unkept:
            self.unkept = True


class NotDifferentiable(TenferroError):
    """A derivative was needed where there is none: through an op that declares no VJP
    rule, or at a point its rule refuses (a degenerate spectrum, for eigenvectors)."""


class KernelError(TenferroError):
    """An op's forward kernel failed in a way its own checks did not foresee."""


class EngineError(TenferroError, TypeError):
    """An op cannot run on an engine without gathering a distributed value to one process
    (an op with no path on the engine, or a value of another engine): refused, never done
    silently."""


class SessionEntryError(TenferroError):
    """A session or engine cannot be used right now."""


class EngineBusy(SessionEntryError):
    """The engine is already lent to a session or a backward pass."""


class SessionClosed(SessionEntryError):
    """An op was called on a session after its ``with`` block or callback ended."""
