"""Plugin ``contract``: tensor contractions (dot_general, matmul, tensordot, vecdot, outer,
einsum); see docs/contract.md. The rules use ``shape``'s reshape, permute_dims and
expand_dims and ``elementwise``'s mul, sum_to and astype."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import contractions, einsum


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")
    registrar.requires("shape")
    for spec in (*contractions.SPECS, *einsum.SPECS):
        registrar.add(spec)
