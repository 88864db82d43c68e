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

from . import nn, numpy, optimizers  # noqa: F401 - tf.nn, tf.numpy, tf.optimizers
from ._api import constant, no_grad, stop_gradient, tree_map, variable
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
    OpNameClash,
    PluginError,
    PluginWarning,
    RuleError,
    SessionClosed,
    SessionEntryError,
    ShapeMismatch,
    TenferroError,
    UnknownName,
    UnknownOp,
)
from .core.runtime import default_runtime
from .engines import DaskEngine  # dask itself is imported when an engine is made
from .transforms import (
    checkpoint,
    checkpoint_policies,
    custom_jvp,
    custom_vjp,
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jit,
    jvp,
    linearize,
    value_and_grad,
    vjp,
    vmap,
)
from .transforms._jit import RetraceWarning, TracedValueError
from .transforms._ravel import flatten
from .transforms._replay import BatchingFallback

__version__ = "0.1.0"


#: PyTorch's and JAX's names that tenferro spells its own way.
_SPELLED_OTHERWISE = {
    "tensor": "tf.variable(a) (requires grad) or tf.constant(a)",
    "Variable": "tf.variable(a)",
    "enable_grad": "leave the no_grad() block (recording is on everywhere else)",
    "autograd": "tf.grad / tf.vjp, or loss.backward() and x.grad()",
    "remat": "tf.checkpoint(f)",
}


def __getattr__(name: str) -> object:
    raise UnknownName.of("tf", name, __all__, _SPELLED_OTHERWISE)


__all__ = [
    "REQUIRED",
    "ArgumentError",
    "AxisError",
    "BatchingFallback",
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
    "OpNameClash",
    "OpSpec",
    "PluginError",
    "PluginWarning",
    "RetraceWarning",
    "RuleError",
    "SampleInput",
    "SessionClosed",
    "SessionEntryError",
    "ShapeMismatch",
    "Tensor",
    "TenferroError",
    "TraceListing",
    "TracedValueError",
    "UnknownName",
    "UnknownOp",
    "checkpoint",
    "checkpoint_policies",
    "constant",
    "custom_jvp",
    "custom_vjp",
    "default_runtime",
    "flatten",
    "grad",
    "hessian",
    "hookimpl",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jit",
    "jvp",
    "linearize",
    "no_grad",
    "stop_gradient",
    "tree_map",
    "value_and_grad",
    "variable",
    "vjp",
    "vmap",
]
