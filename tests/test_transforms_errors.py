"""The transforms' refusals as JAX has them, each a TenferroError whose message names the
transform the user called and the argument (with its pytree path), and says what to do."""

import numpy as np
import pytest
from test_transforms import V, X, close, sin_x2

import tenferro as tf
import tenferro.numpy as tnp
from tenferro.core.errors import ArgumentError, DTypeError, NonScalarGrad, ShapeMismatch, TenferroError


def _value_error_case():
    _, f_vjp = tf.vjp(lambda x: x * 2, X)
    return f_vjp


ERRORS = [
    ("grad-non-scalar", lambda: tf.grad(lambda x: x * 2)(X), NonScalarGrad, r"grad: .*scalar.*got shape \[3\]"),
    (
        "value_and_grad-pytree-output",
        lambda: tf.value_and_grad(lambda x: [tnp.sum(x)])(X),
        NonScalarGrad,
        r"value_and_grad: the function must return a scalar .*a pytree of 1 arrays",
    ),
    ("grad-complex-output", lambda: tf.grad(lambda x: x * 1j)(1.0), DTypeError, "grad: .*complex.*holomorphic=True"),
    ("grad-int-output", lambda: tf.grad(lambda x: 1)(1.0), DTypeError, "grad: .*dtype i64; it must return a float"),
    ("grad-int-input", lambda: tf.grad(lambda x: x * 2.0)(np.arange(3)), DTypeError, "grad: argument 0 has dtype i64"),
    ("grad-bool-input", lambda: tf.grad(lambda x: 1.0)(True), DTypeError, "grad: argument 0 has dtype bool"),
    (
        "jacrev-str-leaf",
        lambda: tf.jacrev(lambda d: d["a"])({"a": X, "b": "hi"}),
        ArgumentError,
        r"jacrev: argument 0 at \['b'\] is a str, not an array",
    ),
    (
        "jvp-str-output",
        lambda: tf.jvp(lambda x: "s", (1.0,), (1.0,)),
        ArgumentError,
        "jvp: the output is a str, not an array of numbers; .*aux",
    ),
    (
        "jvp-tangent-structure",
        lambda: tf.jvp(lambda p: p["a"], ({"a": X},), ({"b": X},)),
        ArgumentError,
        "jvp: tangent 0 must have the structure of primal 0",
    ),
    ("jvp-tangent-shape", lambda: tf.jvp(tnp.sin, (X,), (np.ones(4),)), ShapeMismatch, r"jvp: tangent 0 has shape"),
    (
        "jvp-tangent-dtype",
        lambda: tf.jvp(tnp.sin, (X,), (np.ones(3, np.float32),)),
        DTypeError,
        "jvp: tangent 0 has dtype f32, but its primal is f64",
    ),
    (
        "jvp-tangent-count",
        lambda: tf.jvp(lambda a, b: a * b, (X, X), (X,)),
        ArgumentError,
        "jvp: got 2 primals and 1 tangents",
    ),
    ("jvp-not-tuples", lambda: tf.jvp(tnp.sin, X, X), ArgumentError, r"jvp: primals and tangents must be tuples"),
    # (the bad-input fuzz: two lists read as two primals of a one-argument function)
    (
        "jvp-arity",
        lambda: tf.jvp(tnp.sin, ([1.0], [2.0, 3.0]), ([1.0], [2.0, 3.0])),
        ArgumentError,
        r"jvp: got 2 primals, but fun cannot take 2 positional argument\(s\)",
    ),
    (
        "vjp_fn-structure",
        lambda: _value_error_case()((np.ones(3),)),
        ArgumentError,
        "vjp: the cotangent must have the structure of the output",
    ),
    (
        "vjp_fn-shape",
        lambda: _value_error_case()(np.ones(2)),
        ShapeMismatch,
        r"vjp: the cotangent has shape \[2\], but the output has shape \[3\]",
    ),
    (
        "vjp_fn-dtype",
        lambda: _value_error_case()(np.ones(3, np.float32)),
        DTypeError,
        "vjp: the cotangent has dtype f32, but the output is f64",
    ),
    (
        "linearize-tangent-count",
        lambda: tf.linearize(tnp.sin, X)[1](X, X),
        ArgumentError,
        r"linearize: f_jvp takes one tangent per primal \(1\), got 2",
    ),
    ("argnums-out-of-range", lambda: tf.grad(sin_x2, argnums=2)(X), ArgumentError, "grad: argnums 2 is out of range"),
    ("argnums-negative-out-of-range", lambda: tf.jacfwd(tnp.sin, -2)(X), ArgumentError, "jacfwd: argnums -2 is out"),
    # regression: a repeated argument got a zero gradient for its first mention
    (
        "argnums-repeated",
        lambda: tf.grad(lambda x, y: x * y, (0, -2))(2.0, 3.0),
        ArgumentError,
        r"grad: argnums names positional argument\(s\) \[0\] more than once",
    ),
    ("argnums-str", lambda: tf.grad(sin_x2, argnums="0"), ArgumentError, "grad: argnums must be an int"),
    ("argnums-bool", lambda: tf.jacrev(sin_x2, argnums=True), ArgumentError, "jacrev: argnums must be an int"),
    ("argnums-empty", lambda: tf.value_and_grad(sin_x2, argnums=()), ArgumentError, "value_and_grad: argnums must"),
    (
        "has_aux-not-a-pair",
        lambda: tf.grad(sin_x2, has_aux=True)(X),
        ArgumentError,
        "grad: with has_aux=True the function must return a pair",
    ),
    (
        "has_aux-triple",
        lambda: tf.jvp(lambda x: (x, 1, 2), (X,), (X,), has_aux=True),
        ArgumentError,
        "jvp: with has_aux=True the function must return a pair",
    ),
    # regression: hessian and hvp errors named the jacfwd/jacrev/grad/jvp they are built from
    ("hessian-int-input", lambda: tf.hessian(sin_x2)(np.arange(3)), DTypeError, "hessian: argument 0 has dtype i64"),
    ("hessian-argnums", lambda: tf.hessian(sin_x2, argnums=(0, 1))(X), ArgumentError, "hessian: argnums 1 is out"),
    ("hvp-non-scalar", lambda: tf.hvp(tnp.sin, (X,), (V,)), NonScalarGrad, r"hvp: .*scalar.*got shape \[3\]"),
    ("hvp-tangent-shape", lambda: tf.hvp(sin_x2, (X,), (V[:2],)), ShapeMismatch, r"hvp: tangent 0 has shape \[2\]"),
    (
        "object-array-leaf",
        lambda: tf.grad(lambda x: 1.0)(np.array(["a"], dtype=object)),
        ArgumentError,
        "grad: argument 0 is an array of dtype object, not an array of numbers",
    ),
    (
        "tangent-str-leaf",
        lambda: tf.jvp(tnp.sin, (X,), ("a",)),
        ArgumentError,
        "jvp: tangent 0 is a str, not an array of numbers; tangents and cotangents are pytrees",
    ),
    ("not-callable", lambda: tf.grad(3)(X), ArgumentError, "grad: the function to transform must be callable"),
    ("not-callable-vjp", lambda: tf.vjp("f", X), ArgumentError, "vjp: the function to transform must be callable"),
    (
        "holomorphic-real-input",
        lambda: tf.grad(lambda z: z**2, holomorphic=True)(1.0),
        DTypeError,
        "grad: argument 0 has dtype f64; grad with holomorphic=True needs complex inputs",
    ),
    (
        "holomorphic-real-output",
        lambda: tf.jacrev(tnp.abs, holomorphic=True)(np.array([1 + 1j])),
        DTypeError,
        r"jacrev: the output is f64\[1\]; jacrev requires complex outputs with holomorphic=True",
    ),
    (
        "jacfwd-complex-input",
        lambda: tf.jacfwd(tnp.real)(np.array([1 + 1j])),
        DTypeError,
        "jacfwd: argument 0 is c128.*holomorphic=True",
    ),
    (
        "jacrev-complex-output",
        lambda: tf.jacrev(lambda x: {"k": x * 1j})(X),
        DTypeError,
        r"jacrev: the output at \['k'\] is c128\[3\]; jacrev requires real \(float\) outputs",
    ),
]


@pytest.mark.parametrize(("make", "error", "match"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_name_the_transform_and_the_argument(make, error, match):
    with pytest.raises(error, match=match) as info:
        make()
    assert isinstance(info.value, TenferroError)


#: Each transform called with autograd's ``argnum``, JAX's name misspelled: (call, name in errors, its keywords).
MISSPELLED = [
    (lambda: tf.grad(sin_x2, argnum=1), "grad", "argnums"),
    (lambda: tf.value_and_grad(sin_x2, argnum=1), "value_and_grad", "argnums"),
    (lambda: tf.jacrev(sin_x2, argnum=1), "jacrev", "argnums"),
    (lambda: tf.jacobian(sin_x2, argnum=1), "jacrev", "argnums"),
    (lambda: tf.jacfwd(sin_x2, argnum=1), "jacfwd", "argnums"),
    (lambda: tf.hessian(sin_x2, argnum=1), "hessian", "argnums"),
    (lambda: tf.vjp(sin_x2, X, hasaux=True), "vjp", "has_aux"),
    (lambda: tf.linearize(sin_x2, X, has_auxx=True), "linearize", "has_aux"),
    (lambda: tf.jvp(sin_x2, (X,), (V,), tangent=1), "jvp", "tangents"),
    (lambda: tf.hvp(sin_x2, (X,), (V,), engin=None), "hvp", "engine"),
]


@pytest.mark.parametrize(("make", "transform", "meant"), MISSPELLED, ids=[m[1] + "-" + m[2] for m in MISSPELLED])
def test_a_misspelled_keyword_names_the_one_meant(make, transform, meant):
    with pytest.raises(
        ArgumentError, match=rf"^{transform}: got an unexpected keyword argument '\w+'; did you mean {meant!r}\?"
    ) as info:
        make()
    assert isinstance(info.value, TypeError)  # what Python raises for it, so except TypeError still holds


def test_a_keyword_no_transform_takes_lists_the_keywords():
    with pytest.raises(ArgumentError) as info:
        tf.grad(sin_x2, order=2)
    assert str(info.value) == (
        "grad: got an unexpected keyword argument 'order' (its keywords are fun, argnums, has_aux, holomorphic, engine)"
    )


@pytest.mark.parametrize("flag", ["has_aux", "holomorphic"])
def test_a_flag_of_a_transform_is_a_bool(flag):
    with pytest.raises(ArgumentError, match=rf"^jacfwd: {flag} must be True or False, got a NumPy array"):
        tf.jacfwd(sin_x2, **{flag: np.array([True, False])})
    with pytest.raises(ArgumentError, match=r"^vjp: engine must be an engine such as CpuEngine.serial\(\), or None"):
        tf.vjp(sin_x2, X, engine="cpu")


def test_a_python_number_tangent_takes_its_primals_dtype_but_an_array_must_match():
    _, t = tf.jvp(tnp.sin, (X.astype(np.float32),), (np.ones(3, np.float32),))
    assert t.dtype == np.float32
    _, t = tf.jvp(tnp.sin, (np.float32(0.5),), (1.0,))
    assert t.dtype == np.float32
    _, t = tf.jvp(lambda z: z**2, (1 + 2j,), (1.0,))
    close(t, 2 + 4j)
    with pytest.raises(DTypeError, match="jvp: tangent 0 has dtype c128, but its primal is f64"):
        tf.jvp(tnp.sin, (1.0,), (1j,))
