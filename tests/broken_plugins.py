"""Deliberately broken op plugins: the conformance suite must catch each one with the check
named in tests/test_conformance.py. Each is a plugin object with one op."""

import numpy as np

from tenferro import Kink, OpSpec, Tensor, hookimpl
from tenferro.core.registry import SampleInput
from tenferro.extend import unbroadcast


class _OnePlugin:
    def __init__(self, spec):
        self.spec = spec

    @hookimpl
    def tenferro_register_ops(self, registry):
        registry.add(self.spec)


def _unary(low=-3.0, high=3.0, avoid=()):
    def sample():
        from tenferro.testing.strategies import unary

        return unary(low, high, avoid)

    return sample


def _pairs():
    from tenferro.testing.strategies import broadcast_pair

    return broadcast_pair(scalars=False)


def _sin_vjp_off(s, g, inputs, out):
    return (s.mul(s.mul(g, s.cos(inputs[0])), 1.001),)  # 0.1 % too large


def _mul_without_unbroadcast(s, g, inputs, out):
    a, b = inputs
    return s.mul(g, b), s.mul(g, a)  # forgets to sum back broadcast axes


def _double_in_place(x):
    x *= 2.0  # writes into its input
    return x.copy()


def _detached_vjp(s, g, inputs, out):
    (x,) = inputs
    cos = s.runtime.constant_from(Tensor.from_numpy(np.cos(np.asarray(x))))  # cut off from x
    return (s.mul(g, cos),)


def _triple_vjp(detached):
    """VJP of 3x that takes g out of the graph where ``detached(x)``: right values, but
    there the second derivative in the cotangent is lost."""

    def vjp(s, g, inputs, out):
        if detached(np.asarray(inputs[0])):
            g = s.runtime.constant_from(Tensor.from_numpy(np.asarray(g)))
        return (s.mul(g, 3.0),)

    return vjp


def _abs_vjp_one_at_zero(s, g, inputs, out):
    (x,) = inputs
    return (s.mul(g, s.where_select(s.compare(x, 0.0, "ge"), 1.0, -1.0)),)  # abs'(0) = 1: not as declared


def _relu_vjp(s, g, inputs, out):
    (x,) = inputs
    return (s.where_select(s.compare(x, 0.0, "gt"), g, 0.0),)


def _relu_on_the_kink():
    from tenferro.testing.strategies import floats_array

    # half the elements sit exactly on relu's kink at 0
    return floats_array().map(lambda x: SampleInput((np.where(np.abs(x) < 1.5, 0.0, x),)))


VJP_OFF = _OnePlugin(
    OpSpec(name="sin_off", inputs=("x",), forward=np.sin, vjp=_sin_vjp_off, sample=_unary(), reference=np.sin)
)
NO_UNBROADCAST = _OnePlugin(
    OpSpec(name="mul_nb", inputs=("a", "b"), forward=np.multiply, vjp=_mul_without_unbroadcast, sample=_pairs)
)
MUTATING_FORWARD = _OnePlugin(
    OpSpec(
        name="double_in_place",
        inputs=("x",),
        forward=_double_in_place,
        vjp=lambda s, g, inputs, out: (s.mul(g, 2.0),),
        sample=_unary(),
    )
)
WRONG_COUNT = _OnePlugin(
    OpSpec(name="sin_two", inputs=("x",), forward=np.sin, vjp=lambda s, g, inputs, out: (g, g), sample=_unary())
)
ZERO_SECOND_ORDER = _OnePlugin(
    OpSpec(name="sin_flat", inputs=("x",), forward=np.sin, vjp=_detached_vjp, sample=_unary(), reference=np.sin)
)
KINK_SAMPLER = _OnePlugin(
    OpSpec(
        name="relu_sampled_on_kink",
        inputs=("x",),
        forward=lambda x: np.maximum(x, 0.0),
        vjp=_relu_vjp,
        sample=_relu_on_the_kink,
        reference=lambda x: np.maximum(x, 0.0),
    )
)
OUT_OF_DOMAIN = _OnePlugin(
    OpSpec(
        name="log_anywhere",
        inputs=("x",),
        forward=np.log,
        vjp=lambda s, g, inputs, out: (s.div(g, inputs[0]),),
        sample=_unary(-3.0, -0.5),  # log of negatives: nan everywhere
    )
)
SOMETIMES_WRONG_SECOND_ORDER = _OnePlugin(
    OpSpec(
        name="triple_partly_flat",
        inputs=("x",),
        forward=lambda x: 3.0 * x,
        vjp=_triple_vjp(detached=lambda x: bool(np.any(x > 2.0))),
        sample=_unary(),
    )
)
UNDECLARED_RESIDUAL = _OnePlugin(
    OpSpec(
        name="sin_forgetful",
        inputs=("x",),
        forward=np.sin,
        vjp=lambda s, g, inputs, out: (s.mul(g, s.cos(inputs[0])),),  # reads x ...
        residuals=("out",),  # ... but declares only out, so x is dropped when it is not a variable
        sample=_unary(),
        reference=np.sin,
    )
)
WRONG_AT_KINK = _OnePlugin(
    OpSpec(
        name="abs_kinked",
        inputs=("x",),
        forward=np.abs,
        vjp=_abs_vjp_one_at_zero,
        sample=_unary(avoid=(0.0,)),
        reference=np.abs,
        kinks=(Kink((np.array([0.0, -0.5]),), (np.array([0.0, -1.0]),)),),  # abs'(0) = 0, declared
    )
)
#: Declares no sample, reference or error_inputs: the checks that need them are skipped.
BARE = _OnePlugin(
    OpSpec(name="bare_neg", inputs=("x",), forward=np.negative, vjp=lambda s, g, inputs, out: (s.neg(g),))
)


# -- kernels that only work on NumPy arrays (caught by engine_neutral) ----------------------
def _unary_value_op(name, forward):
    """An op without a VJP (so only the value checks run): ``forward`` is what is wrong."""
    return _OnePlugin(OpSpec(name=name, inputs=("x",), forward=forward, sample=_unary()))


ASTYPE_METHOD = _unary_value_op("sin_method", lambda x: np.sin(x).astype(x.dtype))  # an ndarray method
COERCING = _unary_value_op("sin_coerced", lambda x: np.sin(np.asarray(x)))  # dask would compute x here
NUMPY_RESULT = _unary_value_op("zeros_of", lambda x: np.zeros(x.shape, x.dtype))  # np.zeros_like(x) keeps the type
# a NumPy array beside x
MIXED = _unary_value_op("relu_mixed", lambda x: np.where(x > 0, x, np.zeros(x.shape, x.dtype)))


# -- linearity declared wrongly (caught by linear), forward-mode rules that are wrong (jvp) --
def _same_shapes(count):
    def sample():
        from tenferro.testing.strategies import same_shape_arrays

        return same_shape_arrays(count)

    return sample


SHIFT_DECLARED_LINEAR = _OnePlugin(  # affine, not linear: its derivative is right, its derived jvp not
    OpSpec(
        name="shift",
        inputs=("x",),
        forward=lambda x: x + 1.0,
        vjps=(lambda s, g, out, x: g,),
        linear=True,
        sample=_unary(),
    )
)
SQUARE_DECLARED_MULTILINEAR = _OnePlugin(  # a·b·b is linear in a but not in b
    OpSpec(
        name="mul_bb",
        inputs=("a", "b"),
        forward=lambda a, b: a * b * b,
        vjps=(lambda s, g, out, a, b: s.mul(g, s.mul(b, b)), lambda s, g, out, a, b: s.mul(g, s.mul(s.mul(a, b), 2.0))),
        multilinear=True,
        sample=_same_shapes(2),
    )
)
WRONG_TRANSPOSE = _OnePlugin(  # flipping is its own transpose; the VJP leaves g as it is
    OpSpec(
        name="flip_untransposed",
        inputs=("x",),
        forward=lambda x: np.flip(x) * 1,  # (a new array, not a view of x)
        vjps=(lambda s, g, out, x: g,),
        linear=True,
        sample=_unary(),
    )
)
JVP_OFF = _OnePlugin(
    OpSpec(
        name="sin_jvp_off",
        inputs=("x",),
        forward=np.sin,
        vjps=(lambda s, g, out, x: s.mul(g, s.cos(x)),),
        jvp=lambda s, tangents, inputs, out: s.mul(s.mul(tangents[0], s.cos(inputs[0])), 1.001),  # 0.1 % too large
        sample=_unary(),
    )
)

# Forward-mode rules only finite differences at a recorded node catch (jvp_fd): one the
# transpose of an equally wrong VJP (the jvp check compares the two, and they agree), and one
# right in value that reads an input its node does not keep (the jvp check runs on constants).
TANH_BOTH_OFF = _OnePlugin(
    OpSpec(
        name="tanh_both_off",
        inputs=("x",),
        forward=np.tanh,
        vjps=(lambda s, g, out, x: s.mul(g, s.sub(1.0, out)),),  # 1 - y, not 1 - y**2
        jvp=lambda s, tangents, inputs, out: s.mul(tangents[0], s.sub(1.0, out)),
        residuals=("out",),
        sample=_unary(),
    )
)
JVP_READS_DROPPED = _OnePlugin(
    OpSpec(
        name="exp_jvp_reads_x",
        inputs=("x",),
        forward=np.exp,
        vjps=(lambda s, g, out, x: s.mul(g, out),),
        jvp=lambda s, tangents, inputs, out: s.mul(tangents[0], s.exp(inputs[0])),  # x is not kept: read out
        residuals=("out",),
        sample=_unary(),
    )
)


def _raw_cos_rule(s, g, out, x):
    return s.mul(g, np.cos(np.asarray(x)))  # a raw array inside a rule: cut off from the trace


RAW_ARRAY_RULE = _OnePlugin(
    OpSpec(name="raw_sin", inputs=("x",), forward=np.sin, vjps=(_raw_cos_rule,), sample=_unary(), reference=np.sin)
)


def _complex_pairs():
    from tenferro.testing.strategies import broadcast_pair

    return broadcast_pair(scalars=False)


FORGOT_CONJ = _OnePlugin(  # right for real inputs; on complex ones its VJP is JAX's, not the conjugate
    OpSpec(
        name="mul_unconjugated",
        inputs=("a", "b"),
        forward=np.multiply,
        vjps=(lambda s, g, out, a, b: s.mul(g, b), lambda s, g, out, a, b: s.mul(g, a)),
        unbroadcast=unbroadcast,
        accepts="fc",
        sample=_complex_pairs,
        reference=np.multiply,
    )
)
