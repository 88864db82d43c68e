"""What a ``tf.checkpoint`` keeps of its function's first run (``policy=``, as
``jax.checkpoint_policies``): a policy is a callable ``policy(op) -> bool`` of an op's
:class:`~tenferro.extend.OpSpec` (its ``name``, its ``plugin``), True for an op whose
results are kept, so that the run for a derivative takes them instead of computing them.

``nothing_saveable`` is ``policy=None`` (only the arguments are kept); ``dots_saveable``
keeps the contractions (the contract family's matmul, einsum, tensordot, vecdot, ...), the
costly part of a layer, so that only the cheap elementwise ops run again; and
``everything_saveable`` keeps every result (no memory saved: for comparisons). JAX names
values with ``checkpoint_name`` to choose them; tenferro chooses by op:
``save_only_these_ops("matmul", "exp")``. docs/transforms.md, "Checkpointing", has the
measured memory and time of each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tenferro.core.errors import ArgumentError

__all__ = ["dots_saveable", "checkpoint_dots", "everything_saveable", "nothing_saveable", "save_only_these_ops"]

#: A checkpoint policy: whether the results of an op are kept.
Policy = Callable[[Any], bool]


def nothing_saveable(op: Any) -> bool:
    """Keep no result inside the function (``policy=None``): everything runs again."""
    return False


def everything_saveable(op: Any) -> bool:
    """Keep every result: nothing runs again, and no memory is saved."""
    return True


def dots_saveable(op: Any) -> bool:
    """Keep the results of the contract family's ops (matmul, einsum, tensordot, vecdot,
    ...): the products are not computed again, the elementwise ops between them are."""
    return op.plugin == "contract"


#: JAX's other name of :func:`dots_saveable`.
checkpoint_dots = dots_saveable


def save_only_these_ops(*names: str) -> Policy:
    """A policy keeping the results of the ops named (``"matmul"``, ``"exp"``; ``tenferro
    ops`` lists them), and no other."""
    if not names or not all(isinstance(name, str) for name in names):
        raise ArgumentError(
            f"tf.checkpoint_policies.save_only_these_ops: give the names of ops as strings, got {names!r}"
        )
    kept = frozenset(names)

    def policy(op: Any) -> bool:
        return op.name in kept

    policy.__name__ = policy.__qualname__ = f"save_only_these_ops{tuple(sorted(kept))!r}"
    return policy
