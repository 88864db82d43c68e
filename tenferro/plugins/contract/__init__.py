"""Plugin ``contract``: tensor contractions (dot_general, matmul, tensordot, vecdot, outer,
einsum). Built in issue 10; see docs/contract.md once written."""

from tenferro.extend import PluginRegistrar, hookimpl

from . import contractions


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    for spec in contractions.SPECS:
        registrar.add(spec)
