"""A plugin in the style of 24a8c4a (tests/old_style_plugin.py) loads and passes the whole
conformance suite unchanged: DESIGN §8 keeps the whole-op ``vjp=`` working beside the
rule vocabulary, whatever the loader becomes."""

import numpy as np
import old_style_plugin

from tenferro.testing.checks import CHECKS
from tenferro.testing.conformance import check_plugin, conformance_runtime

RT = conformance_runtime([("old_style", old_style_plugin)])


def test_an_old_style_plugin_passes_every_check_it_has_data_for():
    outcomes = check_plugin("old_style", rt=RT, max_examples=5)
    assert {o.status for o in outcomes} == {"passed"}
    # kinks: it declares none (the field did not exist), nor linearity or forward rules
    unstated = {"kinks", "linear", "multilinear", "jvp", "batch"} | {
        name for name in CHECKS if name.startswith("complex")
    }
    for op in ("old_softplus", "old_sqdiff", "old_sumsq"):
        assert {o.check for o in outcomes if o.op == op} == set(CHECKS) - unstated, op


def test_its_whole_op_rule_handles_a_scalar_operand_and_broadcasting():
    xv, yv = np.array([[1.0], [4.0]]), np.array([0.5, 1.0, 1.5])
    x, y = RT.variable_from(xv), RT.variable_from(yv)
    loss = RT.with_eager_session(
        lambda s: s.add(s.reduce_sum(s.old_sqdiff(x, 2.0), None), s.reduce_sum(s.old_sqdiff(x, y), None))
    )
    loss.backward()
    np.testing.assert_allclose(x.grad().to_numpy(), 2 * (xv - 2.0) + 2 * (xv - yv).sum(1, keepdims=True), rtol=1e-15)
    np.testing.assert_allclose(y.grad().to_numpy(), -2 * (xv - yv).sum(0), rtol=1e-15)
