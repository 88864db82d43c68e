"""`tenferro tour`: the front end first, then the seed page, run end to end, printing the
measured numbers.

Part one is the README's one-screen API (``tf.variable``, ``tenferro.numpy`` and
``backward``, the functional ``rt.grad``, NumPy's own functions) and the function
transforms (``tf.grad``, ``tf.hessian``). Part two is the seed page, the eager
``backward`` page of tenferro-rs, the Rust library whose API tenferro mirrors: it computes
one gradient with tenferro-rs, ``torch.autograd`` and un-jitted ``jax.grad`` and compares
their behaviour (see docs/behaviour.md), with the session API (``EagerRuntime``,
``CpuEngine``, ops as methods of a session). Both use the seed's workload, f(x) =
Σ sin(x)·x² with N = 1000, x_i = -2 + 4i/999, v_i = cos(i); the exact gradient is
cos(x)·x² + 2x·sin(x). Calls print as they are written; an error the tour provokes on
purpose prints as ``expected error: Type: message``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import CpuEngine, EagerRuntime, TenferroError, Tensor

N = 1000
XS = -2 + 4 * np.arange(N) / (N - 1)
VS = np.cos(np.arange(N))
EXACT = np.cos(XS) * XS**2 + 2 * XS * np.sin(XS)
#: f'' at x, the diagonal of f's Hessian (f is a sum of functions of one x_i each).
SECOND = -np.sin(XS) * XS**2 + 4 * XS * np.cos(XS) + 2 * np.sin(XS)
EXACT_HVP = SECOND * VS

Out = Callable[[str], None]


def head(values: Any) -> str:
    flat = np.asarray(values).ravel()
    return "[" + ", ".join(f"{v:.6f}" for v in flat[:3]) + ", ...]"


def max_err(a: Any, b: Any) -> str:
    return f"{np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))):.3e}"


def bitwise(a: Any, b: Any) -> str:
    a, b = np.asarray(a), np.asarray(b)
    return f"{int(np.sum(a == b))}/{a.size}"


def expected_error(exc: BaseException, names: dict[str, str] | None = None) -> str:
    """``expected error: Type: message``; ``names`` replaces the objects' reprs a message
    shows (``<EagerRuntime 0x7f...>``) by the names the tour gave them."""
    message = str(exc)
    for shown, name in (names or {}).items():
        message = message.replace(shown, name)
    return f"expected error: {type(exc).__name__}: {message}"


def outcome(fn: Callable[[], Any], names: dict[str, str] | None = None) -> str:
    """``no error``, or ``expected error: Type: message`` for the tenferro error ``fn`` raised."""
    try:
        fn()
    except TenferroError as exc:
        return expected_error(exc, names)
    return "no error"


def f(x: Any) -> Any:
    """The seed's function, written with tenferro.numpy."""
    return tnp.sum(tnp.sin(x) * x**2)


def front_end(out: Out) -> None:
    """The README's one-screen API on the seed workload."""
    out("== 1. the front end: NumPy code, recorded as it runs")
    x = tf.variable(XS)
    p = tnp.sin(x) * x**2
    loss = p.sum()
    out("x = tf.variable(xs); p = tnp.sin(x) * x**2; loss = p.sum()")
    out(f"p = {head(p)}  (computed at once, and recorded: p.tracks_grad() = {p.tracks_grad()})")
    grads = loss.backward()
    out(f"loss.backward(): x.grad() = {head(x.grad())}  max|x.grad() - exact| = {max_err(x.grad(), EXACT)}")
    out(f"len(grads) = {len(grads)}  p.grad() = {p.grad()}  (only variables have a gradient slot)")
    step = x - 0.1 * x.grad()
    out(f"x - 0.1 * x.grad(): an {type(step).__name__}, max|. - (xs - 0.1*exact)| = {max_err(step, XS - 0.1 * EXACT)}")
    rt = tf.default_runtime()
    gf = rt.grad(loss, x)
    out(f"gf = rt.grad(loss, x): gf == x.grad() bitwise: {np.array_equal(np.asarray(gf), np.asarray(x.grad()))}")
    hv = rt.grad(tnp.sum(gf * VS), x)
    out(f"rt.grad(tnp.sum(gf * v), x), a Hessian-vector product: max|hvp - exact| = {max_err(hv, EXACT_HVP)}")
    y = np.sin(x) * np.sum(x)
    out(f"y = np.sin(x) * np.sum(x): y.tracks_grad() = {y.tracks_grad()}  (NumPy's own functions record too)")
    x0 = np.asarray(x)
    out(f"np.asarray(x): {type(x0).__name__}, writeable {x0.flags.writeable}  (the exit: no gradient past it)")

    out("== 2. function transforms, as JAX names them")
    g = tf.grad(f)(XS)
    out(f"tf.grad(f)(xs): max|. - exact| = {max_err(g, EXACT)}")
    hessian = np.asarray(tf.hessian(f)(XS[:5]))
    off_diagonal = hessian[~np.eye(5, dtype=bool)]
    out(
        f"tf.hessian(f)(xs[:5]): shape {hessian.shape}, max|diagonal - f''| = {max_err(np.diag(hessian), SECOND[:5])}, "
        f"off the diagonal {int(np.count_nonzero(off_diagonal))} nonzeros"
    )
    out(f"tf.grad(tf.grad(lambda x: x**3))(2.0) = {float(tf.grad(tf.grad(lambda x: x**3))(2.0))}  (transforms nest)")
    per_example = tf.vmap(tf.grad(lambda xi: tnp.sin(xi) * xi * xi))(XS)
    out(f"tf.vmap(tf.grad(lambda xi: sin(xi)*xi**2))(xs), per element: max|. - exact| = {max_err(per_example, EXACT)}")
    jitted = tf.jit(tf.grad(f))
    replays = [np.asarray(jitted(XS)) for _ in range(3)]
    info = jitted.cache_info()
    out(
        f"tf.jit(tf.grad(f)), called 3 times: {info.misses} trace, {info.hits} replays of its plan, each == "
        f"tf.grad(f)(xs) bitwise: {all(np.array_equal(r, np.asarray(g)) for r in replays)}"
    )
    lost = outcome(lambda: tf.grad(lambda x: float(tnp.sum(x)))(XS))
    out(f"tf.grad(lambda x: float(tnp.sum(x)))(xs): {lost}")


def seed_forward(rt: EagerRuntime, eng: CpuEngine, x: Any) -> tuple[Any, Any]:
    def body(s: Any) -> tuple[Any, Any]:
        sx = s.sin(x)
        x2 = s.mul(x, x)
        p = s.mul(sx, x2)
        return p, s.reduce_sum(p, None)

    return rt.with_eager_session(eng, body)


def seed_page(out: Out) -> dict[str, Any]:
    """The seed page's sections with its session API; returns the gradients computed (for
    ``--compare``)."""
    rt = EagerRuntime()
    eng = CpuEngine.serial()
    x = rt.variable_from(Tensor.from_vec_col_major([N], XS))
    p, loss = seed_forward(rt, eng, x)
    vt = rt.constant_from(Tensor.from_vec_col_major([N], VS))
    out("# the seed page, with its session API: rt = EagerRuntime(), eng = CpuEngine.serial(), ops are s.<op>")

    out("== 3. the same gradient")
    loss.backward(eng)
    first = x.grad().to_numpy()
    out(f"x.grad() = {head(first)}  max|x.grad() - exact| = {max_err(first, EXACT)}")
    out(f"p.grad() = {p.grad()}  loss.grad() = {loss.grad()}")
    out(f"p.tracks_grad() = {p.tracks_grad()}  loss.tracks_grad() = {loss.tracks_grad()}")

    out("== 4. second backward: no retain_graph")
    out(f"loss.backward(eng) again: {outcome(lambda: loss.backward(eng))}")
    twice = x.grad().to_numpy()
    out(f"x.grad() = {head(twice)}  x.grad() == 2*first bitwise: {np.array_equal(twice, 2 * first)}")
    x.clear_grad()
    seed_forward(rt, eng, x)[1].backward(eng)
    out(f"x.clear_grad(), fresh forward + backward == first bitwise: {np.array_equal(x.grad().to_numpy(), first)}")

    out("== 5. non-scalar output: backward_with")
    x.clear_grad()
    out(f"p.backward(eng): {outcome(lambda: p.backward(eng))}")
    p.backward_with(eng, vt)
    vjp = x.grad().to_numpy()
    out(f"p.backward_with(eng, v): max|x.grad() - v*g_exact| = {max_err(vjp, VS * EXACT)}")
    x.clear_grad()
    p.backward_with(eng, rt.constant_from(Tensor.from_numpy(np.ones(N))))
    out(f"p.backward_with(eng, ones) == loss.backward(eng) bitwise: {np.array_equal(x.grad().to_numpy(), first)}")
    other_rt = EagerRuntime()
    foreign = other_rt.constant_from(Tensor.from_numpy(VS))
    names = {repr(rt): "rt", repr(other_rt): "other_rt"}
    out(f"p.backward_with(eng, v of other_rt): {outcome(lambda: p.backward_with(eng, foreign), names)}")

    out("== 6. functional grad and hvp: no create_graph")
    x.clear_grad()
    gf = rt.grad(eng, loss, x)
    out(
        f"gf = rt.grad(eng, loss, x); gf == first bitwise: {np.array_equal(np.asarray(gf), first)}  "
        f"x.grad() = {x.grad()}  gf.tracks_grad() = {gf.tracks_grad()}"
    )
    gv = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(gf, vt), None))
    hv = rt.grad(eng, gv, x)
    out(f"hvp = rt.grad(eng, sum(gf*v), x): max|hvp - exact| = {max_err(hv, EXACT_HVP)}")

    out("== 7. grad with respect to an intermediate")
    out(f"rt.grad(eng, loss, p): {outcome(lambda: rt.grad(eng, loss, p))}")

    out("== 8. no_grad")
    with rt.no_grad():
        y = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(x, x), None))
    out(f"y.tracks_grad() = {y.tracks_grad()}")
    grads = y.backward(eng)
    out(f"grads = y.backward(eng): no error, len(grads) == {len(grads)}, x.grad() = {x.grad()}")

    out("== 9. detach")
    z = x.detach(eng)
    rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(z, x), None)).backward(eng)
    out(f"grad of sum(x.detach(eng)*x) == x: bitwise {bitwise(x.grad().to_numpy(), XS)}")

    out("== 10. the recorded program (loss.trace())")
    for line in str(loss.trace()).splitlines():
        out(line)
    return {"grad": first, "vjp": vjp, "hvp": np.asarray(hv)}


def run(out: Out = print) -> dict[str, Any]:
    """Run every section, print it through ``out``, and return the seed page's gradients
    (for ``--compare``)."""
    front_end(out)
    return seed_page(out)
