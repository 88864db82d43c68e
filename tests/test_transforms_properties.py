"""Properties that tie the transforms together, on random inputs (the repo's hypothesis
profiles): forward and reverse mode are adjoint (⟨u, J·v⟩ = ⟨Jᵀ·u, v⟩), jacfwd equals
jacrev, and jvp equals a central difference, for functions that mix elementwise, linalg,
reduction and index ops (some with jvp rules, some through the transposed VJP)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tenferro as tf
import tenferro.numpy as tnp

FUNCTIONS = {
    "elementwise": lambda a: tnp.tanh(a) * tnp.exp(-(a**2)) + tnp.sin(a) ** 2,
    "matrix": lambda a: tnp.linalg.solve(a @ a.mT + 3 * tnp.eye(3), a) @ a,
    "reductions": lambda a: tnp.stack([tnp.sum(a**3), tnp.max(a), tnp.prod(a[0] + 2), tnp.linalg.norm(a)]),
    "index-and-sort": lambda a: tnp.sort(a[np.array([2, 0]), 1:] * a[0, 0], axis=-1).reshape(-1),
    "cumulative": lambda a: tnp.cumsum(a * a[::-1], axis=1) / (1 + a[:, :1] ** 2),
}
NP_FUNCTIONS = {
    "elementwise": lambda a: np.tanh(a) * np.exp(-(a**2)) + np.sin(a) ** 2,
    "matrix": lambda a: np.linalg.solve(a @ a.T + 3 * np.eye(3), a) @ a,
    "reductions": lambda a: np.stack([np.sum(a**3), np.max(a), np.prod(a[0] + 2), np.linalg.norm(a)]),
    "index-and-sort": lambda a: np.sort(a[np.array([2, 0]), 1:] * a[0, 0], axis=-1).reshape(-1),
    "cumulative": lambda a: np.cumsum(a * a[::-1], axis=1) / (1 + a[:, :1] ** 2),
}
#: 3×3 matrices of distinct entries at least 0.01 apart (max and sort have no ties within a
#: difference step), in [-2, 2].
matrices = hnp.arrays(np.int64, (3, 3), elements=st.integers(-200, 200), unique=True).map(lambda k: k / 100 + 0.003)


@given(a=matrices, v=matrices, data=st.data(), name=st.sampled_from(sorted(FUNCTIONS)))
def test_forward_and_reverse_mode_are_adjoint_and_match_differences(a, v, data, name):
    f, np_f = FUNCTIONS[name], NP_FUNCTIONS[name]
    out, jv = tf.jvp(f, (a,), (v,))
    np.testing.assert_allclose(np.asarray(out), np_f(a), rtol=1e-10, atol=1e-12)
    u = data.draw(hnp.arrays(np.float64, out.shape, elements=st.floats(-2, 2, allow_nan=False)), label="u")
    (ju,) = tf.vjp(f, a)[1](u)
    np.testing.assert_allclose(np.sum(u * np.asarray(jv)), np.sum(np.asarray(ju) * v), rtol=1e-8, atol=1e-9)
    J = np.asarray(tf.jacfwd(f)(a))
    np.testing.assert_allclose(J, np.asarray(tf.jacrev(f)(a)), rtol=1e-8, atol=1e-10)
    h = 1e-6
    np.testing.assert_allclose(np.asarray(jv), (np_f(a + h * v) - np_f(a - h * v)) / (2 * h), rtol=1e-4, atol=1e-5)
