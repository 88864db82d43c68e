"""A Tensor (a gradient, a value read out) computes as a read-only NumPy array does and gives
Tensors; beside an EagerTensor the EagerTensor answers, recording the Tensor as a constant."""

import operator
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, DTypeError, EagerTensor, ShapeMismatch, Tensor

BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def test_a_pytorch_style_sgd_step_on_a_gradient_is_recorded_with_the_gradient_a_constant():
    xs = np.array([1.0, -2.0, 3.0])
    p = tf.variable(xs)
    tnp.sum(p**2).backward()
    stepped = p - 0.1 * p.grad()
    assert type(stepped) is EagerTensor and stepped.tracks_grad()
    np.testing.assert_array_equal(np.asarray(stepped), xs - 0.1 * (2 * xs))
    # the step is recorded on p (d/dp of sum(p - 0.1 g) is 1), g is a constant
    assert np.array_equal(np.asarray(tf.default_runtime().grad(tnp.sum(stepped), p)), np.ones(3))
    new = tf.variable(stepped)  # the next step's leaf
    assert new.is_variable() and new.grad() is None


def test_a_tensor_with_numbers_arrays_and_tensors_gives_tensors_with_numpys_values_and_dtypes():
    g = Tensor(np.array([1.0, 2.0, 4.0], np.float32))
    a = np.array([2.0, 2.0, 2.0])
    for got, want in [
        (0.1 * g, 0.1 * np.asarray(g)),
        (g * 0.1, np.asarray(g) * 0.1),  # float32 stays float32 (NumPy's weak scalars)
        (g + a, np.asarray(g) + a),
        (a - g, a - np.asarray(g)),  # NumPy's operator asks the Tensor
        (g / g, np.ones(3, np.float32)),
        (np.sqrt(g), np.sqrt(np.asarray(g))),
        (-g, -np.asarray(g)),
        (abs(-g), np.asarray(g)),
        (g > 1, np.array([False, True, True])),
        (g @ g, np.float32(21.0)),
        (np.add.reduce(g), np.float32(7.0)),
    ]:
        assert type(got) is Tensor, got
        assert got.dtype == np.asarray(want).dtype and np.array_equal(np.asarray(got), want)
        assert not np.asarray(got).flags.writeable


def test_an_eager_tensor_beside_a_tensor_answers_in_every_order_and_records():
    x = tf.variable(np.array([1.0, 2.0]))
    t = Tensor(np.array([3.0, 5.0]))
    for y in (x * t, t * x, np.multiply(t, x), np.multiply(x, t), t - x, x @ t):
        assert type(y) is EagerTensor and y.tracks_grad()
    g = tf.default_runtime().grad(tnp.sum(t * x), x)
    assert np.array_equal(np.asarray(g), [3.0, 5.0])


scalars = st.one_of(st.integers(-3, 3), st.floats(-4, 4, width=32), st.booleans())
arrays = st.builds(
    np.ndarray.astype,
    hnp.arrays(np.int64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3), elements=st.integers(-3, 3)),
    st.sampled_from([np.float64, np.float32, np.int64, np.bool_]),
)


@given(arrays, st.one_of(scalars, arrays), st.sampled_from(sorted(BINARY)), st.booleans())
def test_every_operator_computes_what_numpy_computes_on_the_read_only_array(a, b, symbol, reflected):
    """Bit for bit, dtype included, or the same refusal as a TenferroError (naming the
    operator, or the ufunc a NumPy array's operator calls); the operands are unchanged."""
    op = BINARY[symbol]
    t = Tensor(a)
    args, numpy_args = ((b, t), (b, a)) if reflected else ((t, b), (a, b))
    with np.errstate(all="ignore"):
        try:
            want = op(*numpy_args)
        except (TypeError, ValueError):  # NumPy's refusal (a shape, a dtype, int ** -1)
            with pytest.raises(
                (ShapeMismatch, DTypeError, ArgumentError), match=rf"(operator {re.escape(symbol)}|np\.\w+) of a Tensor"
            ):
                op(*args)
            return
        got = op(*args)
    assert type(got) is Tensor
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(t), a)


def test_nothing_writes_into_a_tensor():
    t = Tensor(np.array([1.0, 2.0]))
    before = t
    t += 1  # a new Tensor, as JAX rebinds
    assert np.array_equal(np.asarray(before), [1.0, 2.0]) and np.array_equal(np.asarray(t), [2.0, 3.0])
    with pytest.raises(ArgumentError, match="a Tensor is immutable"):
        np.add(before, 1, out=(before,))
    with pytest.raises(ArgumentError, match="a Tensor is immutable"):
        np.add.at(before, [0], 1.0)
    out = np.zeros(2)
    assert np.add(before, 1, out=out) is out and np.array_equal(out, [2.0, 3.0])  # a NumPy out is NumPy's


def test_bad_operands_are_python_type_errors_or_tenferro_errors_naming_the_operator():
    t = Tensor(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*: 'Tensor' and 'NoneType'"):
        t * None
    with pytest.raises(ShapeMismatch, match=r"operator \+ of a Tensor: operands could not be broadcast"):
        t + np.ones(3)
    with pytest.raises(DTypeError, match="operator & of a Tensor"):
        t & t
    assert (t == None) is False  # noqa: E711 - no elementwise comparison with None: identity, as Python's


def test_a_one_element_tensor_converts_to_a_python_number_and_a_larger_one_says_why_not():
    assert float(Tensor(2.5)) == 2.5 and int(Tensor([3])) == 3 and complex(Tensor(1j)) == 1j
    with pytest.raises(ShapeMismatch, match=r"bool\(\) of a Tensor of shape \[2\]"):
        bool(Tensor([1.0, 2.0]) > 0)
    assert {Tensor(1.0): "a key"}  # hashing stays by identity
