"""Plugin ``linalg``: linear algebra with derivatives, batched over leading axes as NumPy
is. Solves and inverses in :mod:`.solves`; decompositions and norms in
:mod:`.decompositions`."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import decompositions, solves


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    for spec in (*solves.SPECS, *decompositions.SPECS):
        registrar.add(spec)
