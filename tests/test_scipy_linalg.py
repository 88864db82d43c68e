"""``tenferro.scipy.linalg``: values against scipy.linalg (bitwise where the kernel is the
same LAPACK call), first and second derivatives against finite differences (autograd's
check_grads) and against scipy's own Fréchet derivative, stacks, errors naming the function
and the argument, and ``tenferro.autograd.scipy.linalg``. (The ops solve_sylvester, sqrtm
and lu pass the conformance suite: test_conformance.py.)"""

import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
import tenferro.numpy as tnp
import tenferro.scipy.linalg as tsl
from tenferro import ArgumentError, DTypeError, NotDifferentiable, ShapeMismatch, TenferroError
from tenferro.autograd.test_util import check_grads

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 3))
B = RNG.standard_normal((3, 2))
SPD = A @ A.T + 3 * np.eye(3)
#: eigenvalues in the right half-plane (sqrtm, Sylvester equations far from singular)
RIGHT = np.eye(3) * [1.0, 2.0, 3.0] + 0.3 * RNG.standard_normal((3, 3))
C = A + 1j * RNG.standard_normal((3, 3))
HPD = C @ C.conj().T + 3 * np.eye(3)


def _factored(a):
    packed, piv = sl.lu_factor(a)
    return packed, piv


#: name -> (ours, scipy's, bitwise): the same call on both sides.
VALUES = {
    "solve_triangular": (lambda: tsl.solve_triangular(A, B), lambda: sl.solve_triangular(A, B), True),
    "solve_triangular_lower_T": (
        lambda: tsl.solve_triangular(A, B[:, 0], trans="T", lower=True, unit_diagonal=True),
        lambda: sl.solve_triangular(A, B[:, 0], trans="T", lower=True, unit_diagonal=True),
        True,
    ),
    "cholesky": (lambda: tsl.cholesky(SPD), lambda: sl.cholesky(SPD), True),
    "cholesky_lower": (lambda: tsl.cholesky(SPD, lower=True), lambda: sl.cholesky(SPD, lower=True), True),
    "cho_solve": (lambda: tsl.cho_solve(tsl.cho_factor(SPD), B), lambda: sl.cho_solve(sl.cho_factor(SPD), B), False),
    "lu_u": (lambda: tsl.lu(A)[2], lambda: sl.lu(A)[2], True),
    "lu_wide_l": (lambda: tsl.lu(B.T)[1], lambda: sl.lu(B.T)[1], True),
    "lu_permute_l": (lambda: tsl.lu(B, permute_l=True)[0], lambda: sl.lu(B, permute_l=True)[0], True),
    "lu_p_indices": (lambda: tsl.lu(A, p_indices=True)[0], lambda: sl.lu(A, p_indices=True)[0], True),
    "lu_factor": (lambda: tsl.lu_factor(A)[0], lambda: sl.lu_factor(A)[0], True),
    "lu_factor_piv": (lambda: tsl.lu_factor(A)[1], lambda: sl.lu_factor(A)[1], True),
    "lu_solve": (lambda: tsl.lu_solve(tsl.lu_factor(A), B), lambda: sl.lu_solve(sl.lu_factor(A), B), True),
    "lu_solve_T": (
        lambda: tsl.lu_solve(tsl.lu_factor(A), B[:, 0], trans=1),
        lambda: sl.lu_solve(sl.lu_factor(A), B[:, 0], trans=1),
        False,
    ),
    "sqrtm": (lambda: tsl.sqrtm(RIGHT), lambda: sl.sqrtm(RIGHT), True),
    "sqrtm_complex": (lambda: tsl.sqrtm(RIGHT * 1j), lambda: sl.sqrtm(RIGHT * 1j), True),
    "solve_sylvester": (lambda: tsl.solve_sylvester(RIGHT, SPD, A), lambda: sl.solve_sylvester(RIGHT, SPD, A), True),
    "solve": (lambda: tsl.solve(A, B), lambda: sl.solve(A, B), True),
    "solve_pos": (lambda: tsl.solve(SPD, B, assume_a="pos"), lambda: sl.solve(SPD, B, assume_a="pos"), False),
    "solve_sym_upper": (
        lambda: tsl.solve(np.triu(SPD), B, assume_a="sym"),
        lambda: sl.solve(np.triu(SPD), B, assume_a="sym"),
        False,
    ),
    "expm_small": (lambda: tsl.expm(0.01 * A), lambda: sl.expm(0.01 * A), False),
    "expm": (lambda: tsl.expm(A), lambda: sl.expm(A), False),
    "expm_scaled": (lambda: tsl.expm(20 * A), lambda: sl.expm(20 * A), False),
    "expm_frechet": (lambda: tsl.expm_frechet(A, B @ B.T)[1], lambda: sl.expm_frechet(A, B @ B.T)[1], False),
    "inv": (lambda: tsl.inv(A), lambda: sl.inv(A), False),
    "det": (lambda: tsl.det(A), lambda: sl.det(A), False),
    "eigh_w": (
        lambda: tsl.eigh(np.tril(SPD), eigvals_only=True),
        lambda: sl.eigh(np.tril(SPD), eigvals_only=True),
        False,
    ),
    "eigh_generalised_w": (lambda: tsl.eigvalsh(A + A.T, SPD), lambda: sl.eigvalsh(A + A.T, SPD), False),
    "eigh_subset": (
        lambda: tsl.eigh(SPD, subset_by_index=(1, 2))[0],
        lambda: sl.eigh(SPD, subset_by_index=(1, 2))[0],
        False,
    ),
    "complex_expm": (lambda: tsl.expm(C), lambda: sl.expm(C), False),
    "complex_lu_solve_H": (
        lambda: tsl.lu_solve(tsl.lu_factor(C), B, trans=np.int64(2)),
        lambda: sl.lu_solve(sl.lu_factor(C), B, trans=2),
        False,
    ),
    "complex_cho_solve": (
        lambda: tsl.cho_solve(tsl.cho_factor(HPD), B),
        lambda: sl.cho_solve(sl.cho_factor(HPD), B),
        False,
    ),
    "complex_cholesky": (lambda: tsl.cholesky(np.triu(HPD)), lambda: sl.cholesky(np.triu(HPD)), True),
    "complex_sylvester": (lambda: tsl.solve_sylvester(HPD, HPD, C), lambda: sl.solve_sylvester(HPD, HPD, C), True),
    "complex_lu_l": (lambda: tsl.lu(C)[1], lambda: sl.lu(C)[1], True),
    "svdvals": (lambda: tsl.svdvals(B), lambda: sl.svdvals(B), True),
    "svd_s": (lambda: tsl.svd(B)[1], lambda: sl.svd(B)[1], True),
    "norm": (lambda: tsl.norm(A, 1), lambda: sl.norm(A, 1), True),
    "qr_economic_abs_r": (
        lambda: tnp.abs(tsl.qr(B, mode="economic")[1]),
        lambda: np.abs(sl.qr(B, mode="economic")[1]),
        True,
    ),
    "pinv": (lambda: tsl.pinv(B), lambda: sl.pinv(B), False),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_are_scipys(name):
    """Bitwise where the kernel is scipy's own LAPACK call; else within 1e-13 relative (expm:
    another scaling and squaring than scipy's; the solves composed of two triangular solves)."""
    ours, theirs, bitwise = VALUES[name]
    got, expected = np.asarray(ours()), np.asarray(theirs())
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if bitwise:
        assert got.tobytes() == expected.tobytes()
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13 * np.max(np.abs(expected)))


def test_the_modes_of_qr_and_svd_are_scipys_shapes():
    assert [np.shape(x) for x in tsl.qr(B)] == [(3, 3), (3, 2)]
    assert [np.shape(x) for x in tsl.qr(B, mode="r")] == [(3, 2)]
    assert [np.shape(x) for x in tsl.svd(B, full_matrices=False)] == [(3, 2), (2,), (2, 2)]
    u, s, vh = tsl.svd(B, full_matrices=False)
    np.testing.assert_allclose(np.asarray(u) * np.asarray(s) @ np.asarray(vh), B, atol=1e-14)
    p, lower, upper = tsl.lu(B)
    np.testing.assert_allclose(np.asarray(p) @ np.asarray(lower) @ np.asarray(upper), B, atol=1e-15)


#: name -> (function of the differentiated arrays, the arrays): first and second order,
#: forward and reverse, against central differences.
GRADS = {
    "expm": (lambda a: tsl.expm(a), (0.7 * A,)),
    "expm_scaled": (lambda a: tsl.expm(a), (4 * A,)),
    "expm_frechet": (lambda a, e: tsl.expm_frechet(a, e, compute_expm=False), (A, B @ B.T)),
    "sqrtm": (lambda a: tsl.sqrtm(a), (RIGHT,)),
    "solve_sylvester": (lambda a, b, q: tsl.solve_sylvester(a, b, q), (RIGHT, SPD, A)),
    "lu": (lambda a: tnp.sum(tsl.lu(a)[1] * A) + tnp.sum(tsl.lu(a)[2] * SPD), (A,)),
    "lu_tall": (lambda a: tnp.sum(tsl.lu(a)[1] ** 2) + tnp.sum(tsl.lu(a)[2] ** 3), (B,)),
    "lu_solve": (lambda a, b: tsl.lu_solve(tsl.lu_factor(a), b, trans=1), (A, B)),
    "cho_solve": (lambda a, b: tsl.cho_solve(tsl.cho_factor(a, lower=True), b), (SPD, B)),
    "cholesky_upper_triangle": (lambda a: tsl.cholesky(a), (np.triu(SPD) + np.tril(A, -1),)),
    "solve_triangular": (lambda a, b: tsl.solve_triangular(a, b, trans=2), (SPD, B)),
    "eigh_generalised": (lambda a, b: tsl.eigvalsh(a, b), (A + A.T, SPD)),
    # complex matrices x + iy of real arrays (second order of a complex input is checked
    # through the real and imaginary parts: the real inner product's derivatives)
    "complex_sqrtm": (lambda x, y: tnp.real(tsl.sqrtm(x + 1j * y) * (1 - 2j)), (RIGHT, 0.2 * A)),
    "complex_lu": (lambda x, y: tnp.abs(tsl.lu(x + 1j * y)[2]) ** 2, (A, B @ B.T)),
    "complex_expm": (lambda x, y: tnp.imag(tsl.expm(x + 1j * y)), (0.5 * A, 0.5 * SPD)),
    "solve_pos": (lambda a, b: tsl.solve(a, b, assume_a="pos"), (SPD, B)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_first_and_second_derivatives_match_finite_differences(name):
    f, args = GRADS[name]
    check_grads(f, modes=["fwd", "rev"], order=2)(*args)


def test_the_gradient_of_expm_is_scipys_frechet_derivative():
    """d/dA Σ W∘expm(A) = L(Aᵀ, W), from scipy.linalg.expm_frechet (another algorithm)."""
    w = RNG.standard_normal((3, 3))
    for scale in (0.05, 1.0, 6.0):  # three Padé degrees, with squarings in the last
        a = scale * A
        g = tf.grad(lambda x: tnp.sum(tsl.expm(x) * w))(a)
        np.testing.assert_allclose(np.asarray(g), sl.expm_frechet(a.T, w)[1], rtol=1e-12, atol=1e-12)


def test_stacks_are_scipys_matrix_by_matrix():
    """scipy.linalg's functions take one matrix (or loop); each of ours takes a stack (..., M, N):
    expm picks one Padé degree for the whole stack, from its largest 1-norm."""
    stack = np.stack([0.01 * A, 3 * A, RIGHT])
    for ours, theirs in ((tsl.expm, sl.expm), (tsl.sqrtm, sl.sqrtm), (lambda a: tsl.lu(a)[2], lambda a: sl.lu(a)[2])):
        got = np.asarray(ours(stack[1:] if ours is tsl.sqrtm else stack))
        for i, matrix in enumerate(stack[1:] if ours is tsl.sqrtm else stack):
            np.testing.assert_allclose(got[i], theirs(matrix), rtol=1e-13, atol=1e-13)
    x = tsl.lu_solve(tsl.lu_factor(stack), B)
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(stack, B), rtol=1e-11)


def test_only_the_triangle_scipy_reads_gets_a_gradient():
    g = tf.grad(lambda a: tnp.sum(tsl.cholesky(a)))(SPD)
    assert np.all(np.tril(np.asarray(g), -1) == 0)
    g = tf.grad(lambda a: tnp.sum(tsl.eigh(a, eigvals_only=True) ** 2))(SPD)
    assert np.all(np.triu(np.asarray(g), 1) == 0)


def test_the_permutation_is_a_constant():
    p, _, _ = tsl.lu(tf.variable(A))
    g = tf.grad(lambda a: tnp.sum(tsl.lu(a)[0] * A))(A)
    assert np.all(np.asarray(g) == 0) and np.asarray(p).dtype == np.float64


ERRORS = [
    (lambda: tsl.sqrtm(np.diag([-1.0, 4.0])), DTypeError, "tenferro.scipy.linalg.sqrtm: A has a negative real"),
    (lambda: tsl.sqrtm(np.array([[0.0, 1.0], [0.0, 0.0]])), tsl.SingularMatrix, "sqrtm: A is a singular matrix"),
    (lambda: tsl.sqrtm(A, disp=False), ArgumentError, "tenferro.scipy.linalg.sqrtm: disp=False"),
    (lambda: tsl.solve_sylvester(np.eye(2), -np.eye(2), np.ones((2, 2))), tsl.SingularMatrix, "a and -b have"),
    (lambda: tsl.solve_sylvester(np.eye(2), np.eye(3), np.ones((2, 2))), TenferroError, "q must be (..., 2, 3)"),
    (lambda: tsl.expm(np.array([[np.nan]])), ArgumentError, "tenferro.scipy.linalg.expm: A has nan or inf"),
    (lambda: tsl.expm(B), ShapeMismatch, "tenferro.scipy.linalg.expm: A has shape [3, 2]"),
    (lambda: tsl.cholesky(-SPD), tsl.NotPositiveDefinite, "tenferro.scipy.linalg.cholesky: a is not positive"),
    (lambda: tsl.cho_solve(SPD, B), ArgumentError, "cho_solve: argument 'c_and_lower' must be (c, lower)"),
    (lambda: tsl.lu_solve((A, np.zeros(2, int)), B), ArgumentError, "lu_solve: piv must be lu_factor's"),
    (lambda: tsl.lu_solve(tsl.lu_factor(A), B, trans=3), ArgumentError, "lu_solve: trans must be one of 0, 1, 2"),
    (lambda: tsl.solve(A, B, assume_a="banded"), ArgumentError, "tenferro.scipy.linalg.solve: assume_a must be one of"),
    (lambda: tsl.solve(np.zeros((3, 3)), B), tsl.SingularMatrix, "tenferro.scipy.linalg.solve: a is a singular"),
    (lambda: tsl.solve_triangular(A, B, lower=1), ArgumentError, "solve_triangular: lower must be True or False"),
    (lambda: tsl.solve_triangular(A, B, trans="X"), ArgumentError, "solve_triangular: trans must be"),
    (lambda: tsl.qr(A, mode=np.array(1)), ArgumentError, "tenferro.scipy.linalg.qr: mode must be one of 'full'"),
    (lambda: tsl.qr(A, pivoting=True), ArgumentError, "tenferro.scipy.linalg.qr: pivoting=True"),
    (lambda: tsl.eigh(A, type=2), ArgumentError, "tenferro.scipy.linalg.eigh: type must be 1"),
    (lambda: tsl.eigh(A, subset_by_index=(1, 5)), ArgumentError, "subset_by_index (1, 5) is not within 0 .. 2"),
    (lambda: tsl.lu("x"), ArgumentError, "tenferro.scipy.linalg.lu: argument 'a'"),
    (lambda: tsl.pinv(A, atol=1e-3), ArgumentError, "tenferro.scipy.linalg.pinv: atol and return_rank"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_name_the_function_and_the_argument(index):
    call, error, message = ERRORS[index]
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_no_derivative_where_there_is_none():
    """sqrtm of a singular matrix, lu with a zero pivot: NotDifferentiable naming the op, never inf or nan."""
    with pytest.raises(NotDifferentiable, match="sqrtm: a's root has eigenvalues that sum to zero"):
        tf.grad(lambda a: tnp.sum(tsl.sqrtm(a)))(np.diag([0.0, 1.0]))
    with pytest.raises(NotDifferentiable, match="lu: a has a zero pivot"):
        tf.grad(lambda a: tnp.sum(tsl.lu(a)[2]))(np.array([[1.0, 2.0], [2.0, 4.0]]))


def test_autograd_scipy_linalg_is_scipys_on_plain_values_and_ours_on_tracked_ones():
    import tenferro.autograd as ag
    import tenferro.autograd.numpy as anp
    import tenferro.autograd.scipy.linalg as asl

    assert type(asl.sqrtm(RIGHT)) is np.ndarray  # untracked: scipy's own
    assert asl.lu_factor is not sl.lu_factor and asl.schur is sl.schur  # a name only scipy has
    w = RNG.standard_normal((3, 3))
    g = ag.grad(lambda a: anp.sum(asl.sqrtm(a) * w))(RIGHT)
    x = sl.sqrtm(RIGHT)  # x dx + dx x = da: the gradient is solve_sylvester(xᵀ, xᵀ, w)
    np.testing.assert_allclose(g, sl.solve_sylvester(x.T, x.T, w), rtol=1e-12)
    g = ag.grad(lambda b: anp.sum(asl.solve_triangular(SPD, b, lower=True)))(B)
    np.testing.assert_allclose(g, sl.solve_triangular(SPD, np.ones_like(B), lower=True, trans=1), rtol=1e-13)


def test_the_docs_example_runs():
    import pathlib
    import re

    text = (pathlib.Path(__file__).parents[1] / "docs" / "scipy-linalg.md").read_text(encoding="utf-8")
    (program,) = re.findall(r"```python\n(.*?)```", text, re.S)
    exec(compile(program, "docs/scipy-linalg.md", "exec"), {"__name__": "__main__"})


@pytest.mark.parametrize("assume_a", [None, "gen", "sym", "her", "pos", "lower triangular", "upper triangular"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_transposed_transposes_the_matrix_assume_a_reads(assume_a, lower):
    """scipy transposes the matrix it reads (a's triangle for 'sym'/'her'/'pos', which is its
    own transpose when real; Tᵀ for a triangular one), never a before reading its triangle."""
    a = SPD + np.tril(A, -1) if assume_a == "pos" else A + 4 * np.eye(3)
    got = tsl.solve(a, B, lower=lower, assume_a=assume_a, transposed=True)
    expected = sl.solve(a, B, lower=lower, assume_a=assume_a, transposed=True)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("assume_a", [None, "sym", "her", "pos", "upper triangular"])
def test_solve_transposed_of_a_complex_matrix_solves_the_transposed_system(assume_a):
    """scipy refuses a complex a with transposed=True; ours solves mᵀ x = b, m the matrix it reads."""
    read = {None: C, "sym": np.triu(C) + np.triu(C, 1).T, "her": np.triu(C) + np.triu(C, 1).conj().T}
    read |= {"pos": np.triu(HPD) + np.triu(HPD, 1).conj().T, "upper triangular": np.triu(C)}
    a = HPD + np.tril(A, -1) if assume_a == "pos" else C
    got = tsl.solve(a, B, assume_a=assume_a, transposed=True)
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(read[assume_a].T, B), rtol=1e-12)


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_solve_of_a_stack_of_factors_and_a_vector_b_is_scipys_matrix_by_matrix(trans):
    """A 1-D b beside a stack of factors is one vector for every matrix (as tnp.linalg.solve's)."""
    stack = np.stack([A, SPD])
    got = tsl.lu_solve(tsl.lu_factor(stack), B[:, 0], trans=trans)
    expected = [sl.lu_solve(sl.lu_factor(m), B[:, 0], trans=trans) for m in stack]
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13)


@pytest.mark.parametrize("lower", [False, True])
def test_cho_solve_of_a_stack_of_factors_and_a_vector_b_is_scipys_matrix_by_matrix(lower):
    stack = np.stack([SPD, 2 * SPD + np.eye(3)])
    got = tsl.cho_solve(tsl.cho_factor(stack, lower=lower), B[:, 0])
    expected = [sl.cho_solve(sl.cho_factor(m, lower=lower), B[:, 0]) for m in stack]
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("matrix", ["real", "complex"])
def test_cholesky_and_cho_factor_of_a_non_symmetric_matrix_read_one_triangle_as_scipys(lower, matrix):
    """scipy reads the ``lower`` (upper) triangle alone; the other may hold anything."""
    a = SPD + 0.5 * np.triu(A, 1) if matrix == "real" else HPD + 0.5 * np.tril(C, -1)
    a = a.T if lower else a  # the noise in the triangle not read
    assert np.asarray(tsl.cholesky(a, lower=lower)).tobytes() == sl.cholesky(a, lower=lower).tobytes()
    c, _ = tsl.cho_factor(a, lower=lower)
    triangle = np.tril if lower else np.triu
    np.testing.assert_array_equal(triangle(np.asarray(c)), triangle(sl.cho_factor(a, lower=lower)[0]))
    np.testing.assert_allclose(
        np.asarray(tsl.cho_solve((c, lower), B)), sl.cho_solve(sl.cho_factor(a, lower=lower), B), rtol=1e-13
    )


#: (call, error class, message, argument): each error says what the caller passed.
NAMED = [
    (
        lambda: tsl.expm_frechet(A, A, method="x"),
        ArgumentError,
        "method must be one of None, 'SPS', 'blockEnlarge', got 'x'",
        "method",
    ),
    (
        lambda: tsl.expm_frechet(A, SPD[:2, :2]),
        ShapeMismatch,
        "expm_frechet: A has shape [3, 3] and E has shape [2, 2]",
        "E",
    ),
    (
        lambda: tsl.expm_frechet(A, np.full((3, 3), np.inf)),
        ArgumentError,
        "expm_frechet: E has nan or inf entries",
        "E",
    ),
    (
        lambda: tsl.eigh(SPD, -SPD),
        tsl.NotPositiveDefinite,
        "tenferro.scipy.linalg.eigh: b is not positive definite",
        "b",
    ),
    (
        lambda: tsl.eigh(np.eye(4), SPD),
        ShapeMismatch,
        "eigh: a has shape [4, 4] and b has shape [3, 3]; b must be (4, 4)",
        "b",
    ),
    (
        lambda: tsl.eigvalsh(SPD, np.stack([SPD, -SPD])),
        tsl.NotPositiveDefinite,
        "eigvalsh: b at batch index 1 is not",
        "b",
    ),
    (
        lambda: tsl.cho_solve(tsl.cho_factor(SPD), np.ones(2)),
        ShapeMismatch,
        "cho_solve: c has shape [3, 3] and b has shape [2]",
        "b",
    ),
    (lambda: tsl.cho_solve((np.zeros((3, 3)), False), B), tsl.SingularMatrix, "cho_solve: c is singular", "c"),
    (
        lambda: tsl.lu_solve(tsl.lu_factor(A), np.ones(2)),
        ShapeMismatch,
        "lu_solve: lu has shape [3, 3] and b has shape [2]",
        "b",
    ),
    (lambda: tsl.lu_solve((A, np.zeros(2, int)), B), ArgumentError, "lu_solve: piv must be lu_factor's", "lu_and_piv"),
    (lambda: tsl.solve(A, np.ones(2)), ShapeMismatch, "solve: a has shape [3, 3] and b has shape [2]", "b"),
    (lambda: tsl.solve("x", B), ArgumentError, "tenferro.scipy.linalg.solve: argument 'a' is a str", "a"),
    (lambda: tsl.solve(np.zeros((3, 3)), B), tsl.SingularMatrix, "tenferro.scipy.linalg.solve: a is a singular", "a"),
    (lambda: tsl.solve(-SPD, B, assume_a="pos"), tsl.NotPositiveDefinite, "solve: a is not positive definite", "a"),
    (lambda: tsl.cho_factor(-SPD), tsl.NotPositiveDefinite, "tenferro.scipy.linalg.cho_factor: a is not positive", "a"),
    (lambda: tsl.solve_sylvester(np.eye(2), np.eye(3), np.ones((2, 2))), ShapeMismatch, "q must be (..., 2, 3)", "q"),
    (lambda: tsl.solve_sylvester(np.eye(2), np.eye(2), [[1, np.nan], [0, 0]]), ArgumentError, "q has nan or inf", "q"),
    (
        lambda: tsl.svd(A, lapack_driver="x"),
        ArgumentError,
        "lapack_driver must be one of 'gesdd', 'gesvd', got 'x'",
        "lapack_driver",
    ),
    (lambda: tsl.sqrtm(np.diag([-1.0, 4.0])), DTypeError, "tenferro.scipy.linalg.sqrtm: A has a negative real", "A"),
    (
        lambda: tsl.sqrtm(np.stack([RIGHT, np.eye(3, k=1)])),
        tsl.SingularMatrix,
        "sqrtm: A at batch index 1 is a singular",
        "A",
    ),
    (
        lambda: tsl.sqrtm([[1.0, np.nan], [0.0, 1.0]]),
        ArgumentError,
        "tenferro.scipy.linalg.sqrtm: A has nan or inf",
        "A",
    ),
]


@pytest.mark.parametrize("index", range(len(NAMED)))
def test_errors_name_the_argument_the_caller_passed_in_text_and_field(index):
    call, error, message, argument = NAMED[index]
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value) and info.value.argument == argument


def test_the_op_sqrtm_refuses_nan_as_nonfinite_not_as_singular():
    """scipy's Schur method gives nan for a nan entry, which the op read as a singular matrix."""
    s = tf.default_runtime().current_session()
    with pytest.raises(ArgumentError, match="sqrtm: a at batch index 1 has nan or inf entries"):
        s.sqrtm(tf.constant(np.stack([RIGHT, np.array([[1.0, 0, 0], [0, np.inf, 0], [0, 0, 1]])])))


def test_sqrtms_missing_derivative_names_the_batch_index_from_the_errors_field():
    with pytest.raises(TenferroError, match="sqrtm: a's root at batch index 1 has eigenvalues that sum to zero"):
        tf.grad(lambda a: tnp.sum(tsl.sqrtm(a)))(np.stack([np.eye(2), np.diag([0.0, 1.0])]))
    with pytest.raises(tsl.SingularMatrix) as info:
        tsl.solve_sylvester(np.stack([np.eye(2)] * 3), np.stack([np.eye(2), np.eye(2), -np.eye(2)]), np.ones((2, 2)))
    assert info.value.batch_index == (2,) and "a at batch index 2 and -b" in str(info.value)
