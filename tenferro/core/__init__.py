"""The core: values, runtime, sessions, trace, reverse sweep, registry, engine, errors.

It knows no op by name (apart from its own two: ``add_any``, cotangent accumulation, and
``alias``, a function transform's fresh vertex); every
op comes from a plugin through :mod:`tenferro.core.hookspecs`.
"""

from . import errors
from .eager import EagerTensor, Gradients
from .engine import CpuEngine, Engine
from .graph import TraceListing
from .hookspecs import hookimpl
from .loading import default_registry, load_registry
from .registry import Registry
from .runtime import EagerRuntime
from .session import EagerSession
from .spec import REQUIRED, ErrorInput, Kink, OpSpec, SampleInput
from .tensor import Tensor

__all__ = [
    "REQUIRED",
    "CpuEngine",
    "EagerRuntime",
    "EagerSession",
    "EagerTensor",
    "Engine",
    "ErrorInput",
    "Gradients",
    "Kink",
    "OpSpec",
    "Registry",
    "SampleInput",
    "Tensor",
    "TraceListing",
    "default_registry",
    "errors",
    "hookimpl",
    "load_registry",
]
