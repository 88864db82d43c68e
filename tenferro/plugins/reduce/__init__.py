"""Plugin ``reduce``: reductions over axes (sum, prod, max, min, mean, logsumexp, var, std;
each with ``keepdims``), cumulative sums and products, the constant reductions (argmax,
argmin, any, all, count_nonzero) and the ops their VJPs use (expand_to, prod_except,
prod_except_vjp, and the scans' internals)."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import axes, counting, product, reductions, scans, statistics


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # the VJPs use mul, div, sub, exp, compare, where_select
    for spec in (*reductions.SPECS, *product.SPECS, *statistics.SPECS, *scans.SPECS, *counting.SPECS, axes.EXPAND_TO):
        registrar.add(spec)
