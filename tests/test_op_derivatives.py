"""Every built-in op: forward against its reference, first and second derivatives against
scipy finite differences, on samples from the op's own hypothesis strategy."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenferro import CpuEngine, EagerRuntime, NotDifferentiable
from tenferro.testing.oracle import check_first_order, check_second_order, differentiable_positions

RT = EagerRuntime(engine=CpuEngine.serial())
SPECS = sorted(RT.registry, key=lambda spec: spec.name)
DIFFERENTIABLE = [spec for spec in SPECS if spec.vjp is not None]
SECOND_ORDER = [spec for spec in DIFFERENTIABLE if spec.second_order]
NO_SECOND_ORDER = [spec for spec in DIFFERENTIABLE if not spec.second_order]


def _ids(specs):
    return [spec.name for spec in specs]


def test_every_spec_has_sample_reference_and_error_inputs():
    for spec in SPECS:
        assert spec.sample is not None, spec.name
        assert spec.reference is not None, spec.name


@pytest.mark.parametrize("spec", SPECS, ids=_ids(SPECS))
@given(data=st.data())
def test_forward_matches_reference(spec, data):
    sample = data.draw(spec.sample())
    out = RT.with_eager_session(lambda s: getattr(s, spec.name)(*map(_const, sample.args), **sample.params))
    expected = np.asarray(spec.reference(*sample.args, **sample.params))
    assert out.shape == expected.shape
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-12, atol=1e-12)


def _const(arg):
    from tenferro import Tensor

    return RT.constant_from(Tensor.from_numpy(arg)) if isinstance(arg, np.ndarray) else arg


def _differentiable_sample(spec, data):
    sample = data.draw(spec.sample())
    if not differentiable_positions(spec, sample):
        sample = None
    return sample, data.draw(st.integers(0, 2**32 - 1))


@pytest.mark.parametrize("spec", DIFFERENTIABLE, ids=_ids(DIFFERENTIABLE))
@given(data=st.data())
def test_first_order_matches_finite_differences(spec, data):
    sample, seed = _differentiable_sample(spec, data)
    if sample is not None:
        result = check_first_order(RT, spec, sample, seed)
        assert result.ok, f"{spec.name}: {result}"


@pytest.mark.parametrize("spec", SECOND_ORDER, ids=_ids(SECOND_ORDER))
@given(data=st.data())
def test_second_order_matches_finite_differences(spec, data):
    sample, seed = _differentiable_sample(spec, data)
    if sample is not None:
        result = check_second_order(RT, spec, sample, seed)
        assert result.ok, f"{spec.name}: {result}"


@pytest.mark.parametrize("spec", NO_SECOND_ORDER, ids=_ids(NO_SECOND_ORDER))
@given(data=st.data())
def test_missing_second_order_raises(spec, data):
    sample, seed = _differentiable_sample(spec, data)
    if sample is not None:
        with pytest.raises(NotDifferentiable, match="has no VJP rule"):
            check_second_order(RT, spec, sample, seed)
