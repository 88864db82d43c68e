"""`tenferro tour`: the seed page, run end to end, printing the measured numbers.

f(x) = Σ sin(x)·x² with N = 1000, x_i = -2 + 4i/999, v_i = cos(i); the exact gradient is
cos(x)·x² + 2x·sin(x). Each section mirrors a section of the seed page.
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


def error_line(fn: Callable[[], Any]) -> str:
    """``Ok`` or ``Err(message)`` plus the error type, like the seed's listing."""
    try:
        fn()
    except TenferroError as exc:
        return f"Err({exc})\n  {type(exc).__name__}"
    return "Ok"


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
    out(f"x.grad = {head(first)}  max|x.grad - exact| = {max_err(first, EXACT)}")
    out(f"p.grad = {p.grad()}  loss.grad = {loss.grad()}")
    out(f"p.tracks_grad = {p.tracks_grad()}  loss.tracks_grad = {loss.tracks_grad()}")

    out("== 2. second backward: no retain_graph")
    out(f"second backward: {error_line(lambda: loss.backward(eng))}")
    twice = x.grad().to_numpy()
    out(f"x.grad = {head(twice)}  x.grad == 2*first bitwise: {np.array_equal(twice, 2 * first)}")
    x.clear_grad()
    seed_forward(rt, eng, x)[1].backward(eng)
    out(f"clear_grad, fresh forward + backward == first bitwise: {np.array_equal(x.grad().to_numpy(), first)}")

    out("== 3. non-scalar output: backward_with")
    x.clear_grad()
    out(f"p.backward(): {error_line(lambda: p.backward(eng))}")
    p.backward_with(eng, vt)
    vjp = x.grad().to_numpy()
    out(f"p.backward_with(v): max|x.grad - v*g_exact| = {max_err(vjp, VS * EXACT)}")
    x.clear_grad()
    p.backward_with(eng, rt.constant_from(Tensor.from_numpy(np.ones(N))))
    out(f"backward_with(ones) == backward bitwise: {np.array_equal(x.grad().to_numpy(), first)}")
    foreign = EagerRuntime().constant_from(Tensor.from_numpy(VS))
    out(f"cotangent of another runtime: {error_line(lambda: p.backward_with(eng, foreign))}")

    out("== 4. functional grad and hvp: no create_graph")
    x.clear_grad()
    gf = rt.grad(eng, loss, x)
    out(
        f"rt.grad == first bitwise: {np.array_equal(np.asarray(gf), first)}  x.grad slot = {x.grad()}  "
        f"gf.tracks_grad = {gf.tracks_grad()}"
    )
    gv = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(gf, vt), None))
    hv = rt.grad(eng, gv, x)
    out(f"hvp = grad(<grad, v>): max|hvp - exact| = {max_err(hv, EXACT_HVP)}")

    out("== 5. grad with respect to an intermediate")
    out(f"rt.grad(loss, p): {error_line(lambda: rt.grad(eng, loss, p))}")

    out("== 6. no_grad")
    with rt.no_grad():
        y = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(x, x), None))
    grads = y.backward(eng)
    out(f"y.tracks_grad = {y.tracks_grad()}")
    out(f"y.backward(): Ok, Gradients.len() = {len(grads)}, x.grad = {x.grad()}")

    out("== 7. detach")
    z = x.detach(eng)
    rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(z, x), None)).backward(eng)
    out(f"grad of sum(detach(x)*x) == x: bitwise {bitwise(x.grad().to_numpy(), XS)}")

    out("== 8. the recorded program (loss.trace())")
    for line in str(loss.trace()).splitlines():
        out(line)
    return {"grad": first, "vjp": vjp, "hvp": np.asarray(hv)}
