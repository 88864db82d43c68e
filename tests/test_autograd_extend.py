"""tenferro.autograd.extend: autograd's primitive/defvjp/defjvp on tenferro ops; a maker
written with tenferro.autograd.numpy differentiates again."""

import numpy as onp
import pytest

import tenferro as tf
import tenferro.autograd as ag
import tenferro.autograd.numpy as np
from tenferro import ArgumentError, NotDifferentiable, RuleError
from tenferro.autograd.extend import def_linear, defjvp, defvjp, defvjp_argnum, primitive

X = onp.array([0.5, 1.0, -2.0])
SOFTMAX = onp.exp(X) / onp.exp(X).sum()


def make_logsumexp(numpy, extend):
    """autograd's own tutorial example, for either library."""

    @extend.primitive
    def logsumexp(x):
        max_x = onp.max(x)
        return max_x + onp.log(onp.sum(onp.exp(x - max_x)))

    def logsumexp_vjp(ans, x):
        return lambda g: g * numpy.exp(x - ans)

    extend.defvjp(logsumexp, logsumexp_vjp)
    return logsumexp


def test_a_primitive_differentiates_by_its_maker_to_second_order():
    import tenferro.autograd.extend as extend

    logsumexp = make_logsumexp(np, extend)
    assert logsumexp(X) == pytest.approx(onp.log(onp.exp(X).sum()), rel=1e-15)  # plain values: the function
    onp.testing.assert_allclose(onp.asarray(ag.grad(logsumexp)(X)), SOFTMAX, rtol=1e-15)
    onp.testing.assert_allclose(
        onp.asarray(ag.hessian(logsumexp)(X)), onp.diag(SOFTMAX) - onp.outer(SOFTMAX, SOFTMAX), rtol=1e-13
    )
    assert type(logsumexp(tf.constant(X))).__name__ == "EagerTensor"  # a constant in, a constant out


def test_forward_mode_needs_a_jvp_maker_as_in_autograd():
    import tenferro.autograd.extend as extend

    logsumexp = make_logsumexp(np, extend)
    with pytest.raises(NotDifferentiable, match=r"primitive logsumexp: no JVP is defined .* argument 0; .*defjvp"):
        ag.make_jvp(logsumexp)(X)(onp.ones(3))
    defjvp(logsumexp, lambda g, ans, x: np.sum(g * np.exp(x - ans)))
    value, tangent = ag.make_jvp(logsumexp)(X)(onp.array([1.0, 0.0, 2.0]))
    assert float(tangent) == pytest.approx(SOFTMAX[0] + 2 * SOFTMAX[2], rel=1e-15)


def test_def_linear_and_defvjp_argnum():
    @primitive
    def scale(a, k):
        return a * k

    def_linear(scale)
    defvjp(scale, lambda ans, a, k: lambda g: g * k, None)
    onp.testing.assert_array_equal(onp.asarray(ag.deriv(lambda a: scale(a, 3.0))(X)), [3.0] * 3)
    onp.testing.assert_array_equal(onp.asarray(ag.grad(lambda a: np.sum(scale(a, 3.0)))(X)), [3.0] * 3)

    @primitive
    def product(a, b):
        return a * b

    defvjp_argnum(product, lambda argnum, ans, args, kwargs: lambda g: g * args[1 - argnum])
    ga, gb = ag.grad(lambda a, b: np.sum(product(a, b)), (0, 1))(X, 2 * X)
    onp.testing.assert_array_equal(onp.asarray(ga), 2 * X)
    onp.testing.assert_array_equal(onp.asarray(gb), X)
    onp.testing.assert_array_equal(onp.asarray(ag.hessian(lambda a: np.sum(product(a, a)))(X)), 2 * onp.eye(3))


def test_mistakes_are_named():
    @primitive
    def twice(x):
        return 2 * x

    with pytest.raises(NotDifferentiable, match=r"primitive twice: no VJP is defined with respect to argument 0"):
        ag.grad(lambda x: np.sum(twice(x)))(X)
    defvjp(twice, lambda ans, x: lambda g: onp.ones(3))  # a NumPy value: the derivative cut off
    with pytest.raises(RuleError, match=r"the VJP of primitive twice for argument 0 returned a ndarray") as info:
        ag.grad(lambda x: np.sum(twice(x)))(X)
    assert (info.value.op, info.value.rule) == ("twice", "vjp")
    with pytest.raises(ArgumentError, match=r"defvjp: .* is not a primitive; wrap it with primitive\(fun\)"):
        defvjp(lambda x: x, lambda ans, x: lambda g: g)
    with pytest.raises(ArgumentError, match=r"primitive twice: argument 0 holds a tracked tenferro array inside"):
        ag.grad(lambda x: np.sum(twice([x])))(X)

    @primitive
    def named(x):
        return "a string"

    with pytest.raises(ArgumentError, match=r"primitive named: its function returned str; a primitive returns one"):
        ag.grad(lambda x: named(x))(X)


def test_against_autograd():
    autograd = pytest.importorskip("autograd")
    their_extend = pytest.importorskip("autograd.extend")
    their_numpy = pytest.importorskip("autograd.numpy")

    import tenferro.autograd.extend as extend

    ours = make_logsumexp(np, extend)
    theirs = make_logsumexp(their_numpy, their_extend)
    onp.testing.assert_allclose(onp.asarray(ag.hessian(ours)(X)), autograd.hessian(theirs)(X), rtol=1e-14)


def test_check_grads_passes_right_rules_and_catches_a_wrong_one():
    from tenferro.autograd.test_util import check_grads

    check_grads(lambda x, y: np.sin(x) * y**2, (0, 1))(X, 2 * X)
    check_grads(np.tanh, modes=["rev"], order=3)(X)

    @primitive
    def wrong(x):
        return onp.sin(x)

    defvjp(wrong, lambda ans, x: lambda g: g * np.sin(x))  # should be cos
    with pytest.raises(AssertionError, match=r"Derivative \(VJP\) check of wrong failed"):
        check_grads(wrong, modes=["rev"], order=1)(X)
    with pytest.raises(ArgumentError, match=r"check_grads: modes are 'fwd' and 'rev'"):
        check_grads(np.sin, modes=["sideways"])(X)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize(
    "f",
    [lambda z: z * z, lambda z: np.conj(z) * z, np.sin, lambda z: np.abs(z) ** 2],
    ids=["zz", "conj", "sin", "abs2"],
)
def test_check_grads_passes_complex_functions_as_autograds_does(f, order):
    """check_grads paired tenferro.autograd's VJPs, which give autograd's conjugated
    cotangents, with the plain inner product: every complex function failed, right or not."""
    from tenferro.autograd.test_util import check_grads

    check_grads(f, modes=["fwd", "rev"], order=order)(onp.array([1.0 + 2.0j, 0.5 - 1.0j]))


def test_combo_check_tries_every_combination_and_catches_a_wrong_rule():
    from tenferro.autograd.test_util import combo_check

    seen = []

    def f(x, y, scale=1.0):
        seen.append((onp.shape(x), scale))
        return np.sum(np.sin(x) * y) * scale

    combo_check(f, [0, 1], modes=["rev"], order=1)([X, X[:2]], [1.5], scale=[1.0, -2.0])
    assert {(shape, scale) for shape, scale in seen} >= {((3,), 1.0), ((3,), -2.0), ((2,), 1.0), ((2,), -2.0)}

    @primitive
    def wrong(x):
        return onp.sin(x)

    defvjp(wrong, lambda ans, x: lambda g: g * np.sin(x))
    with pytest.raises(AssertionError, match=r"Derivative \(VJP\) check of wrong failed"):
        combo_check(wrong, [0], modes=["rev"], order=1)([X])


def test_fixed_point_is_differentiated_by_the_implicit_function_theorem_as_in_autograd():
    from tenferro.autograd.misc.fixed_points import fixed_point

    def newton_sqrt_iter(a):
        return lambda x: 0.5 * (x + a / x)

    def sqrt(a):
        return fixed_point(newton_sqrt_iter, a, 10.0, lambda x, y: np.abs(x - y), 1e-10)

    assert float(ag.grad(sqrt)(2.0)) == pytest.approx(0.5 / onp.sqrt(2.0), rel=1e-12)
    assert float(ag.grad(ag.grad(sqrt))(2.0)) == pytest.approx(-0.25 * 2.0**-1.5, rel=1e-10)
