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


def test_leaving_tenferro_inside_a_transform_is_refused_not_a_silent_zero():
    """np.asarray, float, item and tolist of a value computed from the arguments a transform
    differentiates would carry no derivative (the gradient would silently miss that part):
    refused, as JAX refuses a tracer; bool and int (control flow) and values that do not
    depend on the arguments stay allowed."""
    import pytest

    import tenferro as tf
    import tenferro.numpy as tnp

    x = np.array([1.0, 2.0, 3.0])
    exits = (
        np.asarray,
        lambda y: float(y[0]),
        lambda y: y[0].item(),
        lambda y: y.tolist(),
        lambda y: y.value(),
        np.from_dlpack,
        lambda y: float(f"{tnp.sum(y):.3f}"),
    )
    for leave in exits:
        with pytest.raises(tf.ArgumentError, match="is computed from the arguments grad is differentiating"):
            tf.grad(lambda y, leave=leave: tnp.sum(y * 2.0) + np.sum(leave(y**2)))(x)
    with pytest.raises(tf.ArgumentError, match="jvp is differentiating"):
        tf.jvp(lambda y: y * float(tnp.sum(y)), (x,), (x,))
    outer = tf.grad(lambda y: tnp.sum(y * tf.grad(lambda z: tnp.sum(z * z) * float(np.asarray(y)[0]))(y)))
    with pytest.raises(tf.ArgumentError, match="grad is differentiating"):
        outer(x)  # the inner function reads the outer transform's argument
    g = tf.grad(lambda y: tnp.sum(y**2) if bool(y[0] > 0) and int(y[1]) == 2 else tnp.sum(y))(x)
    assert np.array_equal(np.asarray(g), 2 * x)
    assert float(tf.grad(lambda y: y * float(np.sum(x)))(1.0)) == 6.0  # a closure over plain data
    g = tf.grad(lambda y: tnp.sum(y * y.detach()) + tnp.sum(y * tf.constant(y)))(x)  # stopped on purpose
    assert np.array_equal(np.asarray(g), 2 * x)


def test_the_custom_rules_example_runs_and_asserts_what_the_page_says():
    scope = run_docs_example("## Custom derivative rules", document="transforms.md")
    assert float(scope["tf"].grad(scope["log1pexp"])(1000.0)) == 1.0


def test_the_checkpointing_example_runs_and_asserts_what_the_page_says():
    scope = run_docs_example("## Checkpointing", document="transforms.md")
    hv0 = scope["tf"].hvp(lambda p: scope["loss"](p, scope["x"], False), (scope["params"],), (scope["v"],))
    assert np.array_equal(scope["tf"].flatten(scope["hv"])[0], scope["tf"].flatten(hv0)[0])
