"""The duck array of the engine_neutral check: NumPy's functions work on it and keep it a
duck; what only an ndarray has, or only NumPy arrays allow, raises an error naming the call."""

import re

import numpy as np
import pytest

from tenferro.testing import DuckArray
from tenferro.testing.duck import CoercedToNumPy, MixedWithNumPy

X = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize(
    "compute",
    [
        lambda x: np.sin(x) * 2.0 - x,  # ufuncs and operators
        lambda x: np.add.reduce(x, axis=(0, 1)),  # a full reduction: a 0-d duck, not a NumPy scalar
        lambda x: np.reshape(np.transpose(x), (6,)),
        lambda x: np.astype(x.T, np.float32),
        lambda x: np.concatenate([np.zeros_like(x[:, :1]), x], axis=1),
        lambda x: np.where(x > 2, x, 0.0)[1],
    ],
    ids=["ufuncs", "reduction", "reshape", "astype", "concatenate", "where"],
)
def test_numpy_functions_keep_a_duck_a_duck_with_numpys_values(compute):
    out = compute(DuckArray(X))
    assert isinstance(out, DuckArray)
    expected = np.asarray(compute(X))
    assert out.unwrap().dtype == expected.dtype and out.unwrap().tobytes() == expected.tobytes()


def test_writes_go_through_and_metadata_is_there():
    duck = DuckArray(X.copy())
    duck[0, :] = DuckArray(np.ones(3))
    assert duck.shape == (2, 3) and duck.ndim == 2 and duck.size == 6 and duck.dtype == np.float64
    assert float(np.sum(duck)) == 3.0 + 3 + 4 + 5


@pytest.mark.parametrize(
    "misuse, error, message",
    [
        (lambda x: x.reshape(6), AttributeError, "ndarray.reshape, which another engine's array lacks; use np.reshape"),
        (lambda x: x.flags, AttributeError, "ndarray.flags, which another engine's array lacks; guard it by type(x)"),
        (lambda x: np.asarray(x), CoercedToNumPy, "converted its array argument to a NumPy array"),
        (lambda x: x + np.ones(3), MixedWithNumPy, "NumPy array of its own making (float64[3]) to np.add beside"),
    ],
    ids=["method", "attribute", "asarray", "mixed"],
)
def test_numpy_only_calls_raise_naming_the_call(misuse, error, message):
    with pytest.raises(error, match=re.escape(message)):
        misuse(DuckArray(X))
