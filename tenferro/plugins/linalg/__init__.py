"""Plugin ``linalg``: linear algebra with derivatives, batched over leading axes as NumPy
is. Solves and inverses in :mod:`.solves`; decompositions and norms in
:mod:`.decompositions`; what they share in :mod:`.batching`."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import decompositions, solves


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    # the VJPs: contract's matmul, elementwise's mul/add/..., reduce_sum, shape's moveaxis/tril/...
    registrar.requires("contract", "elementwise", "reduce", "shape")
    for spec in (*solves.SPECS, *decompositions.SPECS):
        registrar.add(spec)
