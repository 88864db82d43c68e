"""``tf.optimizers``: gradient-descent optimizers over pytrees of float arrays (NumPy
arrays, tenferro arrays, Python floats), in two forms.

- The functional form, optax's: ``opt = tf.optimizers.adam(step_size=1e-3)``,
  ``state = opt.init(params)``, then each step ``updates, state = opt.update(grads, state,
  params)`` and ``params = tf.optimizers.apply_updates(params, updates)``. ``sgd`` (with
  momentum, Nesterov's optional), ``rmsprop``, ``adam``, ``adamw``, with PyTorch's formulas
  (``torch.optim``'s numbers to rounding).
- The driver form, HIPS autograd's ``autograd.misc.optimizers``: ``tf.optimizers.drivers.adam(grad,
  x0, callback=None, num_iters=100, step_size=0.001, ...)`` (``sgd``, ``rmsprop``, ``adam``)
  with autograd's signatures, defaults and numbers.

A step records nothing: parameters, updates and state come back as constants.
docs/optimizers.md states each formula and where PyTorch's and autograd's differ.
"""

from ..core.errors import UnknownName as _UnknownName
from . import drivers  # noqa: F401 - tf.optimizers.drivers
from ._functional import Optimizer, State, apply_updates
from ._rules import adam, adamw, rmsprop, sgd

#: PyTorch's and JAX's names that tenferro spells its own way.
_SPELLED_OTHERWISE = {
    "SGD": "tf.optimizers.sgd(step_size, momentum) (functional: init/update, as optax)",
    "Adam": "tf.optimizers.adam(step_size) (functional: init/update, as optax)",
    "AdamW": "tf.optimizers.adamw(step_size, weight_decay=...) (functional: init/update, as optax)",
    "RMSprop": "tf.optimizers.rmsprop(step_size, gamma) (functional: init/update, as optax)",
    "flatten": "tf.flatten(tree)",
    "ravel_pytree": "tf.flatten(tree)",
}


def __getattr__(name: str) -> object:
    raise _UnknownName.of("tf.optimizers", name, __all__, _SPELLED_OTHERWISE)


__all__ = ["Optimizer", "State", "adam", "adamw", "apply_updates", "rmsprop", "sgd"]
