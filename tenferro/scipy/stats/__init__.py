"""``tenferro.scipy.stats``: scipy.stats's distributions with scipy's names and signatures,
differentiable, as ``jax.scipy.stats`` and ``autograd.scipy.stats`` offer them. Each
distribution is a module of its functions (``from tenferro.scipy.stats import norm``,
``norm.logpdf(x, loc, scale)``; ``import tenferro.scipy.stats.norm`` works too), made by
one factory from a table of standard-form formulas (``_univariate.py``), so every order
of derivative exists in x and the parameters; see docs/stats.md.
"""

from __future__ import annotations

from ._family import module, univariate
from ._multivariate import dirichlet_logpdf, dirichlet_pdf, mvn_logpdf, mvn_pdf
from ._univariate import DISTRIBUTIONS

_PARENT = __name__
_MODULES = {dist.name: univariate(dist) for dist in DISTRIBUTIONS}
_MODULES["multivariate_normal"] = module(
    "multivariate_normal",
    "The multivariate normal distribution N(mean, cov).",
    {"logpdf": mvn_logpdf, "pdf": mvn_pdf},
    _PARENT,
)
_MODULES["dirichlet"] = module(
    "dirichlet", "The Dirichlet distribution.", {"logpdf": dirichlet_logpdf, "pdf": dirichlet_pdf}, _PARENT
)
for _name, _module in _MODULES.items():
    for _function in vars(_module).values():
        if callable(_function) and getattr(_function, "__module__", "").startswith(__name__ + "._"):
            _function.__module__ = _module.__name__
globals().update(_MODULES)

__all__ = sorted(_MODULES)
