"""Testing tools for tenferro op plugins: the conformance suite, the finite-difference
oracle and the sample strategies.

    from tenferro.testing import check_op, check_plugin
    check_plugin("mymath")    # raises ConformanceFailure naming every failed check

The submodules need the ``test`` extra (pytest, hypothesis). This package imports them only
when one of its names is used, because its pytest plugin (``tenferro.testing.plugin``) is
loaded by every pytest run in an environment where tenferro is installed.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "check_op": "conformance",
    "check_plugin": "conformance",
    "conformance_runtime": "conformance",
    "run_check": "conformance",
    "ConformanceFailure": "conformance",
    "CheckSkipped": "conformance",
    "Outcome": "conformance",
    "CHECKS": "checks",
    "DuckArray": "duck",
    "check_first_order": "oracle",
    "check_second_order": "oracle",
    "fd_directional": "oracle",
    "strategies": None,
    "oracle": None,
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'tenferro.testing' has no attribute {name!r}")
    module = _EXPORTS[name]
    if module is None:
        return importlib.import_module(f"{__name__}.{name}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
