"""Function transforms with JAX's names and conventions: ``tf.grad``, ``tf.value_and_grad``,
``tf.vjp``, ``tf.jvp``, ``tf.linearize``, ``tf.jacrev`` (``tf.jacobian``), ``tf.jacfwd``,
``tf.hessian``, ``tf.hvp``; and user-defined derivative rules, ``tf.custom_vjp`` and
``tf.custom_jvp`` (``_custom.py``); ``tf.checkpoint`` (``_checkpoint.py``); ``tf.vmap``
(``_vmap.py``); ``tf.jit`` (``_jit.py``).

Arguments and results are pytrees (nested dicts, lists, tuples and namedtuples of arrays:
NumPy arrays, tenferro arrays or Python numbers); results come back in the same structure,
as tenferro arrays. Transforms nest to any order (``tf.grad(tf.grad(f))``,
``tf.jacfwd(tf.jacrev(f))``, a transform inside a function being differentiated) without
perturbation confusion. They run on the runtime of their array arguments (the default
runtime when there is none) and take ``engine=`` to run on a given engine.

Forward mode (``jvp``, ``linearize``, ``jacfwd``) records ``f`` once and pushes tangents
through the recorded trace: an op's ``jvp`` rule where it has one, its VJP transposed
otherwise, so every differentiable op supports it. See docs/transforms.md.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from tenferro.core.arguments import flag, shown
from tenferro.core.eager import EagerTensor
from tenferro.core.engine import Engine
from tenferro.core.errors import ArgumentError, DTypeError, NonScalarGrad
from tenferro.core.forward import Plan
from tenferro.core.recording import no_grad
from tenferro.core.tensor import describe, dtype_name, freeze

from . import checkpoint_policies
from ._call import Call
from ._checkpoint import checkpoint
from ._custom import custom_jvp, custom_vjp
from ._jit import jit
from ._replay import LEAST_BATCH, QUIET
from ._trees import flatten, unflatten, where_in
from ._vmap import over_basis, vmap

__all__ = [
    "checkpoint",
    "checkpoint_policies",
    "custom_jvp",
    "custom_vjp",
    "grad",
    "hessian",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jit",
    "jvp",
    "linearize",
    "value_and_grad",
    "vjp",
    "vmap",
]


T = TypeVar("T", bound=Callable[..., Any])


def _keywords(transform: T) -> T:
    """``transform`` refusing a keyword it does not take with an ArgumentError that names
    the one meant (``tf.grad(f, argnum=1)``: did you mean 'argnums'?), not Python's bare
    "unexpected keyword argument"; the other arguments are checked as they are read."""
    parameters = inspect.signature(transform).parameters
    names = [n for n, p in parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

    @functools.wraps(transform)
    def checked(*args: Any, **kwargs: Any) -> Any:
        for given in kwargs:
            if given not in names:
                close = difflib.get_close_matches(given, names, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ArgumentError(
                    f"{transform.__name__}: got an unexpected keyword argument {given!r}{hint} "
                    f"(its keywords are {', '.join(names)})"
                )
        return transform(*args, **kwargs)

    return checked  # type: ignore[return-value]


def _options(transform: str, engine: Any, **flags: Any) -> None:
    """The options every transform takes: ``engine`` an Engine or None, each flag a bool."""
    if engine is not None and not isinstance(engine, Engine):
        raise ArgumentError(
            f"{transform}: engine must be an engine such as CpuEngine.serial(), or None, got {shown(engine)}"
        )
    for name, value in flags.items():
        flag(value, transform, name)


def _argnums(argnums: int | Sequence[int], transform: str) -> tuple[tuple[int, ...], bool]:
    """``argnums`` as a tuple, and whether it was one int (results then are not a tuple)."""
    if isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool):
        return (int(argnums),), True
    if (
        isinstance(argnums, (tuple, list))
        and argnums
        and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in argnums)
    ):
        return tuple(int(n) for n in argnums), False
    raise ArgumentError(f"{transform}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}")


def _per_argnum(call: Call, flat: list[Any], single: bool) -> Any:
    """Flat per-leaf results back in the structure of the differentiated arguments."""
    trees, start = [], 0
    for spec in call.in_specs:
        count = spec.num_leaves
        trees.append(unflatten(spec, flat[start : start + count]))
        start += count
    return trees[0] if single else tuple(trees)


def _conj(tensor: EagerTensor) -> EagerTensor:
    """A holomorphic derivative from a reverse-mode one (tenferro's cotangents are conjugated)."""
    import tenferro.numpy as tnp  # noqa: PLC0415 - the front end, imported on first use

    return tnp.conj(tensor) if tensor.dtype.kind == "c" else tensor


# -- reverse mode -----------------------------------------------------------------------
@_keywords
def value_and_grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    engine: Engine | None = None,
) -> Callable[..., Any]:
    """``fun`` and its gradient with respect to the arguments ``argnums``, as ``jax.value_and_grad``:
    the new function returns ``(value, grads)`` (``((value, aux), grads)`` with ``has_aux``),
    ``grads`` shaped like the argument (a tuple of them for a tuple ``argnums``). Keyword
    arguments pass through to ``fun`` undifferentiated, as in JAX (so for the Jacobians).

    ``fun`` must return a real scalar (a complex one with ``holomorphic=True``, giving f′(z)).
    For a real function of complex inputs the gradient is tenferro's (PyTorch's) convention,
    the conjugate of JAX's: ``grad`` of Σ|z|² is 2z.

    A NumPy argument of 128 KiB or more is read in place, not copied, and is read-only
    while the call runs (docs/transforms.md, "NumPy arguments")."""
    return _value_and_grad(fun, argnums, has_aux, holomorphic, engine, "value_and_grad")


def _value_and_grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int],
    has_aux: bool,
    holomorphic: bool,
    engine: Engine | None,
    transform: str,
) -> Callable[..., Any]:
    """``value_and_grad``, its errors naming ``transform`` (what the user called)."""
    _options(transform, engine, has_aux=has_aux, holomorphic=holomorphic)
    nums, single = _argnums(argnums, transform)

    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        call = Call(transform, fun, args, nums, engine, has_aux, "require" if holomorphic else "allow", kwargs, True)
        return call.finish(lambda: _value_and_grads(call, transform, holomorphic, has_aux, single))

    return _named(value_and_grad_f, "value_and_grad", fun)


def _value_and_grads(call: Call, transform: str, holomorphic: bool, has_aux: bool, single: bool) -> Any:
    """``(value, grads)`` of the call's scalar output."""
    if not call.out_spec.is_leaf() or call.outputs[0].shape != ():
        one = call.out_spec.is_leaf()
        shape = call.outputs[0].shape if one else (len(call.outputs),)
        got = f"shape {list(shape)}" if one else f"a pytree of {len(call.outputs)} arrays ({call.out_spec})"
        raise NonScalarGrad(
            shape,
            f"{transform}: the function must return a scalar (a 0-d array), got {got}; reduce it to one "
            f"number, or use tf.vjp or tf.jacrev for a vector output",
        )
    out = call.outputs[0]
    if out.dtype.kind == "c" and not holomorphic:
        raise DTypeError(
            f"{transform}: the function returns a complex scalar; {transform} requires real-valued outputs "
            f"(take its real part or absolute value), or pass holomorphic=True for the derivative of a "
            f"holomorphic function"
        )
    if out.dtype.kind not in "fc" or (holomorphic and out.dtype.kind != "c"):
        need = "a complex one with holomorphic=True" if holomorphic else "a float"
        raise DTypeError(
            f"{transform}: the function returns a scalar of dtype {dtype_name(out.dtype)}; it must return {need}"
        )
    grads = call.pull([(out, EagerTensor(np.ones((), out.dtype), call.rt))])
    if holomorphic:
        grads = [_conj(g) for g in grads]
    value = call.settle(out)
    if has_aux:
        value = (value, unflatten(*_settled(call, call.aux)))
    return value, _per_argnum(call, grads, single)


def _settled(call: Call, tree: Any) -> tuple[Any, list[Any]]:
    """``aux`` with its tracked arrays as constants where the call does not record."""
    leaves, spec = flatten(tree)
    return spec, [call.settle(x) if type(x) is EagerTensor else x for x in leaves]


@_keywords
def grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    engine: Engine | None = None,
) -> Callable[..., Any]:
    """The gradient of scalar-valued ``fun`` with respect to the arguments ``argnums``, as
    ``jax.grad`` (``(grads, aux)`` with ``has_aux``). See :func:`value_and_grad`."""
    value_and_grad_f = _value_and_grad(fun, argnums, has_aux, holomorphic, engine, "grad")

    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, grads = value_and_grad_f(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return _named(grad_f, "grad", fun)


@_keywords
def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False, engine: Engine | None = None) -> tuple[Any, ...]:
    """``(out, vjp_fn)`` as ``jax.vjp`` (``(out, vjp_fn, aux)`` with ``has_aux``): ``fun``
    evaluated at ``primals`` once, and the function that maps a cotangent shaped like
    ``out`` to a tuple with one cotangent per primal. ``vjp_fn`` may be called many times.
    For complex values the map is tenferro's (PyTorch's) ct ↦ ct·conj(J), JAX's ct ↦ ct·J
    conjugated: ``vjp_fn(ct)`` is ``conj(jax_vjp_fn(conj(ct)))``."""
    _options("vjp", engine, has_aux=has_aux)
    call = Call("vjp", fun, primals, tuple(range(len(primals))), engine, has_aux)
    out = unflatten(call.out_spec, [call.settle(x) for x in call.outputs])

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        leaves, spec = flatten(cotangent)
        if spec != call.out_spec:
            raise ArgumentError(
                f"vjp: the cotangent must have the structure of the output ({call.out_spec}), got {spec}"
            )
        seeds = [
            (o, call.tangent(ct, o, lambda i=i: where_in("vjp", "the cotangent", cotangent, i), "the output"))
            for i, (o, ct) in enumerate(zip(call.outputs, leaves))
        ]
        return _per_argnum(call, call.pull(seeds), single=False)

    if has_aux:
        return out, vjp_fn, unflatten(*_settled(call, call.aux))
    return out, vjp_fn


@_keywords
def jacrev(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    chunk_size: int | None = None,
    engine: Engine | None = None,
) -> Callable[..., Any]:
    """The Jacobian of ``fun`` by reverse mode (one sweep per output element, mapped over
    them with ``tf.vmap``: ``chunk_size`` at a time, as ``torch.func.jacrev``, to bound
    memory; None: all), as ``jax.jacrev``: for each output leaf of shape S and argument leaf
    of shape T, an array of shape S + T, nested as the output's structure of the arguments'
    structure."""
    return _jacrev(fun, argnums, has_aux, holomorphic, engine, "jacrev", chunk_size)


def _jacrev(
    fun: Callable[..., Any],
    argnums: int | Sequence[int],
    has_aux: bool,
    holomorphic: bool,
    engine: Engine | None,
    transform: str,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """``jacrev``, its errors naming ``transform`` (what the user called)."""
    _options(transform, engine, has_aux=has_aux, holomorphic=holomorphic)
    _check_chunk_size(chunk_size, transform)
    nums, single = _argnums(argnums, transform)

    def jacrev_f(*args: Any, **kwargs: Any) -> Any:
        call = Call(transform, fun, args, nums, engine, has_aux, "require" if holomorphic else "allow", kwargs, True)
        call.chunk_size = chunk_size
        return call.finish(lambda: _jacobian_rows(call, transform, holomorphic, has_aux, single))

    return _named(jacrev_f, transform, fun)


def _jacobian_rows(call: Call, transform: str, holomorphic: bool, has_aux: bool, single: bool) -> Any:
    """jacrev's result from the call: one reverse sweep per output element."""
    _real_outputs(call, transform, holomorphic)
    with call.context():  # one session for every sweep and the blocks' assembly, on the call's engine
        per_output = [_rows(call, out, holomorphic, single) for out in call.outputs]
    return _with_aux(call, unflatten(call.out_spec, per_output), has_aux)


def _over_basis(call: Call, size: int, fun: Callable[[EagerTensor], Any], basis: EagerTensor) -> Any:
    """``fun`` of each basis vector (the rows of ``basis``), stacked: one batched sweep or
    push where ``tf.vmap`` can replay it (docs/transforms.md), else None (one per vector).
    The replay records only where the call does (its results are then the call's own)."""
    if size < LEAST_BATCH:
        return None
    import tenferro.numpy as tnp  # noqa: PLC0415 - the front end, imported on first use

    chunk = call.chunk_size or size
    token = QUIET.set(True)
    try:
        with contextlib.nullcontext() if call.record else no_grad(call.rt):
            pieces = [over_basis(fun)(basis[start : start + chunk]) for start in range(0, size, chunk)]
    finally:
        QUIET.reset(token)
    joined = pieces[0] if len(pieces) == 1 else [tnp.concat(part, axis=0) for part in zip(*pieces)]
    return tuple(call.settle(x) for x in joined)


def _rows(call: Call, out: EagerTensor, holomorphic: bool, single: bool) -> Any:
    """The Jacobian blocks of one output leaf: one sweep per element, each giving a row
    (one cotangent per argument leaf); all at once, batched, where vmap replays the sweep."""
    seeds = EagerTensor(freeze(np.eye(out.size, dtype=out.dtype).reshape((out.size, *out.shape))), call.rt)
    batched = _over_basis(call, out.size, lambda seed: tuple(call.pull([(out, seed)])), seeds)
    if batched is not None:
        blocks = [_block(batched[j], out.shape + x.shape, holomorphic) for j, x in enumerate(call.inputs)]
        return _per_argnum(call, blocks, single)
    rows = []
    for k in range(out.size):
        seed = np.zeros(out.size, out.dtype)
        seed[k] = 1
        rows.append(call.pull([(out, EagerTensor(seed.reshape(out.shape), call.rt))]))
    blocks = [
        _stacked([row[j] for row in rows], out.shape, x.shape, x, holomorphic, last=False)
        for j, x in enumerate(call.inputs)
    ]
    return _per_argnum(call, blocks, single)


#: ``jax.jacobian``: reverse mode.
jacobian = jacrev


# -- forward mode -----------------------------------------------------------------------
@_keywords
def jvp(
    fun: Callable[..., Any],
    primals: Sequence[Any],
    tangents: Sequence[Any],
    has_aux: bool = False,
    *,
    engine: Engine | None = None,
) -> tuple[Any, ...]:
    """``(out, tangent_out)`` as ``jax.jvp`` (``(out, tangent_out, aux)`` with ``has_aux``):
    ``fun`` at ``primals`` and its derivative along ``tangents`` (a sequence with one
    tangent per primal, each of its primal's structure, shapes and dtypes)."""
    return _jvp(fun, primals, tangents, has_aux, engine, "jvp")


def _jvp(
    fun: Callable[..., Any],
    primals: Sequence[Any],
    tangents: Sequence[Any],
    has_aux: bool,
    engine: Engine | None,
    transform: str,
) -> tuple[Any, ...]:
    """``jvp``, its errors naming ``transform`` (what the user called)."""
    _options(transform, engine, has_aux=has_aux)
    primals, tangents = _sequences(primals, tangents, transform)
    _check_arity(fun, len(primals), transform)
    call = Call(transform, fun, primals, tuple(range(len(primals))), engine, has_aux, borrows=True)

    def pushed() -> tuple[Any, ...]:
        flat = _tangents(call, tangents, transform)
        out = unflatten(call.out_spec, [call.settle(x) for x in call.outputs])
        tangent_out = unflatten(call.out_spec, call.push(call.plan(), flat))
        return (out, tangent_out, unflatten(*_settled(call, call.aux))) if has_aux else (out, tangent_out)

    return call.finish(pushed)


@_keywords
def linearize(
    fun: Callable[..., Any], *primals: Any, has_aux: bool = False, engine: Engine | None = None
) -> tuple[Any, ...]:
    """``(out, f_jvp)`` as ``jax.linearize`` (``(out, f_jvp, aux)`` with ``has_aux``): ``fun``
    evaluated once at ``primals``, and the function ``f_jvp(*tangents)`` that gives its
    derivative along tangents, pushed through the recorded trace without running ``fun``
    again."""
    _options("linearize", engine, has_aux=has_aux)
    call = Call("linearize", fun, primals, tuple(range(len(primals))), engine, has_aux)
    plan = call.plan()

    def f_jvp(*tangents: Any) -> Any:
        if len(tangents) != len(primals):
            raise ArgumentError(f"linearize: f_jvp takes one tangent per primal ({len(primals)}), got {len(tangents)}")
        return unflatten(call.out_spec, call.push(plan, _tangents(call, tangents, "linearize")))

    out = unflatten(call.out_spec, [call.settle(x) for x in call.outputs])
    return (out, f_jvp, unflatten(*_settled(call, call.aux))) if has_aux else (out, f_jvp)


@_keywords
def jacfwd(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    chunk_size: int | None = None,
    engine: Engine | None = None,
) -> Callable[..., Any]:
    """The Jacobian of ``fun`` by forward mode (``fun`` runs once; one push of a tangent per
    argument element, mapped over them with ``tf.vmap``, ``chunk_size`` at a time), as
    ``jax.jacfwd``; same layout as :func:`jacrev`."""
    return _jacfwd(fun, argnums, has_aux, holomorphic, engine, "jacfwd", chunk_size)


def _jacfwd(
    fun: Callable[..., Any],
    argnums: int | Sequence[int],
    has_aux: bool,
    holomorphic: bool,
    engine: Engine | None,
    transform: str,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """``jacfwd``, its errors naming ``transform`` (what the user called)."""
    _options(transform, engine, has_aux=has_aux, holomorphic=holomorphic)
    _check_chunk_size(chunk_size, transform)
    nums, single = _argnums(argnums, transform)

    def jacfwd_f(*args: Any, **kwargs: Any) -> Any:
        call = Call(transform, fun, args, nums, engine, has_aux, "require" if holomorphic else "refuse", kwargs, True)
        call.chunk_size = chunk_size
        return call.finish(lambda: _jacobian_columns(call, transform, holomorphic, has_aux, single))

    return _named(jacfwd_f, transform, fun)


def _jacobian_columns(call: Call, transform: str, holomorphic: bool, has_aux: bool, single: bool) -> Any:
    """jacfwd's result from the call: one push per argument element."""
    if holomorphic:  # as JAX: forward mode takes a complex output of a real input as it is
        _real_outputs(call, transform, holomorphic)
    plan = call.plan()
    with call.context():  # one session for every push and the blocks' assembly, on the call's engine
        columns = [_columns(call, plan, j, x) for j, x in enumerate(call.inputs)]
        per_output = []
        for i, out in enumerate(call.outputs):
            blocks = [_columns_block(columns[j], i, x, out) for j, x in enumerate(call.inputs)]
            per_output.append(_per_argnum(call, blocks, single))
    return _with_aux(call, unflatten(call.out_spec, per_output), has_aux)


def _columns(call: Call, plan: Plan, j: int, x: EagerTensor) -> list[list[EagerTensor]]:
    """The outputs' tangents along each element of argument leaf ``j`` (one push each; all
    at once, batched, where vmap replays the push: then one entry, per output the batch)."""

    def push(t: EagerTensor) -> tuple[EagerTensor, ...]:
        given: list[EagerTensor | None] = [None] * len(call.inputs)
        given[j] = t
        return tuple(call.push(plan, given))

    basis = EagerTensor(freeze(np.eye(x.size, dtype=x.dtype).reshape((x.size, *x.shape))), call.rt)
    batched = _over_basis(call, x.size, push, basis)
    if batched is not None:
        return [list(batched)]
    pushed = []
    for k in range(x.size):
        basis = np.zeros(x.size, x.dtype)
        basis[k] = 1
        given: list[EagerTensor | None] = [None] * len(call.inputs)
        given[j] = EagerTensor(basis.reshape(x.shape), call.rt)
        pushed.append(call.push(plan, given))
    return pushed


@_keywords
def hessian(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    chunk_size: int | None = None,
    engine: Engine | None = None,
) -> Callable[..., Any]:
    """The Hessian of scalar-valued ``fun``, as ``jax.hessian``: ``jacfwd(jacrev(fun))``,
    each mapping ``chunk_size`` basis vectors at a time (None: all)."""
    inner = _jacrev(fun, argnums, has_aux, holomorphic, engine, "hessian", chunk_size)
    return _named(_jacfwd(inner, argnums, has_aux, holomorphic, engine, "hessian", chunk_size), "hessian", fun)


def _check_chunk_size(chunk_size: Any, transform: str) -> None:
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1):
        raise ArgumentError(f"{transform}: chunk_size must be a positive int or None, got {shown(chunk_size)}")


@_keywords
def hvp(
    fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], *, engine: Engine | None = None
) -> Any:
    """The Hessian-vector product of scalar-valued ``fun`` at ``primals`` along ``tangents``
    (forward over reverse, JAX's recipe ``jvp(grad(f), primals, tangents)[1]``): shaped like
    ``primals[0]`` for one primal, a tuple with one entry per primal for several."""
    _options("hvp", engine)
    primals, tangents = _sequences(primals, tangents, "hvp")
    value_and_grad_f = _value_and_grad(fun, tuple(range(len(primals))), False, False, engine, "hvp")
    _, tangent_out = _jvp(lambda *xs: value_and_grad_f(*xs)[1], primals, tangents, False, engine, "hvp")
    return tangent_out[0] if len(primals) == 1 else tangent_out


# -- helpers ------------------------------------------------------------------------------
def _sequences(primals: Any, tangents: Any, transform: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise ArgumentError(
            f"{transform}: primals and tangents must be tuples or lists with one entry per argument, got "
            f"{type(primals).__name__} and {type(tangents).__name__} (write {transform}(f, (x,), (v,)))"
        )
    if len(primals) != len(tangents):
        raise ArgumentError(
            f"{transform}: got {len(primals)} primals and {len(tangents)} tangents; give one tangent per primal"
        )
    return tuple(primals), tuple(tangents)


def _check_arity(fun: Callable[..., Any], count: int, transform: str) -> None:
    """ArgumentError where ``fun`` cannot take ``count`` positional arguments (its signature
    says so; a function without one is called as it is): the primals are fun's arguments,
    one each, so a wrong count is the caller's, named here rather than as fun's TypeError."""
    if not callable(fun):
        return  # (the transform's own check names that)
    try:
        inspect.signature(fun).bind(*range(count))
    except TypeError as exc:
        raise ArgumentError(
            f"{transform}: got {count} primals, but fun cannot take {count} positional argument(s) ({exc}); "
            f"give one primal per argument of fun"
        ) from None
    except ValueError:  # (no signature to read: a builtin)
        return


def _tangents(call: Call, tangents: Sequence[Any], transform: str) -> list[EagerTensor]:
    """The tangents, one tree per primal, as one EagerTensor per differentiated leaf."""
    flat: list[EagerTensor] = []
    start = 0
    for n, (tree, spec) in enumerate(zip(tangents, call.in_specs)):
        leaves, given_spec = flatten(tree)
        if given_spec != spec:
            raise ArgumentError(
                f"{transform}: tangent {n} must have the structure of primal {n} ({spec}), got {given_spec}"
            )
        for i, leaf in enumerate(leaves):
            like = call.inputs[start + i]
            flat.append(
                call.tangent(leaf, like, lambda n=n, i=i, tree=tree: where_in(transform, f"tangent {n}", tree, i))
            )
        start += len(leaves)
    return flat


def _columns_block(columns: list[list[EagerTensor]], i: int, x: EagerTensor, out: EagerTensor) -> EagerTensor:
    """Output ``i``'s block of jacfwd for argument leaf ``x``: from one push per element, or
    from the batched push (one entry: the batch axis leading, moved last)."""
    import tenferro.numpy as tnp  # noqa: PLC0415 - the front end, imported on first use

    if len(columns) == 1 and x.size >= LEAST_BATCH:
        return tnp.reshape(tnp.moveaxis(columns[0][i], 0, -1), out.shape + x.shape)
    return _stacked([p[i] for p in columns], x.shape, out.shape, out, False, last=True)


def _block(batched: EagerTensor, shape: tuple[int, ...], conj: bool) -> EagerTensor:
    """A Jacobian block from one batched result (reverse mode: rows leading)."""
    import tenferro.numpy as tnp  # noqa: PLC0415 - the front end, imported on first use

    block = tnp.reshape(batched, shape)
    return tnp.conj(block) if conj and block.dtype.kind == "c" else block


def _stacked(
    pieces: list[EagerTensor], lead: tuple[int, ...], rest: tuple[int, ...], like: EagerTensor, conj: bool, last: bool
) -> EagerTensor:
    """A Jacobian block from one result per element of ``lead`` (each of shape ``rest``):
    of shape lead + rest (reverse mode: one row per output element), or rest + lead with
    ``last`` (forward mode: one column per argument element). ``like`` gives the dtype and
    runtime of an empty block."""
    import tenferro.numpy as tnp  # noqa: PLC0415 - the front end, imported on first use

    shape = rest + lead if last else lead + rest
    if not pieces:
        return EagerTensor(np.zeros(shape, like.dtype), like.runtime)
    block = tnp.reshape(tnp.stack(pieces, axis=-1 if last else 0), shape)
    return tnp.conj(block) if conj and block.dtype.kind == "c" else block


def _real_outputs(call: Call, transform: str, holomorphic: bool) -> None:
    """JAX's output check: real outputs, or complex ones with ``holomorphic=True``."""
    for i, out in enumerate(call.outputs):
        if (out.dtype.kind == "c") != holomorphic or out.dtype.kind not in "fc":
            what = where_in(transform, "the output", unflatten(call.out_spec, call.outputs), i)
            need = "complex outputs with holomorphic=True" if holomorphic else "real (float) outputs"
            hint = "" if holomorphic else ", or holomorphic=True for a holomorphic function"
            raise DTypeError(
                f"{transform}: {what} is {describe(out.shape, out.dtype)}; {transform} requires {need}{hint}"
            )


def _with_aux(call: Call, result: Any, has_aux: bool) -> Any:
    return (result, unflatten(*_settled(call, call.aux))) if has_aux else result


def _named(transformed: Callable[..., Any], transform: str, fun: Callable[..., Any]) -> Callable[..., Any]:
    name = getattr(fun, "__name__", type(fun).__name__)
    transformed.__name__ = transformed.__qualname__ = f"{transform}({name})"
    transformed.__doc__ = f"{transform} of {name}." + (f"\n\n{fun.__doc__}" if getattr(fun, "__doc__", None) else "")
    transformed.__wrapped__ = fun  # type: ignore[attr-defined]
    return transformed
