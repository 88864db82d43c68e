"""``tenferro.autograd``: HIPS autograd's public API on tenferro, so that a program written
for autograd moves by changing ``autograd`` to ``tenferro.autograd`` in its imports.

``grad``, ``value_and_grad``, ``jacobian``, ``hessian`` and the other differential
operators take autograd's ``argnum`` and give autograd's numbers, as NumPy arrays;
``tenferro.autograd.numpy``'s functions are NumPy's own on values that carry no derivative
and ``tenferro.numpy``'s on tracked ones (a name tenferro.numpy lacks refuses a tracked
array: no gradient is lost silently).
What differs from autograd, and what is left out, is listed in docs/autograd.md.
"""

from . import numpy
from .builtins import dict, isinstance, list, tuple, type
from .differential_operators import (
    checkpoint,
    deriv,
    elementwise_grad,
    grad,
    grad_and_aux,
    grad_named,
    hessian,
    hessian_tensor_product,
    hessian_vector_product,
    holomorphic_grad,
    jacobian,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    multigrad_dict,
    tensor_jacobian_product,
    value_and_grad,
    vector_jacobian_product,
)

__all__ = [
    "checkpoint",
    "deriv",
    "dict",
    "elementwise_grad",
    "grad",
    "grad_and_aux",
    "grad_named",
    "hessian",
    "hessian_tensor_product",
    "hessian_vector_product",
    "holomorphic_grad",
    "isinstance",
    "jacobian",
    "list",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "multigrad_dict",
    "numpy",
    "tensor_jacobian_product",
    "tuple",
    "type",
    "value_and_grad",
    "vector_jacobian_product",
]
