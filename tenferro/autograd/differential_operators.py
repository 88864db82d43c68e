"""HIPS autograd's differential operators on tenferro's transforms, with autograd's
signatures and results: ``grad(fun, argnum=0)`` and the rest take the function and the
argument number (an int, or a tuple of them for a tuple of gradients), and the function
they return takes ``fun``'s own arguments. Each is autograd's definition in
``autograd/differential_operators.py`` with autograd's ``make_vjp`` and ``make_jvp``
replaced by ``tf.vjp`` and ``tf.jvp``; the differences are listed in docs/autograd.md.
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

import tenferro.numpy as tnp
from tenferro._api import tree_map
from tenferro.core.eager import EagerTensor, held, vertex
from tenferro.core.errors import ArgumentError, NonScalarGrad
from tenferro.transforms import checkpoint as tf_checkpoint
from tenferro.transforms import jacrev, jvp, vjp
from tenferro.transforms import value_and_grad as _value_and_grad

__all__ = [
    "checkpoint",
    "deriv",
    "elementwise_grad",
    "grad",
    "grad_and_aux",
    "grad_named",
    "hessian",
    "hessian_tensor_product",
    "hessian_vector_product",
    "holomorphic_grad",
    "jacobian",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "multigrad_dict",
    "tensor_jacobian_product",
    "value_and_grad",
    "vector_jacobian_product",
]

Unary = Callable[[Any], Any]


def unary_to_nary(unary_operator: Callable[..., Any]) -> Callable[..., Any]:
    """``unary_operator(fun, x, ...)``, an operator on functions of one argument, as the
    operator ``op(fun, argnum=0, ...)`` on functions of several: autograd's ``wrap_util``
    (the other arguments held fixed, ``x`` the argument ``argnum`` or the tuple of those)."""
    name = unary_operator.__name__

    @functools.wraps(unary_operator)
    def nary_operator(
        fun: Callable[..., Any], argnum: int | tuple[int, ...] = 0, *op_args: Any, **op_kwargs: Any
    ) -> Any:
        if not callable(fun):
            raise ArgumentError(f"tenferro.autograd.{name}: fun must be callable, got {type(fun).__name__}")
        _check_argnum(argnum, name)

        @functools.wraps(fun)
        def nary_f(*args: Any, **kwargs: Any) -> Any:
            positions = _in_range(argnum, args, name)

            def unary_f(x: Any) -> Any:
                subargs = list(args)
                for position, value in zip(positions, (x,) if isinstance(argnum, int) else x):
                    subargs[position] = value
                return fun(*subargs, **kwargs)

            unary_f.__name__ = getattr(fun, "__name__", "unary_f")  # (how check_grads names it)
            x = args[argnum] if isinstance(argnum, int) else tuple(args[i] for i in argnum)
            return _plain(unary_operator(unary_f, x, *op_args, **op_kwargs))

        nary_f.__name__ = f"{name}_of_{getattr(fun, '__name__', '[unknown name]')}_wrt_argnum_{argnum}"
        return nary_f

    return nary_operator


def _in_range(argnum: int | tuple[int, ...], args: tuple[Any, ...], name: str) -> tuple[int, ...]:
    """``argnum`` as a tuple of positions, each one of ``args``'."""
    positions = (argnum,) if isinstance(argnum, int) else tuple(argnum)
    if max(positions) >= len(args) or min(positions) < -len(args):
        raise ArgumentError(
            f"tenferro.autograd.{name}: argnum {argnum} is out of range for a call with {len(args)} "
            f"positional argument(s)"
        )
    return positions


def _check_argnum(argnum: Any, name: str) -> None:
    if type(argnum) is int or (type(argnum) in (tuple, list) and argnum and all(type(n) is int for n in argnum)):
        return
    raise ArgumentError(
        f"tenferro.autograd.{name}: argnum must be an int or a tuple of ints (the positions of the arguments to "
        f"differentiate), got {argnum!r}"
    )


def _scalar_output(out: Any, name: str) -> Any:
    """``out`` as a 0-d array: autograd differentiates any output of size 1 as a scalar
    (a 0-d one as it is: no reshape recorded); other sizes raise its TypeError."""
    shape = out.shape if type(out) is EagerTensor else np.shape(out)
    if shape == ():
        return out
    if math.prod(shape) != 1:
        raise NonScalarGrad(
            shape,
            f"{name} only applies to real scalar-output functions (fun returned shape {list(shape)}); "
            f"try jacobian, elementwise_grad or holomorphic_grad",
        )
    return tnp.reshape(tnp.asarray(out), ())


def _scalar(fun: Unary, name: str) -> Unary:
    """``fun`` returning ``(its output as a 0-d array, the output as it is)``."""

    def scalar_f(x: Any) -> tuple[Any, Any]:
        out = fun(x)
        return _scalar_output(out, name), out

    return scalar_f


def _gradient_operator(name: str, with_value: bool) -> Callable[..., Any]:
    """autograd's ``grad`` (``with_value``: ``value_and_grad``) as one ``tf.value_and_grad``
    made when the operator is applied, not at each call: autograd's ``argnum`` is tenferro's
    ``argnums`` (the other arguments held fixed)."""

    def operator(fun: Callable[..., Any], argnum: int | tuple[int, ...] = 0) -> Callable[..., Any]:
        if not callable(fun):
            raise ArgumentError(f"tenferro.autograd.{name}: fun must be callable, got {type(fun).__name__}")
        _check_argnum(argnum, name)

        def scalar_f(*args: Any, **kwargs: Any) -> Any:
            out = fun(*args, **kwargs)
            return (_scalar_output(out, name), out) if with_value else _scalar_output(out, name)

        transform = _value_and_grad(scalar_f, argnum if isinstance(argnum, int) else tuple(argnum), with_value)

        @functools.wraps(fun)
        def nary_f(*args: Any, **kwargs: Any) -> Any:
            _in_range(argnum, args, name)
            value, gradient = transform(*args, **kwargs)
            gradient = _plain(_conj(gradient))
            return (_plain(value[1]), gradient) if with_value else gradient

        nary_f.__name__ = f"{name}_of_{getattr(fun, '__name__', '[unknown name]')}_wrt_argnum_{argnum}"
        return nary_f

    return operator


def _plain(tree: Any) -> Any:
    """Results as autograd gives them: each constant a NumPy array of its own (a NumPy
    scalar for a 0-d one), so that ``weights -= lr * g``, ``scipy.optimize`` and copying
    work as they do with autograd; a tracked result (an operator called inside an
    enclosing derivative) as it is, so that the derivative flows on."""

    return _plain_leaf(tree) if type(tree) is EagerTensor else tree_map(_plain_leaf, tree)


def _plain_leaf(leaf: Any) -> Any:
    if type(leaf) is EagerTensor and vertex(leaf) is None:
        value = np.array(held(leaf))
        return value[()] if value.ndim == 0 else value
    return leaf


def _conj(tree: Any) -> Any:
    """Each complex leaf conjugated: autograd's (and JAX's) complex convention from
    tenferro's (PyTorch's), whose cotangents are the conjugates (docs/complex.md)."""
    if type(tree) is EagerTensor:  # (the common result: one gradient)
        return tnp.conj(tree) if tree.dtype.kind == "c" else tree
    return tree_map(lambda leaf: tnp.conj(leaf) if np.iscomplexobj(leaf) else leaf, tree)


@unary_to_nary
def make_vjp(fun: Unary, x: Any) -> tuple[Callable[[Any], Any], Any]:
    """``(vjp, value)``: ``vjp(g)`` is ``g``'s vector-Jacobian product with respect to ``x``
    (for complex values, in autograd's convention: ``g·f′``, not ``g·conj(f′)``)."""
    value, pull = vjp(fun, x)
    return (lambda g: _plain(_conj(pull(_conj(g))[0]))), value


@unary_to_nary
def make_jvp(fun: Unary, x: Any) -> Callable[[Any], tuple[Any, Any]]:
    """``jvp``: ``jvp(v)`` is ``(value, J·v)``, in forward mode."""
    return lambda v: _plain(jvp(fun, (x,), (v,)))


grad = _gradient_operator("grad", with_value=False)
grad.__doc__ = """The gradient of ``fun`` (a scalar, or any output of size 1) with respect to ``x``."""
grad.__name__ = grad.__qualname__ = "grad"

value_and_grad = _gradient_operator("value_and_grad", with_value=True)
value_and_grad.__doc__ = """``(value, gradient)``, suitable for ``scipy.optimize.minimize(..., jac=True)``."""
value_and_grad.__name__ = value_and_grad.__qualname__ = "value_and_grad"


@unary_to_nary
def elementwise_grad(fun: Unary, x: Any) -> Any:
    """The sum of each column of the Jacobian, in one reverse pass: the derivative of an
    elementwise function, for each element."""
    value, pull = vjp(fun, x)
    if np.iscomplexobj(value):
        raise ArgumentError("tenferro.autograd.elementwise_grad only applies to real-output functions")
    return _conj(pull(tnp.ones_like(value))[0])


@unary_to_nary
def deriv(fun: Unary, x: Any) -> Any:
    """The derivative along a tangent of ones (forward mode)."""
    return jvp(fun, (x,), (tnp.ones_like(tnp.asarray(x)),))[1]


@unary_to_nary
def jacobian(fun: Unary, x: Any) -> Any:
    """The Jacobian, of shape ``out.shape + x.shape``."""
    return jacrev(fun)(x)


@unary_to_nary
def holomorphic_grad(fun: Unary, x: Any) -> Any:
    """f′(z) of a holomorphic ``fun``: autograd's ``grad`` of its real part."""
    if not np.iscomplexobj(x):
        warnings.warn("Input to holomorphic_grad is not complex", stacklevel=3)
    return grad(lambda z: tnp.real(fun(z)))(x)


def grad_named(fun: Callable[..., Any], argname: str) -> Callable[..., Any]:
    """The gradient with respect to the argument named ``argname`` (not ``*args``/``**kwargs``)."""
    names = [
        p.name
        for p in inspect.signature(fun).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if argname not in names:
        raise ArgumentError(
            f"tenferro.autograd.grad_named: {getattr(fun, '__name__', fun)!r} has no positional argument "
            f"{argname!r} (it has {names})"
        )
    return grad(fun, names.index(argname))


@unary_to_nary
def hessian(fun: Unary, x: Any) -> Any:
    """The exact Hessian, ``jacobian(jacobian(fun))`` (reverse over reverse, as autograd)."""
    return jacrev(jacrev(fun))(x)


@unary_to_nary
def make_hvp(fun: Unary, x: Any) -> tuple[Callable[[Any], Any], Any]:
    """``(hvp, gradient)``: ``hvp(v)`` is the Hessian-vector product at ``x``."""
    return make_vjp(grad(fun))(x)


def hessian_tensor_product(fun: Callable[..., Any], argnum: int = 0) -> Callable[..., Any]:
    """The function ``(*args, tensor) -> H·tensor``, H the Hessian with respect to ``argnum``."""
    fun_grad = grad(fun, argnum)

    def vector_dot_grad(*args: Any, **kwargs: Any) -> Any:
        args, vector = args[:-1], args[-1]
        return tnp.tensordot(fun_grad(*args, **kwargs), vector, axes=np.ndim(vector))

    return grad(vector_dot_grad, argnum)


hessian_vector_product = hessian_tensor_product


def tensor_jacobian_product(fun: Callable[..., Any], argnum: int = 0) -> Callable[..., Any]:
    """The function ``(*args, tensor) -> tensor·J``, J the Jacobian with respect to ``argnum``."""

    def vector_dot_fun(*args: Any, **kwargs: Any) -> Any:
        args, vector = args[:-1], args[-1]
        return tnp.tensordot(vector, fun(*args, **kwargs), axes=np.ndim(vector))

    return jacobian(vector_dot_fun, argnum)


vector_jacobian_product = tensor_jacobian_product


def make_ggnvp(
    f: Callable[..., Any], g: Callable[[Any], Any] = lambda x: 0.5 * tnp.sum(x**2, axis=-1), f_argnum: int = 0
) -> Callable[..., Any]:
    """Generalized Gauss-Newton-vector products of ``g ∘ f``: ``make_ggnvp(f, g)(x)(v)``."""

    @unary_to_nary
    def _make_ggnvp(f: Unary, x: Any) -> Callable[[Any], Any]:
        f_vjp, f_x = make_vjp(f)(x)
        g_hvp, grad_g_x = make_vjp(grad(g))(f_x)
        f_jvp, _ = make_vjp(f_vjp)(tnp.zeros_like(grad_g_x))
        return lambda v: _plain(f_vjp(g_hvp(f_jvp(v))))

    return _make_ggnvp(f, f_argnum)


@unary_to_nary
def grad_and_aux(fun: Unary, x: Any) -> tuple[Any, Any]:
    """``(gradient of the first output, the second output)`` of a ``fun`` returning two."""

    def split(x: Any) -> tuple[Any, Any]:
        out, aux = fun(x)
        return _scalar(lambda _: out, "grad_and_aux")(x)[0], aux

    (_, aux), gradient = _value_and_grad(split, has_aux=True)(x)
    return _conj(gradient), aux


def multigrad_dict(fun: Callable[..., Any]) -> Callable[..., OrderedDict[str, Any]]:
    """The gradients with respect to every argument at once, as ``{argname: gradient}``."""
    signature = inspect.signature(fun)

    def gradfun(*args: Any, **kwargs: Any) -> OrderedDict[str, Any]:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)

        def newfun(values: dict[str, Any]) -> Any:
            call = signature.bind_partial()
            call.arguments.update(values)
            return fun(*call.args, **call.kwargs)

        gradients = grad(newfun)(arguments)
        return OrderedDict((name, gradients[name]) for name in arguments)

    return gradfun


def checkpoint(fun: Callable[..., Any]) -> Callable[..., Any]:
    """``fun`` whose intermediate values are not kept for the backward pass but computed
    again there (autograd's ``checkpoint``: memory traded for time): ``tf.checkpoint``,
    which forward mode goes through too."""
    return tf_checkpoint(fun)
