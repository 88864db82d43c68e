"""Plugin ``reduce``: reductions over axes (sum, prod, max, min, mean, logsumexp) and the
ops their VJPs use (expand_to, prod_except, prod_except_vjp)."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import axes, product, reductions


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # the VJPs use mul, div, sub, exp, compare, where_select
    for spec in (*reductions.SPECS, *product.SPECS, axes.EXPAND_TO):
        registrar.add(spec)
