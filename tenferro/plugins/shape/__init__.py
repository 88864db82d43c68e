"""Plugin ``shape``: ops that rearrange elements without arithmetic.

Views (a read-only view of the input, no copy, nothing kept in the trace): reshape,
permute_dims, transpose, expand_dims, squeeze, moveaxis, flip, diagonal and static
slicing (``slice``). Copies: roll, repeat, tile, pad, tril, triu. Internal adjoints used by
the rules: slice_scatter, diagonal_scatter, unrepeat, untile. The rules use
only this family's ops, so it requires no other plugin. Every op is linear (pad affine), so
derivatives of any order are exact. broadcast_to lives in ``elementwise``.
"""

from tenferro.extend import PluginRegistrar, hookimpl

from . import copies, slicing, views


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    for spec in (*views.SPECS, *slicing.SPECS, *copies.SPECS):
        registrar.add(spec)
