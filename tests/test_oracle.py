"""The finite-difference oracle itself, on functions whose derivative is known: a zero
derivative converges (also through rounding noise), linear and piecewise-linear functions
give their slope, and leaving the domain is told apart from not converging."""

import numpy as np
import pytest

from tenferro.testing.oracle import CONVERGED, NON_FINITE, fd_directional
from tenferro.testing.strategies import FD_STEP

EPS = np.finfo(np.float64).eps


def _noise(t):
    """A fixed pseudo-random number in [-1, 1] for each t, like the rounding of a computed value."""
    return np.random.default_rng(abs(hash(t)) % 2**32).uniform(-1.0, 1.0)


@pytest.mark.parametrize("c", [3.0, 0.0, -2.5e-7, 1e12])
def test_a_constant_has_a_converged_zero_derivative(c):
    fd = fd_directional(lambda t: c)
    assert (fd.outcome, fd.df, fd.error) == (CONVERGED, 0.0, 0.0)


@pytest.mark.parametrize("ulps", [1, 4, 64])
@pytest.mark.parametrize("c", [3.0, 1e-8, 1e8])
def test_a_constant_with_rounding_noise_has_a_converged_zero_derivative(c, ulps):
    fd = fd_directional(lambda t: c * (1 + ulps * EPS * _noise(t)))
    assert fd.outcome == CONVERGED
    assert abs(fd.df) < 1e-10 * c and fd.error < 1e-10 * c


def test_noisy_terms_that_cancel_are_judged_by_their_own_size():
    """⟨u, F⟩ can be near 0 while its terms are not; their rounding is what FD sees."""
    fd = fd_directional(lambda t: np.array([5.0 * (1 + 8 * EPS * _noise(t)), -5.0]))
    assert fd.outcome == CONVERGED and abs(fd.df) < 1e-9


def test_a_function_that_is_zero_at_the_point_but_not_nearby_converges():
    fd = fd_directional(lambda t: np.array([t * t * (1 + 4 * EPS * _noise(t)), 0.0]))
    assert fd.outcome == CONVERGED and abs(fd.df) < 1e-12


def test_a_linear_function_gives_its_slope():
    fd = fd_directional(lambda t: 2.5 * t - 1.0)
    assert fd.outcome == CONVERGED and fd.df == pytest.approx(2.5, abs=1e-12)


def test_piecewise_functions_give_their_slope_away_from_their_kinks():
    kinks = (4 * FD_STEP, -2 * FD_STEP)  # just beyond the largest step either side
    fd = fd_directional(lambda t: abs(t - kinks[0]) + 2 * max(t - kinks[1], 0.0) + np.sign(t - kinks[0]))
    assert fd.outcome == CONVERGED and fd.df == pytest.approx(-1.0 + 2.0, abs=1e-12)


@pytest.mark.parametrize("f", [np.log, lambda t: np.sqrt(t + FD_STEP / 2), lambda t: np.float64(1.0) / t])
def test_leaving_the_domain_is_reported_as_non_finite_not_as_a_derivative(f):
    fd = fd_directional(f)
    assert fd.outcome == NON_FINITE and not fd.converged
