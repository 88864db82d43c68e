"""tenferro.numpy's dtypes, creation functions, data type functions and inspection API:
values and dtypes against NumPy, default dtypes, devices, errors, and which runtime a new
array belongs to."""

import warnings

import numpy as np
import pytest
from conftest import fd_gradient

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, DTypeError

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
NAMES += ["float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", NAMES)
def test_dtypes_are_numpys_and_compare_with_array_dtypes(name):
    dtype = getattr(tnp, name)
    assert dtype is getattr(np, name if name != "bool" else "bool_")
    assert tnp.zeros(2, dtype=dtype).dtype == dtype
    assert tnp.__array_namespace_info__().dtypes()[name] is dtype


def test_constants():
    assert tnp.e == np.e and tnp.pi == np.pi and tnp.inf == np.inf and np.isnan(tnp.nan)
    assert tnp.newaxis is None


def test_creation_values_and_default_dtypes_match_numpy():
    cases = [
        (tnp.zeros((2, 3)), np.zeros((2, 3))),
        (tnp.ones(4, dtype=tnp.int32), np.ones(4, np.int32)),
        (tnp.empty((0, 2)), np.empty((0, 2))),
        (tnp.full((2,), 7), np.full((2,), 7)),
        (tnp.full((2,), 1.5), np.full((2,), 1.5)),
        (tnp.full((), True), np.full((), True)),
        (tnp.full(3, 1j, dtype=tnp.complex64), np.full(3, 1j, np.complex64)),
        (tnp.arange(5), np.arange(5)),
        (tnp.arange(1, 2, 0.25), np.arange(1, 2, 0.25)),
        (tnp.arange(5, 0, -2, dtype=tnp.int8), np.arange(5, 0, -2, dtype=np.int8)),
        (tnp.arange(0.0, 1.0, 0.1), np.arange(0.0, 1.0, 0.1)),
        (tnp.linspace(0, 1, 5), np.linspace(0, 1, 5)),
        (tnp.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False)),
        (tnp.linspace(0, 1j, 3), np.linspace(0, 1j, 3)),
        (tnp.eye(3), np.eye(3)),
        (tnp.eye(2, 4, k=1, dtype=tnp.uint8), np.eye(2, 4, 1, np.uint8)),
        (tnp.asarray(3), np.asarray(3)),
        (tnp.asarray([1.0, 2.0]), np.asarray([1.0, 2.0])),
        (tnp.asarray([[True], [False]]), np.asarray([[True], [False]])),
        (tnp.asarray(2.5, dtype=tnp.float32), np.asarray(2.5, np.float32)),
        (tnp.asarray(np.arange(3, dtype=np.uint16)), np.arange(3, dtype=np.uint16)),
    ]
    for got, want in cases:
        assert type(got) is tf.EagerTensor and got.dtype == want.dtype, (got, want)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.runtime is tf.default_runtime() and not got.tracks_grad()


def test_like_functions_keep_shape_dtype_and_runtime(rt):
    x = rt.variable_from(np.ones((2, 3), np.float32))
    for f, fill in ((tnp.zeros_like, 0), (tnp.ones_like, 1), (tnp.empty_like, 0)):
        y = f(x)
        assert y.shape == (2, 3) and y.dtype == tnp.float32 and y.runtime is rt and not y.tracks_grad()
        np.testing.assert_array_equal(np.asarray(y), np.full((2, 3), fill, np.float32))
    y = tnp.full_like(x, 2, dtype=tnp.int64)
    assert y.dtype == tnp.int64 and y.runtime is rt
    np.testing.assert_array_equal(np.asarray(y), np.full((2, 3), 2))
    assert tnp.zeros_like(np.ones(2, np.int8)).dtype == tnp.int8  # a NumPy array too


def test_asarray_of_a_tenferro_array_is_it_or_its_astype():
    x = tf.variable(np.array([1.5, -2.0]))
    assert tnp.asarray(x) is x and tnp.asarray(x, copy=True) is x and tnp.asarray(x, copy=False) is x
    y = tnp.asarray(x, dtype=tnp.complex128)
    assert y.dtype == tnp.complex128 and y.tracks_grad()
    with pytest.raises(ValueError, match="copy=False"):
        tnp.asarray(x, dtype=tnp.float32, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        tnp.asarray([1, 2], copy=False)


def test_asarray_copies_numpy_data():
    a = np.array([1.0, 2.0])
    x = tnp.asarray(a)
    a[0] = 9.0
    np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0])
    nested = tnp.asarray([tnp.asarray(1.0), 2.0])
    np.testing.assert_array_equal(np.asarray(nested), [1.0, 2.0])


def test_astype_records_and_differentiates():
    x0 = np.array([0.5, -1.5, 2.0])
    x = tf.variable(x0)
    rt = x.runtime
    y = tnp.astype(x, tnp.float32)
    assert y.dtype == tnp.float32 and y.tracks_grad()
    assert tnp.astype(x, tnp.float64, copy=False) is x
    (g,) = rt.grad(rt.current_session().reduce_sum(tnp.real(tnp.astype(x, tnp.complex128) * (2 + 1j))), [x])
    np.testing.assert_allclose(np.asarray(g), np.full(3, 2.0))
    np.testing.assert_array_equal(np.asarray(tnp.astype(x, tnp.int8)), x0.astype(np.int8))


@pytest.mark.parametrize("k", [-(2**63), -(2**62), -4, -3, 4, 5, 2**62, 2**63 - 1])
def test_tril_and_triu_of_a_diagonal_beyond_the_matrix_keep_all_or_nothing(k):
    """Found by the bad-input fuzz: a k near the int64 bounds overflowed inside NumPy's tril
    (a KernelError, or an overflow warning); beyond the matrix it keeps all or nothing."""
    a0 = np.arange(1.0, 13.0).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lower, upper = np.asarray(tnp.tril(a0, k=k)), np.asarray(tnp.triu(a0, k=k))
    np.testing.assert_array_equal(lower, a0 if k > 0 else np.zeros_like(a0))
    np.testing.assert_array_equal(upper, np.zeros_like(a0) if k > 0 else a0)


@pytest.mark.parametrize("k", [-(2**63), -(2**63) + 3, -(2**62), -5, -1, 0, 2, 2**62, 2**63 - 5, 2**63 - 1])
def test_tri_and_the_triangle_indices_of_any_k_are_that_diagonals_without_overflow(k):
    """NumPy's np.tri(3, 4, -2**63 + 3) overflows in M - k and has ones (a wrong matrix,
    silently), and so do tril_indices and triu_indices, which call it: tnp's clamp k to the
    matrix's edges first, so every k is right."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = np.asarray(tnp.tri(3, 4, k))
    want = np.tri(3, 4, min(max(k, -3), 4))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(tnp.tri(3, M=4, k=k)), want)
    if -(2**63) <= k < 2**63:  # a 0-d int64 array, as NumPy takes one
        np.testing.assert_array_equal(np.asarray(tnp.tri(3, 4, np.array(k))), want)
    edge = min(max(k, -3), 4)  # (the same diagonal for NumPy, which overflows beyond it)
    np.testing.assert_array_equal(np.asarray(tnp.tri(3, 4, np.array(2**64 - 1, np.uint64))), np.ones((3, 4)))
    for name in ("tril_indices", "triu_indices"):
        for got, want in zip(getattr(tnp, name)(3, k, 4), getattr(np, name)(3, edge, 4)):
            np.testing.assert_array_equal(np.asarray(got), want)
        for got, want in zip(getattr(tnp, f"{name}_from")(np.ones((3, 4)), k=k), getattr(np, name)(3, edge, 4)):
            np.testing.assert_array_equal(np.asarray(got), want)


def test_tril_triu_meshgrid_record_and_differentiate():
    a0 = np.arange(9.0).reshape(3, 3) / 3
    a = tf.variable(a0)
    rt = a.runtime
    s = rt.current_session()
    np.testing.assert_array_equal(np.asarray(tnp.tril(a, k=-1)), np.tril(a0, -1))
    np.testing.assert_array_equal(np.asarray(tnp.triu(a)), np.triu(a0))
    (g,) = rt.grad(s.reduce_sum(tnp.triu(a, k=1) * a), [a])
    np.testing.assert_allclose(np.asarray(g), fd_gradient(lambda t: (np.triu(t, 1) * t).sum(), a0), rtol=1e-7)
    x0, y0 = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])
    for indexing in ("xy", "ij"):
        want = np.meshgrid(x0, y0, indexing=indexing)
        x, y = tf.variable(x0), tf.variable(y0)
        got = tnp.meshgrid(x, y, indexing=indexing)
        for one, other in zip(got, want):
            np.testing.assert_array_equal(np.asarray(one), other)
        gx, gy = rt.grad(s.reduce_sum(got[0] * got[1]), [x, y])
        np.testing.assert_allclose(np.asarray(gx), np.full(3, y0.sum()))
        np.testing.assert_allclose(np.asarray(gy), np.full(2, x0.sum()))
    three = tnp.meshgrid(tnp.arange(2), tnp.arange(3), tnp.arange(4))
    for one, other in zip(three, np.meshgrid(np.arange(2), np.arange(3), np.arange(4))):
        np.testing.assert_array_equal(np.asarray(one), other)


def test_data_type_functions():
    assert tnp.finfo(tnp.float32).eps == float(np.finfo(np.float32).eps)
    assert type(tnp.finfo(tnp.complex128).max) is float and tnp.finfo(tnp.complex64).dtype == tnp.float32
    assert tnp.finfo(tnp.asarray(1.0)).bits == 64
    assert tnp.iinfo(tnp.uint8).max == 255 and tnp.iinfo(tnp.asarray(np.int16(1))).min == -(2**15)
    assert tnp.isdtype(tnp.int8, "signed integer") and tnp.isdtype(tnp.uint8, ("bool", "integral"))
    assert not tnp.isdtype(tnp.float32, "complex floating") and tnp.isdtype(tnp.float64, tnp.float64)
    assert tnp.isdtype(np.dtype(np.complex64), "numeric")
    assert tnp.result_type(tnp.int8, tnp.uint8) == tnp.int16
    assert tnp.result_type(tnp.asarray(np.float32(1)), 1.0) == tnp.float32
    assert tnp.result_type(tnp.float32, tnp.complex64, tnp.float64) == tnp.complex128
    assert tnp.can_cast(tnp.int8, tnp.int16) and not tnp.can_cast(tnp.float64, tnp.float32)


def test_inspection_api():
    info = tnp.__array_namespace_info__()
    assert info.default_device() == "cpu" and info.devices() == ["cpu"]
    assert info.default_dtypes() == {
        "real floating": tnp.float64,
        "complex floating": tnp.complex128,
        "integral": tnp.int64,
        "indexing": tnp.int64,
    }
    assert info.capabilities()["boolean indexing"] is True
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {"bool", "complex64", "complex128"}
    assert len(info.dtypes()) == 13


def test_errors():
    with pytest.raises(ArgumentError, match=r"tnp\.zeros: device='cuda'.*'cpu'"):
        tnp.zeros(2, device="cuda")
    tnp.ones(2, device="cpu")
    with pytest.raises(ArgumentError, match=r"tnp\.__array_namespace_info__|default_dtypes: device"):
        tnp.__array_namespace_info__().default_dtypes(device="gpu")
    with pytest.raises(DTypeError, match=r"tnp\.ones: dtype='float16'"):
        tnp.ones(2, dtype="float16")
    with pytest.raises(DTypeError, match=r"tnp\.asarray: dtype=<class 'str'>"):
        tnp.asarray([1], dtype=str)
    with pytest.raises(DTypeError, match=r"tnp\.asarray: obj has dtype <U1"):
        tnp.asarray(["a"])
    with pytest.raises(ArgumentError, match=r"tnp\.asarray: cannot make an array"):
        tnp.asarray([[1, 2], [3]])
    with pytest.raises(ArgumentError, match=r"tnp\.zeros_like: argument 'x' is a str"):
        tnp.zeros_like("x")
    with pytest.raises(ArgumentError, match=r"tnp\.zeros: shape"):
        tnp.zeros((2, -1))
    with pytest.raises(ArgumentError, match=r"tnp\.arange: step must not be 0"):
        tnp.arange(0, 3, 0)
    with pytest.raises(ArgumentError, match=r"tnp\.full: fill_value 300 does not fit in uint8"):
        tnp.full(2, 300, dtype=tnp.uint8)
    with pytest.raises(DTypeError, match=r"tnp\.finfo: int64 is not a floating dtype"):
        tnp.finfo(tnp.int64)
    with pytest.raises(DTypeError, match=r"tnp\.iinfo"):
        tnp.iinfo(tnp.float32)
    with pytest.raises(ArgumentError, match=r"tnp\.isdtype: unknown kind 'float'"):
        tnp.isdtype(tnp.float32, "float")
    with pytest.raises(ArgumentError, match=r"tnp\.result_type: pass at least one"):
        tnp.result_type(1, 2.0)
    with pytest.raises(ArgumentError, match=r"tnp\.meshgrid: arrays\[0\] must be 1-D"):
        tnp.meshgrid(tnp.zeros((2, 2)))


def test_from_dlpack():
    a = np.arange(4.0)
    x = tnp.from_dlpack(a)
    a[0] = 7.0
    np.testing.assert_array_equal(np.asarray(x), np.arange(4.0))
    with pytest.raises(ValueError, match="copy=False"):
        tnp.from_dlpack(a, copy=False)
    with pytest.raises(ArgumentError, match=r"tnp\.from_dlpack: x must support __dlpack__"):
        tnp.from_dlpack([1, 2])


def test_asarray_of_a_sequence_with_tracked_arrays_records():
    x, y = tf.variable(np.array(2.0)), tf.variable(np.array([1.0, 3.0]))
    rt = x.runtime
    a = tnp.asarray([[x, 1.0], y])
    assert a.tracks_grad()
    np.testing.assert_array_equal(np.asarray(a), [[2.0, 1.0], [1.0, 3.0]])
    gx, gy = rt.grad(rt.current_session().reduce_sum(a * a), [x, y])
    assert float(np.asarray(gx)) == 4.0
    np.testing.assert_array_equal(np.asarray(gy), [2.0, 6.0])
    assert tnp.asarray([x, 1], dtype=tnp.float32).dtype == tnp.float32
    with pytest.raises(ArgumentError, match=r"tnp\.asarray: cannot stack"):
        tnp.asarray([x, y])


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: tnp.eye(-1), "tnp.eye: n_rows must be a non-negative int, got -1"),
        (lambda: tnp.eye(2, -3), "tnp.eye: n_cols must be a non-negative int, got -3"),
        (lambda: tnp.ones((2, "a")), "tnp.ones: shape must be an int or a tuple of non-negative ints, got (2, 'a')"),
        (lambda: tnp.zeros("ab"), "tnp.zeros: shape must be an int or a tuple of non-negative ints, got 'ab'"),
        (lambda: tnp.full((2, -1), 1.0), "tnp.full: shape must be an int or a tuple of non-negative ints, got (2, -1)"),
        (lambda: tnp.empty(2.0), "tnp.empty: shape must be an int or a tuple of non-negative ints, got 2.0"),
        (lambda: tnp.arange(0, float("inf")), "tnp.arange: stop must be finite, got inf"),
        (lambda: tnp.arange(float("nan")), "tnp.arange: start must be finite, got nan"),
        (lambda: tnp.arange(0, 1e30, 1e-30), "tnp.arange: "),
    ],
    ids=["eye rows", "eye cols", "ones str", "zeros str", "full negative", "empty float", "arange inf", "arange nan"]
    + ["arange too big"],
)
def test_creation_errors_name_the_function_and_the_argument_as_given(call, words):
    with pytest.raises(ArgumentError) as info:
        call()
    assert words in str(info.value)


def test_a_refused_copy_is_a_tenferro_error_and_a_value_error():
    """copy=False where tenferro must copy raised a bare ValueError (the house rule: every
    error is a TenferroError; the standard asks for a ValueError, so it is both)."""
    x = tnp.asarray([1.0, 2.0])
    for call in (
        lambda: tnp.asarray([1, 2], copy=False),
        lambda: tnp.asarray(x, dtype=tnp.float32, copy=False),
        lambda: tnp.from_dlpack(x, copy=False),
    ):
        with pytest.raises(tf.TenferroError, match="copy=False") as info:
            call()
        assert isinstance(info.value, ValueError)
