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

__version__ = "0.1.0"

__all__ = [
    "REQUIRED",
    "ArgumentError",
    "AxisError",
    "ContextMismatch",
    "CpuEngine",
    "DTypeError",
    "EagerRuntime",
    "EagerSession",
    "EagerTensor",
    "Engine",
    "EngineBusy",
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
    "hookimpl",
]
