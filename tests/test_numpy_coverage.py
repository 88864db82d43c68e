"""tenferro.numpy covers NumPy's namespace as jax.numpy does (issue 25, item 1): the
coverage figure from a frozen list of names; NumPy's names beyond the array API give
NumPy's values (bitwise where the computation is NumPy's), their gradients agree with
finite differences, and their errors name the function."""

import inspect
import warnings

import numpy as np
import pytest
from conftest import fd_gradient
from hypothesis import given, settings
from hypothesis import strategies as st

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import ArgumentError, TenferroError, UnknownName

#: The callable NumPy names jax.numpy also has (NumPy 2.4, JAX 0.7: functions only, no
#: classes or modules), frozen so that the test needs no jax.
JAX_NUMPY_FUNCTIONS = (
    "abs",
    "absolute",
    "acos",
    "acosh",
    "add",
    "all",
    "allclose",
    "amax",
    "amin",
    "angle",
    "any",
    "append",
    "apply_along_axis",
    "apply_over_axes",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argpartition",
    "argsort",
    "argwhere",
    "around",
    "array",
    "array_equal",
    "array_equiv",
    "array_repr",
    "array_split",
    "array_str",
    "asarray",
    "asin",
    "asinh",
    "astype",
    "atan",
    "atan2",
    "atanh",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "average",
    "bartlett",
    "bincount",
    "bitwise_and",
    "bitwise_count",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "blackman",
    "block",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "can_cast",
    "cbrt",
    "ceil",
    "choose",
    "clip",
    "column_stack",
    "compress",
    "concat",
    "concatenate",
    "conj",
    "conjugate",
    "convolve",
    "copy",
    "copysign",
    "corrcoef",
    "correlate",
    "cos",
    "cosh",
    "count_nonzero",
    "cov",
    "cross",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "deg2rad",
    "degrees",
    "delete",
    "diag",
    "diag_indices",
    "diag_indices_from",
    "diagflat",
    "diagonal",
    "diff",
    "digitize",
    "divide",
    "divmod",
    "dot",
    "dsplit",
    "dstack",
    "ediff1d",
    "einsum",
    "einsum_path",
    "empty",
    "empty_like",
    "equal",
    "exp",
    "exp2",
    "expand_dims",
    "expm1",
    "extract",
    "eye",
    "fabs",
    "fill_diagonal",
    "flatnonzero",
    "flip",
    "fliplr",
    "flipud",
    "float_power",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "frexp",
    "from_dlpack",
    "frombuffer",
    "fromfile",
    "fromfunction",
    "fromiter",
    "frompyfunc",
    "fromstring",
    "full",
    "full_like",
    "gcd",
    "geomspace",
    "get_printoptions",
    "gradient",
    "greater",
    "greater_equal",
    "hamming",
    "hanning",
    "heaviside",
    "histogram",
    "histogram2d",
    "histogram_bin_edges",
    "histogramdd",
    "hsplit",
    "hstack",
    "hypot",
    "i0",
    "identity",
    "imag",
    "indices",
    "inner",
    "insert",
    "interp",
    "intersect1d",
    "invert",
    "isclose",
    "iscomplex",
    "iscomplexobj",
    "isdtype",
    "isfinite",
    "isin",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "isrealobj",
    "isscalar",
    "issubdtype",
    "iterable",
    "ix_",
    "kaiser",
    "kron",
    "lcm",
    "ldexp",
    "left_shift",
    "less",
    "less_equal",
    "lexsort",
    "linspace",
    "load",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logaddexp2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logspace",
    "mask_indices",
    "matmul",
    "matrix_transpose",
    "matvec",
    "max",
    "maximum",
    "mean",
    "median",
    "meshgrid",
    "min",
    "minimum",
    "mod",
    "modf",
    "moveaxis",
    "multiply",
    "nan_to_num",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "ndim",
    "negative",
    "nextafter",
    "nonzero",
    "not_equal",
    "ones",
    "ones_like",
    "outer",
    "packbits",
    "pad",
    "partition",
    "percentile",
    "permute_dims",
    "piecewise",
    "place",
    "poly",
    "polyadd",
    "polyder",
    "polydiv",
    "polyfit",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
    "positive",
    "pow",
    "power",
    "printoptions",
    "prod",
    "promote_types",
    "ptp",
    "put",
    "put_along_axis",
    "quantile",
    "rad2deg",
    "radians",
    "ravel",
    "ravel_multi_index",
    "real",
    "reciprocal",
    "remainder",
    "repeat",
    "reshape",
    "resize",
    "result_type",
    "right_shift",
    "rint",
    "roll",
    "rollaxis",
    "roots",
    "rot90",
    "round",
    "save",
    "savez",
    "searchsorted",
    "select",
    "set_printoptions",
    "setdiff1d",
    "setxor1d",
    "shape",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "size",
    "sort",
    "sort_complex",
    "spacing",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "subtract",
    "sum",
    "swapaxes",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "trace",
    "transpose",
    "trapezoid",
    "tri",
    "tril",
    "tril_indices",
    "tril_indices_from",
    "trim_zeros",
    "triu",
    "triu_indices",
    "triu_indices_from",
    "true_divide",
    "trunc",
    "union1d",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unpackbits",
    "unravel_index",
    "unstack",
    "unwrap",
    "vander",
    "var",
    "vdot",
    "vecdot",
    "vecmat",
    "vsplit",
    "vstack",
    "where",
    "zeros",
    "zeros_like",
)
#: Names tenferro.numpy refuses, with the reason in docs/numpy.md (the in-place writers) or
#: leaves to another family (i0, scipy.special's).
REFUSED = ("fill_diagonal", "place", "put", "put_along_axis")
ELSEWHERE = ("i0",)


def test_the_frozen_list_is_the_343_names():
    assert len(JAX_NUMPY_FUNCTIONS) == 343 == len(set(JAX_NUMPY_FUNCTIONS))
    assert all(callable(getattr(np, name)) for name in JAX_NUMPY_FUNCTIONS)


def test_coverage_is_at_least_95_percent():
    covered = [name for name in JAX_NUMPY_FUNCTIONS if name in tnp.__all__ and hasattr(tnp, name)]
    missing = sorted(set(JAX_NUMPY_FUNCTIONS) - set(covered))
    assert missing == sorted(REFUSED + ELSEWHERE)
    assert len(covered) / len(JAX_NUMPY_FUNCTIONS) >= 0.95  # 338 / 343 = 98.5 %


@pytest.mark.parametrize("name", REFUSED)
def test_an_in_place_writer_says_to_use_at(name):
    with pytest.raises(UnknownName, match=rf"tnp has no '{name}'; write x\.at\["):
        getattr(tnp, name)


def test_the_coverage_figure_in_the_docs_is_this_one():
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "numpy.md").read_text(encoding="utf-8")
    assert "338 of the 343" in text and "98.5 %" in text
    for name in REFUSED + ELSEWHERE:
        assert f"`{name}`" in text


RNG = np.random.default_rng(25)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 3))
V = RNG.standard_normal(5)
W = RNG.standard_normal(3)
P = RNG.uniform(0.5, 2.0, (3, 4))
AN = A.copy()
AN[0, 1] = AN[2, :2] = np.nan
IDX = np.array([0, 2, 1, 2, 4])
COND = A > 0

#: id -> (function name, args, kwargs, bitwise): tnp.<name>(*args) against np.<name>(*args).
VALUES = {
    "hstack": ("hstack", ([A, A],), {}, True),
    "hstack_1d": ("hstack", ([V, W],), {}, True),
    "vstack": ("vstack", ([A, A[0]],), {}, True),
    "dstack": ("dstack", ([A, A],), {}, True),
    "column_stack": ("column_stack", ([V, V],), {}, True),
    "block": ("block", ([[A, A], [A, A]],), {}, True),
    "atleast_1d": ("atleast_1d", (2.0,), {}, True),
    "atleast_2d": ("atleast_2d", (V,), {}, True),
    "atleast_3d": ("atleast_3d", (A,), {}, True),
    "append": ("append", (A, A, 0), {}, True),
    "append_flat": ("append", (A, V), {}, True),
    "array": ("array", ([[1.0, 2.0]],), {"ndmin": 3}, True),
    "copy": ("copy", (A,), {}, True),
    "amax": ("amax", (A, 1), {}, True),
    "amin": ("amin", (A,), {"keepdims": True}, True),
    "around": ("around", (A, 2), {}, True),
    "around_negative": ("around", (A * 100, -1), {}, True),
    "rint": ("rint", (A * 3,), {}, True),
    "fabs": ("fabs", (A,), {}, True),
    "deg2rad": ("deg2rad", (A,), {}, True),
    "rad2deg": ("rad2deg", (A,), {}, True),
    "angle": ("angle", (A + 1j * B.T,), {"deg": True}, True),
    "identity": ("identity", (3,), {}, True),
    "ravel": ("ravel", (A,), {}, True),
    "ravel_f": ("ravel", (A, "F"), {}, True),
    "swapaxes": ("swapaxes", (np.ones((2, 3, 4)), 0, 2), {}, True),
    "rollaxis": ("rollaxis", (np.ones((2, 3, 4)), 2), {}, True),
    "diagonal": ("diagonal", (A, 1), {}, True),
    "trace": ("trace", (A, -1), {}, True),
    "diag": ("diag", (W, 1), {}, True),
    "diag_2d": ("diag", (A, -1), {}, True),
    "diagflat": ("diagflat", (A[:2, :2], -2), {}, True),
    "fliplr": ("fliplr", (A,), {}, True),
    "flipud": ("flipud", (A,), {}, True),
    "rot90": ("rot90", (A, 3), {}, True),
    "delete": ("delete", (A, [0, 2], 1), {}, True),
    "insert": ("insert", (A, [1, 3], [7.0, 8.0], 1), {}, True),
    "insert_one": ("insert", (A, 2, W, 1), {}, True),
    "resize": ("resize", (W, (2, 5)), {}, True),
    "ediff1d": ("ediff1d", (A,), {"to_begin": [1.0], "to_end": 2.0}, True),
    "trim_zeros": ("trim_zeros", (np.array([0.0, 0.0, 1.0, 2.0, 0.0]),), {}, True),
    "pad_reflect": ("pad", (A, ((1, 2), (2, 1))), {"mode": "reflect"}, True),
    "pad_constant": ("pad", (A, 1), {"constant_values": 3.0}, True),
    "inner": ("inner", (A, A), {}, False),
    "vdot": ("vdot", (A, B.T), {}, False),
    "kron": ("kron", (A, W), {}, True),
    "cross": ("cross", (RNG.standard_normal((4, 3)), W), {}, True),
    "cross_axisa": ("cross", (RNG.standard_normal((3, 4)), W), {"axisa": 0}, True),
    "matvec": ("matvec", (A, A[0]), {}, False),
    "vecmat": ("vecmat", (W, A), {}, False),
    "nansum": ("nansum", (AN, 1), {}, True),
    "nanprod": ("nanprod", (AN,), {}, True),
    "nanmean": ("nanmean", (AN, 0), {}, False),
    "nanvar": ("nanvar", (AN, 1), {"ddof": 1}, False),
    "nanstd": ("nanstd", (AN,), {}, False),
    "nanmax": ("nanmax", (AN, 1), {}, True),
    "nanmin": ("nanmin", (AN, 0), {}, True),
    "nanargmax": ("nanargmax", (AN, 1), {}, True),
    "nanargmin": ("nanargmin", (AN,), {}, True),
    "nancumsum": ("nancumsum", (AN, 1), {}, True),
    "nancumprod": ("nancumprod", (AN,), {}, True),
    "nan_to_num": ("nan_to_num", (np.array([np.nan, np.inf, -np.inf, 1.5]),), {}, True),
    "nanmedian": ("nanmedian", (AN, 1), {}, True),
    "nanquantile": ("nanquantile", (AN, [0.2, 0.9], 1), {}, True),
    "nanpercentile": ("nanpercentile", (AN, 30.0), {}, True),
    "quantile": ("quantile", (A, [0.1, 0.5, 0.77], 1), {}, True),
    "quantile_keepdims": ("quantile", (A, 0.3), {"axis": 0, "keepdims": True}, True),
    "percentile": ("percentile", (A, [25.0, 90.0]), {}, True),
    "median": ("median", (A, 1), {}, True),
    "median_even": ("median", (A,), {}, True),
    "average": ("average", (A, 1, P[0]), {}, True),
    "ptp": ("ptp", (A, 0), {}, True),
    "cov": ("cov", (A,), {}, True),
    "cov_weights": ("cov", (A,), {"fweights": [1, 2, 1, 3], "aweights": P[0]}, True),
    "cov_y": ("cov", (A[0], A[1]), {}, True),
    "corrcoef": ("corrcoef", (A,), {}, True),
    "cbrt": ("cbrt", (A,), {}, True),
    "sinc": ("sinc", (np.append(A.ravel(), 0.0),), {}, True),
    "heaviside": ("heaviside", (np.array([-1.0, 0.0, 2.0, np.nan]), 0.5), {}, True),
    "fmax": ("fmax", (AN, A.T[:1].T), {}, True),
    "fmin": ("fmin", (AN, 0.0), {}, True),
    "float_power": ("float_power", (P, 2.5), {}, True),
    "fmod": ("fmod", (A * 5, 1.5), {}, True),
    "modf": ("modf", (np.array([-3.5, -3.0, 0.25, 7.0, np.inf]),), {}, True),
    "frexp": ("frexp", (np.array([0.0, 1e-310, -3.5, 1e300]),), {}, True),
    "ldexp": ("ldexp", (A, np.array([1, -3, 2, 0])), {}, True),
    "logaddexp2": ("logaddexp2", (A, B.T), {}, False),
    "divmod": ("divmod", (A * 5, 1.5), {}, True),
    "polyval": ("polyval", (W, A), {}, True),
    "polyadd": ("polyadd", (W, V), {}, True),
    "polysub": ("polysub", (V, W), {}, True),
    "polymul": ("polymul", (W, V), {}, False),
    "polyder": ("polyder", (V, 2), {}, True),
    "polyint": ("polyint", (V, 2, [1.0, 2.0]), {}, True),
    "polydiv": ("polydiv", (V, W), {}, False),
    "polyfit": ("polyfit", (V, V**3 - V, 3), {}, False),
    "roots": ("roots", (np.array([1.0, -6.0, 11.0, -6.0]),), {}, False),
    "poly": ("poly", (np.array([1.0, 2.0, 3.0]),), {}, False),
    "vander": ("vander", (W, 4), {}, True),
    "convolve": ("convolve", (V, W), {}, False),
    "convolve_same": ("convolve", (W, V, "same"), {}, False),
    "convolve_valid": ("convolve", (V, W, "valid"), {}, False),
    "correlate": ("correlate", (V, W), {}, False),
    "correlate_full": ("correlate", (V, W, "full"), {}, False),
    "correlate_same_short": ("correlate", (W, V, "same"), {}, False),
    "correlate_complex": ("correlate", (V + 1j, W - 2j, "full"), {}, False),
    "interp": ("interp", (np.linspace(-3, 3, 13), np.sort(V), W.repeat(2)[:5]), {}, True),
    "interp_bounds": ("interp", (np.array([-9.0, 0.1, 9.0]), np.sort(V), V), {"left": -1.0, "right": 1.0}, True),
    "interp_period": ("interp", (np.linspace(-7, 7, 9), np.array([0.0, 1.0, 2.5]), W), {"period": 3.0}, True),
    "gradient": ("gradient", (A,), {}, True),
    "gradient_spacing": ("gradient", (V, 0.5), {"edge_order": 2}, True),
    "gradient_coordinates": ("gradient", (V, np.cumsum(P[0, :1].repeat(5)) + np.arange(5.0) ** 2), {}, True),
    "trapezoid": ("trapezoid", (A,), {}, True),
    "trapezoid_x": ("trapezoid", (V, np.arange(5.0) ** 2), {}, True),
    "unwrap": ("unwrap", (np.cumsum(RNG.uniform(0, 3, 12)) % (2 * np.pi),), {}, True),
    "select": ("select", ([A > 0.5, A < -0.5], [A, 2 * A], -1.0), {}, True),
    "piecewise": ("piecewise", (A, [A < 0, A >= 0], [lambda x: -x, lambda x: x**2]), {}, True),
    "choose": ("choose", (np.array([0, 1, 2, 1]), [A[0], A[1], A[2]]), {}, True),
    "compress": ("compress", ([True, False, True], A, 0), {}, True),
    "extract": ("extract", (COND, A), {}, True),
    "argwhere": ("argwhere", (COND,), {}, True),
    "flatnonzero": ("flatnonzero", (COND,), {}, True),
    "sort_complex": ("sort_complex", (np.array([1 + 2j, 1 - 1j, -3 + 0j]),), {}, True),
    "bincount": ("bincount", (IDX,), {}, True),
    "bincount_weights": ("bincount", (IDX, V), {"minlength": 7}, True),
    "unique": ("unique", (np.array([3.0, 1.0, 3.0, 2.0, 1.0]),), {"return_counts": True}, True),
    "unique_axis": ("unique", (np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 5.0]]),), {"axis": 0}, True),
    "union1d": ("union1d", (V, W), {}, True),
    "intersect1d": ("intersect1d", (np.array([1.0, 2.0, 3.0]), np.array([3.0, 1.0, 7.0])), {}, True),
    "setdiff1d": ("setdiff1d", (np.array([5.0, 1.0, 2.0, 3.0]), np.array([3.0, 1.0])), {}, True),
    "setxor1d": ("setxor1d", (np.array([5.0, 1.0, 2.0]), np.array([2.0, 7.0])), {}, True),
    "isin": ("isin", (IDX, [2, 4]), {}, True),
    "digitize": ("digitize", (V, [-1.0, 0.0, 1.0]), {}, True),
    "histogram": ("histogram", (V, 3), {}, True),
    "tril_indices": ("tril_indices", (4, -1), {}, True),
    "ix_": ("ix_", ([0, 1], [2, 3]), {}, True),
    "indices": ("indices", ((2, 3),), {}, True),
    "hamming": ("hamming", (6,), {}, True),
    "kaiser": ("kaiser", (6, 2.5), {}, True),
    "isclose": ("isclose", (A, A + 1e-9), {}, True),
    "gcd": ("gcd", (np.array([12, 18]), 8), {}, True),
    "logspace": ("logspace", (0.0, 2.0, 5), {}, True),
    "geomspace": ("geomspace", (1.0, 1000.0, 4), {}, True),
    "tri": ("tri", (3, 4, 1), {}, True),
    "packbits": ("packbits", (np.array([1, 0, 1, 1], dtype=np.uint8),), {}, True),
    "array_split": ("array_split", (np.arange(7.0), 3), {}, True),
    "hsplit": ("hsplit", (A, 2), {}, True),
    "vsplit": ("vsplit", (B, [1, 3]), {}, True),
    "partition": ("partition", (V, 2), {}, False),
}


def _leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


@pytest.mark.parametrize("case", list(VALUES))
def test_values_are_numpys(case):
    name, args, kwargs, bitwise = VALUES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = getattr(tnp, name)(*args, **kwargs)
        want = getattr(np, name)(*args, **kwargs)
    if name == "partition":  # NumPy promises a partition, tnp gives the sorted array, one of them
        want = np.sort(want)
    if name == "roots":  # tnp's are sorted as tnp.linalg.eigvals sorts eigenvalues, NumPy's in LAPACK's order
        want = np.sort(want)
    got, want = _leaves(got), _leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        if bitwise:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


#: id -> (f of one float64 array, the point): the gradient of sum(f(x)·weights).
GRADIENTS = {
    "hstack": (lambda x: tnp.hstack([x, 2 * x]), A),
    "vstack": (lambda x: tnp.vstack([x, x**2]), A),
    "block": (lambda x: tnp.block([[x, x], [x**2, x]]), A),
    "array_split": (lambda x: tnp.array_split(x, 3)[1], V),
    "diag": (lambda x: tnp.diag(x, 1), W),
    "trace": (lambda x: tnp.trace(x * x), A),
    "rot90": (lambda x: tnp.rot90(x), A),
    "insert": (lambda x: tnp.insert(x, 1, x[:, 0] ** 2, axis=1), A),
    "delete": (lambda x: tnp.delete(x, 1, 0), A),
    "kron": (lambda x: tnp.kron(x, x[0]), A),
    "cross": (lambda x: tnp.cross(x[:, :3], x[::-1, 1:]), A),
    "vdot": (lambda x: tnp.vdot(x, x**2), A),
    "nanmean": (lambda x: tnp.nanmean(x, axis=1), AN),
    "nanvar": (lambda x: tnp.nanvar(x, axis=1), AN),
    "nanmax": (lambda x: tnp.nanmax(x, axis=0), AN),
    "nan_to_num": (lambda x: tnp.nan_to_num(x), AN),
    "quantile": (lambda x: tnp.quantile(x, [0.3, 0.8], axis=1), A),
    "median": (lambda x: tnp.median(x, axis=0), A),
    "nanpercentile": (lambda x: tnp.nanpercentile(x, 35.0, axis=1), AN),
    "average": (lambda x: tnp.average(x, axis=1, weights=x[0] ** 2 + 1), A),
    "cov": (lambda x: tnp.cov(x), A),
    "corrcoef": (lambda x: tnp.corrcoef(x), A),
    "ptp": (lambda x: tnp.ptp(x, axis=1), A),
    "cbrt": (lambda x: tnp.cbrt(x), A),
    "sinc": (lambda x: tnp.sinc(x), A),
    "fmod": (lambda x: tnp.fmod(x * 5, x[0] + 3), A),
    "logaddexp2": (lambda x: tnp.logaddexp2(x, x[::-1]), A),
    "float_power": (lambda x: tnp.float_power(x, 1.5), P),
    "frexp": (lambda x: tnp.frexp(x)[0], P),
    "modf": (lambda x: tnp.modf(x)[0], A + 0.01),
    "polyval": (lambda x: tnp.polyval(x[0], x[1]), A),
    "polyfit": (lambda x: tnp.polyfit(x[0], x[1], 2), A),
    "polydiv": (lambda x: tnp.polydiv(x[0], x[1, :2])[0], A),
    "roots": (lambda x: tnp.roots(tnp.concat([tnp.ones(1), x])), np.array([-6.0, 11.0, -6.0])),
    "vander": (lambda x: tnp.vander(x, 4), W),
    "convolve": (lambda x: tnp.convolve(x[0], x[1, :2], mode="same"), A),
    "correlate": (lambda x: tnp.correlate(x[0], x[1, :3]), A),
    "interp": (lambda x: tnp.interp(x[0] * 0.5, np.sort(V), x[1, :1].repeat(5) * V), A),
    "gradient": (lambda x: tnp.gradient(x, axis=1, edge_order=2), A),
    "trapezoid": (lambda x: tnp.trapezoid(x[1], x=tnp.cumsum(x[0] ** 2)), A),
    "unwrap": (lambda x: tnp.unwrap(x * 4), A),
    "select": (lambda x: tnp.select([A > 0, A < -1], [x, x**2], x * 3), A),
    "piecewise": (lambda x: tnp.piecewise(x, [A > 0], [tnp.log, lambda v: v**2]), A),
    "choose": (lambda x: tnp.choose(np.array([0, 2, 1, 1]), [x[0], x[1], x[2]]), A),
    "bincount": (lambda x: tnp.bincount(IDX, weights=x), V),
    "unique": (lambda x: tnp.unique(tnp.concat([x, x])), V),
    "setdiff1d": (lambda x: tnp.setdiff1d(x, x[:2]), V),
    "pad": (lambda x: tnp.pad(x, 2, mode="symmetric"), A),
    "logspace": (lambda x: tnp.logspace(x[0, 0], x[0, 1], 4), A),
    "apply_along_axis": (lambda x: tnp.apply_along_axis(lambda r: tnp.sum(r**2), 1, x), A),
    "resize": (lambda x: tnp.resize(x, (5, 3)), A),
}


@pytest.mark.parametrize("case", list(GRADIENTS))
def test_gradients_agree_with_finite_differences(case):
    f, x0 = GRADIENTS[case]
    out = np.asarray(f(tnp.asarray(x0)))
    weights = np.random.default_rng(3).standard_normal(out.shape)

    def loss(x):
        return tnp.sum(tnp.real(f(x)) * weights) if out.dtype.kind == "c" else tnp.sum(f(x) * weights)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = np.asarray(tf.grad(loss)(x0))
        want = fd_gradient(lambda a: float(np.asarray(loss(tnp.asarray(a)))), x0)
    finite = np.isfinite(x0)  # nans take no gradient: 0 there
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5, atol=1e-6)
    assert np.all(got[~finite] == 0)


@settings(deadline=None, max_examples=25)
@given(
    st.lists(st.floats(-10, 10), min_size=1, max_size=9),
    st.lists(st.floats(0, 1), min_size=1, max_size=4),
)
def test_quantile_and_median_are_numpys_bitwise(data, q):
    a = np.array(data)
    np.testing.assert_array_equal(np.asarray(tnp.quantile(a, q)), np.quantile(a, q))
    np.testing.assert_array_equal(np.asarray(tnp.median(a)), np.median(a))


@settings(deadline=None, max_examples=25)
@given(
    st.lists(st.floats(-5, 5), min_size=1, max_size=8),
    st.lists(st.floats(-5, 5), min_size=1, max_size=8),
    st.sampled_from(["full", "same", "valid"]),
)
def test_convolve_and_correlate_are_numpys(a, v, mode):
    a, v = np.array(a), np.array(v)
    np.testing.assert_allclose(np.asarray(tnp.convolve(a, v, mode)), np.convolve(a, v, mode), atol=1e-12)
    np.testing.assert_allclose(np.asarray(tnp.correlate(a, v, mode)), np.correlate(a, v, mode), atol=1e-12)


@settings(deadline=None, max_examples=25)
@given(st.lists(st.floats(-5, 5), min_size=2, max_size=8, unique=True), st.lists(st.floats(-6, 6), max_size=6))
def test_interp_is_numpys_bitwise(xp, x):
    xp = np.sort(np.array(xp))
    fp = np.cos(xp)
    np.testing.assert_array_equal(np.asarray(tnp.interp(np.array(x), xp, fp)), np.interp(np.array(x), xp, fp))


def test_the_new_functions_record_through_numpy_dispatch():
    """np.hstack, np.logspace, np.geomspace and np.median were refused on tenferro arrays."""
    g = tf.grad(lambda x: tnp.sum(np.vstack([x, x]) ** 2))(np.ones(3))
    np.testing.assert_array_equal(np.asarray(g), np.full(3, 4.0))
    np.testing.assert_array_equal(np.asarray(tf.grad(lambda x: np.median(x))(np.array([3.0, 1.0, 2.0]))), [0, 0, 1])
    x = tf.variable(np.array([1.0, 2.0]))
    for y in (np.hstack([x, x]), np.logspace(x[0], x[1], 4), np.geomspace(x[0], x[1], 4)):
        assert y.tracks_grad()
    np.testing.assert_array_equal(np.asarray(np.logspace(x[0], x[1], 4)), np.logspace(1.0, 2.0, 4))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: tnp.hstack([A], bogus=1), ArgumentError, r"tnp\.hstack: got an unexpected keyword argument 'bogus'"),
        (lambda: tnp.vsplit(V, 2), ArgumentError, r"tnp\.vsplit: argument 'ary' has 1 dims"),
        (lambda: tnp.array_split(V, 0), ArgumentError, r"tnp\.array_split: argument 'indices_or_sections' is 0"),
        (lambda: tnp.quantile(A, 1.5), ArgumentError, r"tnp\.quantile: argument 'q' must lie in \[0, 1\]"),
        (lambda: tnp.quantile(A, 0.5, method="nearest"), ArgumentError, r"tnp\.quantile: argument 'method'"),
        (lambda: tnp.nansum(A, out=np.zeros(4)), ArgumentError, r"tnp\.nansum: argument 'out' is given"),
        (lambda: tnp.convolve(A, W), ArgumentError, r"tnp\.convolve: a and v must be 1-d"),
        (lambda: tnp.convolve(V, W, "middle"), ArgumentError, r"tnp\.convolve: argument 'mode'"),
        (lambda: tnp.interp(V, W, V), ArgumentError, r"tnp\.interp: xp and fp must be 1-d arrays of the same"),
        (lambda: tnp.bincount(-IDX), ArgumentError, r"tnp\.bincount: argument 'x' holds a negative value"),
        (lambda: tnp.nanargmax(np.full(3, np.nan)), ArgumentError, r"tnp\.nanargmax: argument 'a' has a slice of nans"),
        (lambda: tnp.isin(IDX), ArgumentError, r"tnp\.isin: .*missing 1 required positional argument"),
        (lambda: tnp.pad(A, 1, mode="mean"), ArgumentError, r"tnp\.pad: argument 'mode' is 'mean'"),
        (lambda: tnp.fabs(A + 1j), ArgumentError, r"tnp\.fabs: argument 'x' is complex"),
        (lambda: tnp.trace(np.ones(3)), TenferroError, r"tnp\.trace: "),
        (lambda: tnp.cbrt(A + 1j), TenferroError, r"tnp\.cbrt: argument 'x' has dtype c128"),
        (lambda: tnp.polyfit(V, V, 2, full=True), ArgumentError, r"tnp\.polyfit: full=True and cov=True"),
    ],
)
def test_errors_name_the_function_and_the_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_constants_have_no_gradient_and_numpys_own_are_numpys():
    x = tf.variable(V)
    assert not tnp.digitize(x, [0.0]).tracks_grad()
    counts, edges = tnp.histogram(x.detach(), 3)
    assert not counts.tracks_grad() and not edges.tracks_grad()
    with pytest.raises(ArgumentError, match=r"tnp\.histogram reads its arguments as NumPy arrays, and one tracks"):
        tnp.histogram(x, 3)  # its edges move with the data: a gradient it would lose
    assert tnp.allclose(x, V) is True and tnp.array_equal(x, x) is True
    assert tnp.promote_types is np.promote_types and tnp.printoptions is np.printoptions
    assert tnp.shape(x) == (5,) and tnp.ndim(A) == 2 and tnp.size(A, 1) == 4
    assert not tnp.isscalar(tnp.asarray(1.0)) and tnp.isscalar(1.0) and tnp.iterable(x)


def test_signatures_are_numpys_for_the_arguments_scientists_pass():
    for name in ("hstack", "quantile", "cov", "convolve", "interp", "polyfit", "gradient", "trapezoid", "pad"):
        ours = list(inspect.signature(getattr(tnp, name)).parameters)
        theirs = list(inspect.signature(getattr(np, name)).parameters)
        assert ours[: len(ours)] == [p for p in theirs if p in ours], name


def test_the_docs_example_runs():
    from conftest import run_docs_example

    scope = run_docs_example("## NumPy's namespace beyond the array API")
    assert np.asarray(scope["loss"](tnp.asarray(scope["x"]))).shape == ()


def test_tnp_random_is_numpys_random_module():
    tnp.random.seed(3)
    a = tnp.random.randn(4)
    np.random.seed(3)
    assert type(a) is np.ndarray and np.array_equal(a, np.random.randn(4))
    assert "default_rng" in dir(tnp.random)


def test_numpys_nanvar_with_ddof_records():
    """NumPy dispatch passes ddof on as the array API's correction, which nanvar/nanstd take."""
    x = tf.variable(AN[0])
    np.testing.assert_array_equal(np.asarray(np.nanvar(x, ddof=1)), np.nanvar(AN[0], ddof=1))
    assert np.nanstd(x, ddof=1).tracks_grad()


@pytest.mark.parametrize(
    "call", [lambda: tnp.hanning(1_207_149_860), lambda: tnp.kaiser(2e9 + 0j, 5.0), lambda: tnp.tri(200_000)]
)
def test_a_window_or_tri_too_large_for_the_machine_is_refused_before_numpy_fills_it(call):
    """The bad-input fuzz's hanning(1.2e9) was killed by the kernel: NumPy computes it with
    temporaries of its length (about 29 GB)."""
    from tenferro.numpy._creation import OutOfMemory

    with pytest.raises(OutOfMemory, match=r"more than half this machine's memory"):
        call()


@pytest.mark.parametrize("mode", ["constant", "reflect"])
@pytest.mark.parametrize("width", [1.5, True, np.array(["2020-01-01"], dtype="datetime64[D]"), -1])
def test_pad_refuses_a_width_that_is_not_a_non_negative_integer(width, mode):
    """tnp.pad cast pad_width to int64: 1.5 padded 1 silently, and the fuzz's datetime
    2020-01-01 padded 18 262 on each side (10 GB, 13 s) where NumPy refuses both."""
    with pytest.raises(ArgumentError, match=r"tnp\.pad: pad_width must be non-negative integers"):
        tnp.pad(A, width, mode=mode)


def test_numpys_cov_with_ddof_records():
    """NumPy dispatch renamed ddof to correction for every function, and tnp.cov takes
    NumPy's ddof itself: np.cov(x, ddof=0) was refused as having no equivalent."""
    data = np.random.default_rng(0).random((3, 5))
    x = tf.variable(data)
    np.testing.assert_allclose(np.asarray(np.cov(x, ddof=0)), np.cov(data, ddof=0), rtol=1e-14)
    assert np.cov(x, ddof=0).tracks_grad()
    np.testing.assert_allclose(np.asarray(np.var(x, ddof=1)), np.var(data, ddof=1), rtol=1e-14)
