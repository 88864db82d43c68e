"""The examples of docs/transforms.md run and give what the page says."""

import numpy as np
from conftest import run_docs_example


def test_the_pytree_example_gives_gradients_shaped_like_the_parameters():
    scope = run_docs_example("## Pytrees", document="transforms.md")
    grads, params, x = scope["grads"], scope["params"], scope["x"]
    assert list(grads) == ["w", "b"] and grads["w"].shape == (3, 2) and grads["b"].shape == (2,)
    assert scope["aux"].shape == (4, 2)
    assert np.isclose(float(scope["value"]), float(scope["loss"](params, x, scope["y"])))
    assert scope["dx"].shape == x.shape and scope["dw"]["w"].shape == (3, 2)
    assert scope["J"]["w"].shape == (4, 2, 3, 2) and scope["J"]["b"].shape == (4, 2, 2)


def test_the_perturbation_confusion_example_holds():
    run_docs_example("## Nesting, and perturbation confusion", document="transforms.md")


def test_a_non_scalar_output_to_grad_is_a_type_error_as_in_jax():
    import pytest

    import tenferro as tf

    with pytest.raises(TypeError, match="grad: the function must return a scalar"):
        tf.grad(lambda x: x * 2.0)(np.ones(3))
    with pytest.raises(tf.NonScalarGrad):
        tf.grad(lambda x: x * 2.0)(np.ones(3))
