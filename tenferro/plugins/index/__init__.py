"""Plugin ``index``: reading by index (take, take_along_axis, gather, boolean_mask,
dynamic_slice, argwhere, nonzero), the functional scatter (set, add, mul, min, max), sort and argsort,
and the adjoint ops their VJPs use (scatter_add_to, dynamic_pad, scatter_winners, filled).

The index layouts, negative indices and range errors are in :mod:`.positions`; the
conventions in docs/index.md. Values may be complex (indices stay integers), except where
an op compares them: scatter's min/max modes, sort and argsort (complex numbers have no
order); docs/complex.md.
"""

from tenferro.extend import PluginRegistrar, hookimpl

from . import gathers, scatter, sorting


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # scatter's rules: compare, where_select, mul, div, astype; unbroadcast
    for spec in (*gathers.SPECS, *scatter.SPECS, *sorting.SPECS):
        registrar.add(spec)
