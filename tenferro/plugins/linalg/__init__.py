"""Plugin ``linalg``: linear algebra with derivatives, batched over leading axes as NumPy
is. Solves and inverses in :mod:`.solves`; decompositions and norms in
:mod:`.decompositions`."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import decompositions, solves


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise", "reduce", "shape")  # the VJPs: mul/add/..., reduce_sum, moveaxis/tril/...
    for spec in (*solves.SPECS, *decompositions.SPECS):
        registrar.add(spec)
