"""What the core's lower modules need of the two objects above them, the runtime and the
session, declared here, below both, so that no module names one above it, in type hints
either: the eager tensor, an op's call and its rules are written against :class:`Runtime`
and :class:`Session`; :class:`~tenferro.EagerRuntime` and
:class:`~tenferro.core.session.EagerSession` are what satisfy them (``tests/test_layers.py``
checks that they do)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from .engine import Engine
from .registry import Registry


class Runtime(Protocol):
    """An :class:`~tenferro.EagerRuntime`, as its tensors, sessions and ops use it."""

    registry: Registry
    #: The default engine when it is not native (its values are not NumPy arrays), else None.
    _engine: Engine | None
    #: Per thread, the session open there (``.session``, None if none).
    _here: Any

    def constant_from(self, tensor: Any) -> Any: ...

    def variable_from(self, tensor: Any) -> Any: ...

    def mixed_with(self, other: Runtime) -> str: ...

    def _backward(self, engine: Engine | None, out: Any, cotangent: Any = ...) -> Any: ...

    def _split_engine(
        self, given: Sequence[Any], engine: Engine | None, call: str, names: tuple[str, ...]
    ) -> tuple[Engine, tuple[Any, ...]]: ...

    def _detach(self, engine: Engine | None, tensor: Any) -> Any: ...


class Session(Protocol):
    """An :class:`~tenferro.core.session.EagerSession`, as an op's call and rules use it."""

    _rt: Runtime
    #: The engine when it is not native, else None (values are NumPy arrays).
    _engine: Engine | None
    _open: bool
    #: Whether ops may take their inline checks (open, on NumPy values).
    _fast: bool
    #: What a kernel runs under when nothing is lent (see EagerSession).
    _kernel_context: Any
    _in_sweep: bool
    #: In a sweep's session: the creation number when it began (see EagerTensor._read).
    _rules_floor: int
    #: Inside a JVP rule: the results it sees and the indices of those whose tangent is read.
    _reads: tuple[tuple[Any, ...], set[int]] | None
