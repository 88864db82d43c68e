"""`tenferro tour`: the seed page, run end to end, printing the measured numbers.

The seed page is the eager ``backward`` page of tenferro-rs, the Rust library whose API
tenferro mirrors: it computes one gradient with tenferro-rs, ``torch.autograd`` and
un-jitted ``jax.grad`` and compares their behaviour (see docs/behaviour.md). Its workload is
f(x) = Σ sin(x)·x² with N = 1000, x_i = -2 + 4i/999, v_i = cos(i); the exact gradient is
cos(x)·x² + 2x·sin(x). Each section below mirrors a section of that page, printed the
Python way: calls as they are written, errors as ``raises Type: message``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro import CpuEngine, EagerRuntime, TenferroError, Tensor

N = 1000
XS = -2 + 4 * np.arange(N) / (N - 1)
VS = np.cos(np.arange(N))
EXACT = np.cos(XS) * XS**2 + 2 * XS * np.sin(XS)
EXACT_HVP = (-np.sin(XS) * XS**2 + 4 * XS * np.cos(XS) + 2 * np.sin(XS)) * VS

Out = Callable[[str], None]


def head(values: Any) -> str:
    flat = np.asarray(values).ravel()
    return "[" + ", ".join(f"{v:.6f}" for v in flat[:3]) + ", ...]"


def max_err(a: Any, b: Any) -> str:
    return f"{np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))):.3e}"


def bitwise(a: Any, b: Any) -> str:
    a, b = np.asarray(a), np.asarray(b)
    return f"{int(np.sum(a == b))}/{a.size}"


def outcome(fn: Callable[[], Any]) -> str:
    """``no error``, or ``raises Type: message`` for the tenferro error ``fn`` raised."""
    try:
        fn()
    except TenferroError as exc:
        return f"raises {type(exc).__name__}: {exc}"
    return "no error"


def seed_forward(rt: EagerRuntime, eng: CpuEngine, x: Any) -> tuple[Any, Any]:
    def body(s: Any) -> tuple[Any, Any]:
        sx = s.sin(x)
        x2 = s.mul(x, x)
        p = s.mul(sx, x2)
        return p, s.reduce_sum(p, None)

    return rt.with_eager_session(eng, body)


def run(out: Out = print) -> dict[str, Any]:
    """Run every section, print it through ``out``, and return the gradients computed
    (for ``--compare``)."""
    rt = EagerRuntime()
    eng = CpuEngine.serial()
    x = rt.variable_from(Tensor.from_vec_col_major([N], XS))
    p, loss = seed_forward(rt, eng, x)
    vt = rt.constant_from(Tensor.from_vec_col_major([N], VS))

    out("== 1. the same gradient")
    loss.backward(eng)
    first = x.grad().to_numpy()
    out(f"x.grad() = {head(first)}  max|x.grad() - exact| = {max_err(first, EXACT)}")
    out(f"p.grad() = {p.grad()}  loss.grad() = {loss.grad()}")
    out(f"p.tracks_grad() = {p.tracks_grad()}  loss.tracks_grad() = {loss.tracks_grad()}")

    out("== 2. second backward: no retain_graph")
    out(f"loss.backward(eng) again: {outcome(lambda: loss.backward(eng))}")
    twice = x.grad().to_numpy()
    out(f"x.grad() = {head(twice)}  x.grad() == 2*first bitwise: {np.array_equal(twice, 2 * first)}")
    x.clear_grad()
    seed_forward(rt, eng, x)[1].backward(eng)
    out(f"x.clear_grad(), fresh forward + backward == first bitwise: {np.array_equal(x.grad().to_numpy(), first)}")

    out("== 3. non-scalar output: backward_with")
    x.clear_grad()
    out(f"p.backward(eng): {outcome(lambda: p.backward(eng))}")
    p.backward_with(eng, vt)
    vjp = x.grad().to_numpy()
    out(f"p.backward_with(eng, v): max|x.grad() - v*g_exact| = {max_err(vjp, VS * EXACT)}")
    x.clear_grad()
    p.backward_with(eng, rt.constant_from(Tensor.from_numpy(np.ones(N))))
    out(f"p.backward_with(eng, ones) == loss.backward(eng) bitwise: {np.array_equal(x.grad().to_numpy(), first)}")
    foreign = EagerRuntime().constant_from(Tensor.from_numpy(VS))
    out(f"p.backward_with(eng, v of another runtime): {outcome(lambda: p.backward_with(eng, foreign))}")

    out("== 4. functional grad and hvp: no create_graph")
    x.clear_grad()
    gf = rt.grad(eng, loss, x)
    out(
        f"gf = rt.grad(eng, loss, x); gf == first bitwise: {np.array_equal(np.asarray(gf), first)}  "
        f"x.grad() = {x.grad()}  gf.tracks_grad() = {gf.tracks_grad()}"
    )
    gv = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(gf, vt), None))
    hv = rt.grad(eng, gv, x)
    out(f"hvp = rt.grad(eng, sum(gf*v), x): max|hvp - exact| = {max_err(hv, EXACT_HVP)}")

    out("== 5. grad with respect to an intermediate")
    out(f"rt.grad(eng, loss, p): {outcome(lambda: rt.grad(eng, loss, p))}")

    out("== 6. no_grad")
    with rt.no_grad():
        y = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(x, x), None))
    grads = y.backward(eng)
    out(f"y.tracks_grad() = {y.tracks_grad()}")
    out(f"grads = y.backward(eng): no error, len(grads) == {len(grads)}, x.grad() = {x.grad()}")

    out("== 7. detach")
    z = x.detach(eng)
    rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(z, x), None)).backward(eng)
    out(f"grad of sum(x.detach(eng)*x) == x: bitwise {bitwise(x.grad().to_numpy(), XS)}")

    out("== 8. the recorded program (loss.trace())")
    for line in str(loss.trace()).splitlines():
        out(line)
    return {"grad": first, "vjp": vjp, "hvp": np.asarray(hv)}
