import os
import sys
import textwrap

import numpy as np
import pytest

from tenferro import CpuEngine, EagerRuntime, Tensor
from tenferro.testing.profiles import PROFILE_ENV, load_default_profile

load_default_profile()

pytest_plugins = ["pytester"]

# A pytester run in this process (the tests of the conformance suite itself) drops the
# modules it imported when it ends; dask imported inside one (its dask_engine check) and
# again afterwards would leave two generations of dask's global state in the process, which
# a later LocalCluster can wait on forever when it closes. Imported once here, dask stays.
try:
    import dask.array  # noqa: F401
    import distributed  # noqa: F401
except ImportError:  # no dask extra: the dask tests and checks skip
    pass

try:
    import torch
except ImportError:  # the comparisons with PyTorch skip (a clean CI has none); the rest runs
    torch = None
#: Marks a test that compares with PyTorch: ``from conftest import needs_torch, torch``.
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def fd_gradient(f, x, h=1e-6):
    """∂f/∂Re x + i·∂f/∂Im x of a real function f of one array, by central differences: the
    gradient in tenferro's (PyTorch's) convention, real for a real x."""
    x = np.asarray(x)
    grad = np.zeros(x.shape, x.dtype)
    for index in np.ndindex(x.shape):
        for unit in (1.0, 1j) if x.dtype.kind == "c" else (1.0,):
            step = np.zeros(x.shape, x.dtype)
            step[index] = h * unit
            grad[index] += unit * (f(x + step) - f(x - step)) / (2 * h)
    return grad


N = 1000


@pytest.fixture(autouse=True)
def keep_the_hypothesis_profile():
    """An in-process pytester run with --tenferro-profile sets that profile's environment
    variable and loads it; put both back, so the rest of the session keeps its own."""
    before = os.environ.get(PROFILE_ENV)
    yield
    if os.environ.get(PROFILE_ENV) != before:
        if before is None:
            del os.environ[PROFILE_ENV]
        else:
            os.environ[PROFILE_ENV] = before
        load_default_profile()


@pytest.fixture
def rt():
    """A runtime with a default engine, so the engine argument can be left out."""
    return EagerRuntime(engine=CpuEngine.serial())


@pytest.fixture
def eng():
    return CpuEngine.serial()


@pytest.fixture
def seed_xs():
    """The seed page's x: -2 + 4 i / (N - 1)."""
    return -2 + 4 * np.arange(N) / (N - 1)


@pytest.fixture
def seed_vs():
    """The seed page's v: cos(i)."""
    return np.cos(np.arange(N))


@pytest.fixture
def install(tmp_path, monkeypatch):
    """``install(dist, {entry point: module}, {module: source})``: a distribution whose
    entry points importlib.metadata (and so pluggy) finds; its modules are forgotten after.
    It returns the directory it is installed in."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delenv("TENFERRO_BLOCK_PLUGINS", raising=False)
    before = set(sys.modules)

    def install(dist, entry_points, modules):
        info = site / f"{dist.replace('-', '_')}-1.0.dist-info"  # the folder name is normalised
        info.mkdir()
        info.joinpath("METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
        info.joinpath("entry_points.txt").write_text(f"[tenferro]\n{lines}")
        for module, source in modules.items():
            site.joinpath(f"{module}.py").write_text(textwrap.dedent(source))
        return site

    yield install
    for module in set(sys.modules) - before:
        del sys.modules[module]


def plugin_of(name, *specs):
    """A plugin object named ``name`` that registers ``specs``."""
    from tenferro.extend import hookimpl

    class Plugin:
        @hookimpl
        def tenferro_register_ops(self, registrar):
            for spec in specs:
                registrar.add(spec)

    Plugin.__name__ = name
    return Plugin()


#: The checks every op gets that is differentiable, declares its residuals, and has no
#: kinks, linearity or forward-mode rule (those add their own checks).
PLAIN_OP_CHECKS = {
    "forward",
    "float32",
    "engine_neutral",
    "dask_engine",
    "vjp_fd",
    "vjp2_fd",
    "jvp_fd",
    "vjp_shapes",
    "zero_cotangent",
    "residuals",
    "no_mutation",
    "no_alias",
    "deterministic",
    "jit",
    "error_inputs",
}


def third_party_plugins():
    """Names of installed ``tenferro`` entry points that tenferro does not ship (e.g. the
    example plugin, when a developer installed it): tests about the built-in set block them."""
    import importlib.metadata

    return [ep.name for ep in importlib.metadata.entry_points(group="tenferro") if ep.dist.name != "tenferro"]


def with_dependents(*names):
    """``names`` and every installed plugin that requires one of them, directly or not (the
    plugins a test must block along with them to block them cleanly), then the
    third-party ones."""
    from tenferro.core.loading import load_registry

    plugins = load_registry().plugins
    blocked = set(names)
    grown = True
    while grown:
        grown = False
        for name, info in plugins.items():
            if name not in blocked and blocked.intersection(info.requires):
                blocked.add(name)
                grown = True
    return sorted(blocked) + [name for name in third_party_plugins() if name not in blocked]


def exact_grad(xs):
    return np.cos(xs) * xs**2 + 2 * xs * np.sin(xs)


def exact_hvp(xs, vs):
    return (-np.sin(xs) * xs**2 + 4 * xs * np.cos(xs) + 2 * np.sin(xs)) * vs


def seed_program(rt, eng, xs):
    """The seed workload: returns x, p = sin(x) x^2, loss = sum(p)."""
    x = rt.variable_from(Tensor.from_vec_col_major([len(xs)], xs))

    def body(s):
        sx = s.sin(x)
        x2 = s.mul(x, x)
        p = s.mul(sx, x2)
        return p, s.reduce_sum(p, None)

    p, loss = rt.with_eager_session(eng, body)
    return x, p, loss


def run_docs_example(section, document="numpy.md"):
    """Run the first python block after the heading ``section`` of docs/``document``;
    returns the names it defined (each front-end doc section's example has a test)."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parent.parent / "docs" / document).read_text(encoding="utf-8")
    block = re.search(r"^```python\n(.*?)^```", text[text.index(section) :], re.S | re.M).group(1)
    scope = {}
    exec(compile(block, f"docs/{document}, {section}", "exec"), scope)
    return scope
