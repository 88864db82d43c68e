"""Plugin ``nn``: neural-network ops. Activations (relu, gelu, silu, softplus), the softmax
family over an axis (softmax, log_softmax, masked_softmax) and normalisations (layer_norm,
rms_norm). ``sigmoid`` lives in ``elementwise`` and ``logsumexp`` in ``reduce``.

Conventions follow PyTorch: relu'(0) = 0, gelu's exact (erf) and ``approximate="tanh"``
forms, softplus's ``beta`` and ``threshold``. A softmax slice that is all -inf (or fully
masked) gives zeros and a zero gradient, as tenferro-rs does; log_softmax gives -inf there
and passes the cotangent through unchanged (PyTorch gives nan for both).
"""

from tenferro.extend import PluginRegistrar, hookimpl

from . import activations, norms, softmax


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # mul, sub, exp, erf, sigmoid, rsqrt, where_select, compare, ...
    registrar.requires("reduce")  # reduce_sum and reduce_mean in the softmax and norm rules
    for spec in (*activations.SPECS, *softmax.SPECS, *norms.SPECS):
        registrar.add(spec)
