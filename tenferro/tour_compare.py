"""`tenferro tour --compare`: the seed page's PyTorch and JAX columns, side by side with
tenferro's numbers. Both libraries are optional; a missing one is reported, not required.

The numbers were checked with the versions below. On Linux, PyPI's torch wheel bundles CUDA
(gigabytes); the CPU build comes from PyTorch's own index, as TORCH_INSTALL says."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .tour import EXACT, EXACT_HVP, VS, XS, Out, bitwise, expected_error, head, max_err

#: The versions the comparison was run with, and how to install them.
TORCH_VERSION, JAX_VERSION = "2.13.0", "0.10.2"
TORCH_INSTALL = f"pip install torch=={TORCH_VERSION} --index-url https://download.pytorch.org/whl/cpu"
JAX_INSTALL = f'pip install "jax[cpu]=={JAX_VERSION}"'


def _attempt(fn: Callable[[], Any]) -> str:
    """``no error``, or ``expected error: Type: message`` (its first line, shortened) for
    the error the seed page shows the library raising."""
    try:
        fn()
    except Exception as exc:
        text = expected_error(exc).splitlines()[0]
        return text if len(text) <= 117 else text[:114] + "..."
    return "no error"


def torch_section(ours: dict[str, np.ndarray], out: Out) -> None:
    try:
        import torch
    except ImportError:
        out(f"# PyTorch: not installed (to compare, the CPU build: {TORCH_INSTALL})")
        return
    torch.set_num_threads(1)
    out(f"# PyTorch {torch.__version__} (CPU, 1 thread)")
    x = torch.tensor(XS, requires_grad=True)
    p = torch.sin(x) * x**2
    loss = p.sum()
    loss.backward()
    g = x.grad.numpy().copy()
    out(f"x.grad = {head(g)}  max|x.grad - exact| = {max_err(g, EXACT)}")
    out(f"max|torch - tenferro| = {max_err(g, ours['grad'])}, bitwise equal {bitwise(g, ours['grad'])}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p_grad = p.grad
    warning = f"  warning: {caught[0].category.__name__}: {str(caught[0].message)[:60]}..." if caught else ""
    out(f"p.grad = {p_grad}{warning}")
    out(f"loss.backward() again: {_attempt(loss.backward)}")
    out(f"p.backward(): {_attempt(p.backward)}")
    x.grad = None
    torch.sin(x).mul(x**2).backward(gradient=torch.tensor(VS))
    out(
        f"p.backward(gradient=v): max|x.grad - v*g_exact| = {max_err(x.grad.numpy(), VS * EXACT)}, "
        f"bitwise vs tenferro {bitwise(x.grad.numpy(), ours['vjp'])}"
    )
    x.grad = None
    (gf,) = torch.autograd.grad((torch.sin(x) * x**2).sum(), x)
    out(f"grad of autograd.grad: {_attempt(lambda: torch.autograd.grad(gf @ torch.tensor(VS), x))}")
    (gf,) = torch.autograd.grad((torch.sin(x) * x**2).sum(), x, create_graph=True)
    (hv,) = torch.autograd.grad(gf @ torch.tensor(VS), x)
    out(
        f"create_graph=True: hvp max|hvp - exact| = {max_err(hv.detach().numpy(), EXACT_HVP)}, "
        f"bitwise vs tenferro {bitwise(hv.detach().numpy(), ours['hvp'])}"
    )
    with torch.no_grad():
        y = (x * x).sum()
    out(f"no_grad then y.backward(): {_attempt(y.backward)}")


def jax_section(ours: dict[str, np.ndarray], out: Out) -> None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        out(f"# JAX: not installed (to compare: {JAX_INSTALL})")
        return
    jax.config.update("jax_enable_x64", True)
    out(f"# JAX {jax.__version__} (CPU, x64, no jit)")
    xj = jnp.asarray(XS)

    def f(x: Any) -> Any:
        return jnp.sum(jnp.sin(x) * x**2)

    with jax.disable_jit():
        g = np.asarray(jax.grad(f)(xj))
        _, pullback = jax.vjp(lambda x: jnp.sin(x) * x**2, xj)
        (vj,) = pullback(jnp.asarray(VS))
        hv = np.asarray(jax.grad(lambda x: jnp.vdot(jax.grad(f)(x), jnp.asarray(VS)))(xj))
    out(f"grad (no jit): max|.-exact| = {max_err(g, EXACT)}")
    out(f"no jit vs tenferro eager: max diff {max_err(g, ours['grad'])}, bitwise equal {bitwise(g, ours['grad'])}")
    out(f"jax.vjp with v: max|. - v*g_exact| = {max_err(vj, VS * EXACT)}")
    out(
        f"hvp = grad(vdot(grad f, v)): max|. - exact| = {max_err(hv, EXACT_HVP)}, "
        f"bitwise vs tenferro {bitwise(hv, ours['hvp'])}"
    )


def run(ours: dict[str, np.ndarray], out: Out = print) -> None:
    versions = f"checked with torch {TORCH_VERSION} CPU and jax[cpu] {JAX_VERSION}"
    out(f"== compare ({versions}; other versions may differ in the last bits)")
    torch_section(ours, out)
    jax_section(ours, out)
