"""Plugin ``elementwise``: unary math, binary arithmetic and math functions with NumPy
broadcasting, rounding, predicates and logical/bitwise ops, selection (where_select,
clamp, compare) and the broadcasting ops their VJPs use."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import binary, binary_math, broadcasting, complex_parts, logical, rounding, unary


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    for module in (unary, complex_parts, binary, binary_math, rounding, logical, broadcasting):
        for spec in module.SPECS:
            registrar.add(spec)
