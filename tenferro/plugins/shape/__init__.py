"""Plugin ``shape``: ops that rearrange elements without arithmetic.

Views (a read-only view of the input, no copy, nothing kept in the trace): reshape,
permute_dims, transpose, expand_dims, squeeze, moveaxis, flip, diagonal and static
slicing (``slice``). Copies: roll, repeat, tile, pad, tril, triu, and the joins of a list
of tensors, concat (= concatenate) and stack. Internal adjoints used by the rules:
slice_scatter, diagonal_scatter, unrepeat, untile. The rules use this family's ops, and
the joins' rules cast mixed dtypes back with elementwise's astype. Every op is linear (pad
affine), so derivatives of any order are exact. broadcast_to lives in ``elementwise``.
Every op takes complex tensors: its coefficients are 0 and 1, so its VJP (the transpose)
is the same on complex cotangents; a real input joined with a complex one gets a real one.
"""

from tenferro.extend import PluginRegistrar, hookimpl

from . import copies, joins, slicing, views


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # astype, through unbroadcast in the joins' rules
    for spec in (*views.SPECS, *slicing.SPECS, *copies.SPECS, *joins.SPECS):
        registrar.add(spec)
