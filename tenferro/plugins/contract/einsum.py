"""``einsum(operands, subscripts)``: a variadic op (``s.einsum([a, b, c], "ij,jk,kl->il")``).

Forward: the plan of :mod:`.plans` (NumPy's greedy path, each pair one matrix product).
VJP: the plan's steps in reverse, each step's cotangents einsums themselves (for two
operands ``t = einsum("a,b->t", x, y)``: ``gx = einsum("t,b->a", g, y)``), so any order
of derivative is an einsum too. With two operands that is one einsum per operand; with
more, the pairs share their intermediates instead of each operand's cotangent
contracting all the others again. A repeated label (``ii->i``) gets its cotangent put
back on the diagonal by a product with a constant delta tensor, a summed label
(``ij->i``) by one with a constant of ones; broadcast ellipsis axes are summed back. An
output that repeats a label (``i->ii``, a diagonal embedding) takes the diagonal of its
cotangent first (``ii->i``), an einsum too. Complex operands: each cotangent contracts
``g`` with the conjugate of the other side (``gx = einsum("t,b->a", g, conj(y))``, the
adjoint in the real inner product Re(conj(a)·b)); a real operand's is the real part.
Forward mode is the product rule (einsum is multilinear): the sum over the operands with a
tangent of the einsum with that operand replaced by its tangent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    ErrorInput,
    OpSpec,
    ShapeMismatch,
    batching,
    conj,
    tangent_sum,
    unbroadcast,
)

from .plans import LETTERS, plan, run, shape_of


def einsum_forward(operands: list[Any], subscripts: str) -> Any:
    return run(plan(subscripts, tuple(np.shape(x) for x in operands)), operands)


def _spread(s: Any, g: Any, have: str, term: str, sizes: Mapping[str, int]) -> Any:
    """The cotangent with labels ``term`` (repeats allowed) of a result with labels
    ``have`` (unique, each in ``term``): ``g`` put on the diagonals of repeated labels and
    broadcast along labels it lacks, as one einsum with constants."""
    spare = iter(c for c in LETTERS if c not in sizes)
    groups: dict[str, list[str]] = {}
    out = []
    for c in term:
        label = c if c not in groups else next(spare)
        groups.setdefault(c, []).append(label)
        out.append(label)
    operands, subs = [g], [have]
    for c, group in groups.items():
        n = sizes[c]
        if len(group) > 1:
            delta = np.zeros((n,) * len(group), g.dtype)
            delta[(np.arange(n),) * len(group)] = 1
            operands.append(s.runtime.constant_from(delta))
            subs.append("".join(group))
        elif c not in have:
            operands.append(s.runtime.constant_from(np.ones(n, g.dtype)))
            subs.append(c)
    if len(operands) == 1 and have == "".join(out):
        return g
    return s.einsum(operands, f"{','.join(subs)}->{''.join(out)}")


def einsum_vjp(s: Any, g: Any, inputs: tuple[Any, ...], out: Any, subscripts: str) -> list[Any]:
    p = plan(subscripts, tuple(shape_of(x) for x in inputs))
    needs = [s.needs_grad(x) for x in inputs]
    if p.embed is not None:  # the output was embedded on diagonals: their cotangent is g's diagonal
        g = s.einsum([g], f"{p.embed}->{p.out}")
    # the working list of the forward: (tensor, labels, which inputs it depends on)
    current: list[tuple[Any, str, frozenset[int]]] = []
    for k, (x, prep) in enumerate(zip(inputs, p.preps)):
        y, labels = x, p.terms[k]
        if prep is not None:
            if prep.shape is not None and shape_of(x) != prep.shape:
                y = s.reshape(y, prep.shape)
            if prep.subscripts is not None:
                y = s.einsum([y], prep.subscripts)
            labels = prep.labels
        current.append((y, labels, frozenset([k])))
    wanted = lambda deps: any(needs[k] for k in deps)  # noqa: E731
    tape = []
    for number, step in enumerate(p.steps):
        (x, a, dx), (y, b, dy) = current[step.i], current[step.j]
        current = [c for m, c in enumerate(current) if m not in (step.i, step.j)]
        last = number == len(p.steps) - 1
        t = None if last else s.einsum([x, y], step.subscripts)
        tape.append((step.subscripts, x, dx, y, dy))
        current.append((t, step.subscripts.split("->")[1], dx | dy))
    cotangents: dict[frozenset[int], Any] = {}
    (_, labels, deps) = current[0]
    if p.final is not None:
        have, term = p.out, p.final.split("->")[0]
        cotangents[deps] = _spread(s, g, have, term, p.sizes)
    else:
        cotangents[deps] = g
    for subscripts_, x, dx, y, dy in reversed(tape):
        gt = cotangents.pop(dx | dy)
        (a, b), t = subscripts_.split("->")[0].split(","), subscripts_.split("->")[1]
        if wanted(dx):  # the other operand conjugated (no op when it is real)
            cotangents[dx] = s.einsum([gt, conj(s, y)], f"{t},{b}->{a}")
        if wanted(dy):
            cotangents[dy] = s.einsum([conj(s, x), gt], f"{a},{t}->{b}")
    result: list[Any] = []
    for k, (x, prep) in enumerate(zip(inputs, p.preps)):
        ct = cotangents.get(frozenset([k]))
        if ct is None or not needs[k]:
            result.append(None)
            continue
        if prep is not None:
            if prep.subscripts is not None:
                have, term = prep.subscripts.split("->")[1], prep.subscripts.split("->")[0]
                ct = _spread(s, ct, have, term, p.sizes)
            if prep.shape is not None and shape_of(x) != prep.shape:
                ct = s.reshape(ct, shape_of(x))
        result.append(unbroadcast(s, ct, x))
    return result


def _sample() -> Any:
    from .samples import einsum

    return einsum()


def _complex_sample() -> Any:
    from .samples import mixed_complex

    return mixed_complex("einsum")


def _errors() -> list[ErrorInput]:
    a, b = np.zeros((2, 3)), np.zeros((4, 5))
    return [
        ErrorInput((a, b), {"subscripts": "ij,jk->ik"}, ShapeMismatch, "operands[0] has size 3 in axis 1"),
        ErrorInput((a, b), {"subscripts": "ij->ij"}, ArgumentError, "name 1 operands, but 2 were given"),
        ErrorInput((a,), {"subscripts": "ijk->i"}, ShapeMismatch, "operands[0] has 2 dims"),
        ErrorInput((a,), {"subscripts": "ij->ik"}, ArgumentError, "output label 'k'"),
        ErrorInput((a,), {"subscripts": "i2->i"}, ArgumentError, "subscripts are letters"),
        ErrorInput((np.zeros((2, 3, 4)),), {"subscripts": "...i->i"}, ArgumentError, "no '...'"),
        ErrorInput(
            (np.zeros((2, 3)), np.zeros((4, 3))), {"subscripts": "...i,...i"}, ShapeMismatch, "do not broadcast"
        ),
    ]


def _reference(operands: list[Any], subscripts: str) -> Any:
    """NumPy's einsum; for an output that repeats a label, NumPy's einsum of the output
    without the repeats, copied entry by entry onto the diagonals of a zero array."""
    arrays = [np.asarray(x) for x in operands]
    lhs, _, rhs = subscripts.replace(" ", "").partition("->")
    tokens = rhs.replace("...", ".")
    if len(set(tokens)) == len(tokens):
        return np.einsum(subscripts, *arrays)
    unique = "".join(dict.fromkeys(tokens))
    base = np.einsum(f"{lhs}->{unique.replace('.', '...')}", *arrays)
    dots = base.ndim - len(unique) + ("." in unique)
    axis_of, k = {}, 0
    for c in unique:
        axis_of[c] = list(range(k, k + dots)) if c == "." else [k]
        k += dots if c == "." else 1
    mapping = [m for c in tokens for m in axis_of[c]]  # the base axis of each output axis
    out = np.zeros([base.shape[m] for m in mapping], base.dtype)
    for index in np.ndindex(base.shape):
        out[tuple(index[m] for m in mapping)] = base[index]
    return out


def einsum_jvp(s: Any, tangents: Any, inputs: tuple[Any, ...], out: Any, subscripts: str) -> Any:
    operands = list(inputs)
    terms = [
        s.einsum([*operands[:i], t, *operands[i + 1 :]], subscripts) for i, t in enumerate(tangents) if t is not None
    ]
    return tangent_sum(s, terms, out)


EINSUM = OpSpec(
    name="einsum",
    batch=batching.einsum,
    inputs=("operands",),
    params={"subscripts": REQUIRED},
    forward=einsum_forward,
    vjp=einsum_vjp,
    jvp=einsum_jvp,
    variadic=True,
    multilinear=True,
    residuals=("operands", "out"),  # out: its intermediates are kept while it lives (plans.run)
    accepts="fiuc",
    sample=_sample,
    complex_sample=_complex_sample,
    reference=_reference,
    error_inputs=_errors,
    doc="Einstein summation over a list of tensors, as NumPy's einsum (explicit or implicit output, "
    "'...', repeated labels such as 'ii->i'), contracted pairwise in the order of NumPy's greedy path; "
    "an output that repeats a label ('i->ii', not NumPy's) is a diagonal embedding, zeros elsewhere.",
)

SPECS = [EINSUM]
