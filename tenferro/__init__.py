"""tenferro: eager reverse-mode automatic differentiation of NumPy code, built from op plugins.

>>> import numpy as np
>>> from tenferro import EagerRuntime, CpuEngine, Tensor
>>> rt, eng = EagerRuntime(), CpuEngine.serial()
>>> x = rt.variable_from(Tensor.from_numpy(np.array([0.0, 1.0])))
>>> loss = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(x, x), None))
>>> grads = loss.backward(eng)
>>> x.grad().to_numpy()
array([0., 2.])
"""

from collections.abc import Callable
from typing import Any

import optree

from . import nn, numpy  # noqa: F401 - tf.nn, tf.numpy; numpy puts the operators and methods on EagerTensor
from .core import (
    REQUIRED,
    CpuEngine,
    EagerRuntime,
    EagerSession,
    EagerTensor,
    Engine,
    ErrorInput,
    Gradients,
    Kink,
    OpSpec,
    SampleInput,
    Tensor,
    TraceListing,
    hookimpl,
)
from .core.errors import (
    ArgumentError,
    AxisError,
    ContextMismatch,
    DTypeError,
    EngineBusy,
    EngineError,
    GradInactive,
    KernelError,
    NonScalarGrad,
    NotDifferentiable,
    NotInGradients,
    PluginError,
    PluginWarning,
    RuleError,
    SessionClosed,
    SessionEntryError,
    ShapeMismatch,
    TenferroError,
    UnknownOp,
)
from .core.runtime import default_runtime
from .core.tensor import read
from .engines import DaskEngine  # dask itself is imported when an engine is made
from .numpy._dispatch import renamed as _renamed
from .transforms import grad, hessian, hvp, jacfwd, jacobian, jacrev, jvp, linearize, value_and_grad, vjp

__version__ = "0.1.0"


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """``f`` applied leaf by leaf to pytrees of one structure, the result in that structure
    (``jax.tree.map``; optree's, the pytrees of the transforms): how a parameter update on
    ``tf.value_and_grad``'s gradients reads, ``tf.tree_map(lambda p, g: p - lr * g, params, grads)``."""
    return optree.tree_map(f, tree, *rest)


def variable(a: object) -> EagerTensor:
    """A variable of the default runtime (``default_runtime().variable_from(a)``): a leaf
    whose gradient ``backward()`` adds into its slot, as ``torch.tensor(a, requires_grad=True)``.
    An EagerTensor gives its value (a new leaf without its history), so an SGD step reads
    ``tf.variable(p - lr * tf.constant(p.grad()))``."""
    return _made(default_runtime().variable_from, a, "tf.variable")


def constant(a: object) -> EagerTensor:
    """A constant of the default runtime (``default_runtime().constant_from(a)``); an
    EagerTensor gives its value, a Tensor (such as ``p.grad()``) itself."""
    return _made(default_runtime().constant_from, a, "tf.constant")


def _made(make: Callable[[object], EagerTensor], a: object, function: str) -> EagerTensor:
    """``make(a)``, its error naming ``function`` (what the user called) rather than the
    runtime method it calls."""
    try:
        return make(_value_of(a))
    except TenferroError as exc:
        raise _renamed(exc, function) from None


def _value_of(a: object) -> object:
    """An EagerTensor's value on purpose (the history is dropped by request, so a function
    transform does not refuse it as it refuses ``np.asarray``), anything else as it is."""
    return Tensor._wrap(read(a._held())) if isinstance(a, EagerTensor) else a


__all__ = [
    "REQUIRED",
    "ArgumentError",
    "AxisError",
    "ContextMismatch",
    "CpuEngine",
    "DaskEngine",
    "DTypeError",
    "EagerRuntime",
    "EagerSession",
    "EagerTensor",
    "Engine",
    "EngineBusy",
    "EngineError",
    "ErrorInput",
    "GradInactive",
    "Gradients",
    "KernelError",
    "Kink",
    "NonScalarGrad",
    "NotDifferentiable",
    "NotInGradients",
    "OpSpec",
    "PluginError",
    "PluginWarning",
    "RuleError",
    "SampleInput",
    "SessionClosed",
    "SessionEntryError",
    "ShapeMismatch",
    "Tensor",
    "TenferroError",
    "TraceListing",
    "UnknownOp",
    "constant",
    "default_runtime",
    "grad",
    "hessian",
    "hookimpl",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "linearize",
    "tree_map",
    "value_and_grad",
    "variable",
    "vjp",
]
