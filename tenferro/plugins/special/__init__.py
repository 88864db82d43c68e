"""Plugin ``special``: scipy.special's functions as elementwise ops with derivatives (the
gamma family, error functions and the normal distribution's, logarithmic products, Bessel
functions, the incomplete gamma and beta functions and stdtr), their kernels scipy.special's
own ufuncs. ``erf`` and ``sigmoid`` (scipy's ``expit``) live in ``elementwise``,
``logsumexp`` in ``reduce`` and the softmax family in ``nn``. See docs/special.md.
"""

from tenferro.extend import PluginRegistrar, hookimpl

from . import bessel, gamma, incomplete, logarithms, normal


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # mul, add, sub, exp, log, square, sign, where_select, compare, ...
    for module in (gamma, normal, logarithms, bessel, incomplete):
        for spec in module.SPECS:
            registrar.add(spec)
