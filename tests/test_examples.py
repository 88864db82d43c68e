"""The examples in examples/ run as scripts (as a user would run them) and do what they say."""

import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_train_mlp_runs_and_the_loss_goes_down():
    done = subprocess.run([sys.executable, str(EXAMPLES / "train_mlp.py")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    losses = [float(v) for v in re.findall(r"loss ([0-9.]+)", done.stdout)]
    assert len(losses) >= 3, done.stdout
    assert losses[-1] < 0.35 < losses[0], done.stdout  # from log(3) = 1.10 to about 0.19
    assert losses[-1] < min(losses[:-1]) + 0.05, done.stdout


def test_train_value_and_grad_runs_and_the_loss_goes_down():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "train_value_and_grad.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    losses = [float(v) for v in re.findall(r"loss ([0-9.]+)", done.stdout)]
    assert len(losses) >= 3, done.stdout
    assert losses[-1] < 0.2 < 0.5 < losses[0], done.stdout  # from 0.77 to about 0.11


def test_a_value_and_grad_training_loop_keeps_no_history():
    """The example's update leaves parameters that are constants: nothing recorded links a
    step to the one before, so a long loop holds no growing trace."""
    import numpy as np

    sys.path.insert(0, str(EXAMPLES))
    try:
        import train_value_and_grad as example
    finally:
        sys.path.remove(str(EXAMPLES))
    import tenferro as tf

    rng = np.random.default_rng(0)
    x, labels = example.spiral(rng)
    params = example.init(rng)
    for _ in range(2):
        value, grads = tf.value_and_grad(example.loss)(params, x[:50], labels[:50])
        params = tf.tree_map(lambda p, g: p - 0.5 * g, params, grads)
    leaves = [params["hidden"]["W"], params["hidden"]["b"], params["out"]["W"], params["out"]["b"], value]
    assert all(isinstance(p, tf.EagerTensor) and not p.tracks_grad() for p in leaves)
    assert params["hidden"]["W"].shape == (2, example.HIDDEN)


def test_scipy_minimize_with_tenferro_gradients_runs_and_finds_the_hand_written_gradients_minimum():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "scipy_minimize.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    fits = re.findall(r"^(\S+) +loss ([0-9.]+)  max\|w - w_numpy\| (\S+)$", done.stdout, re.MULTILINE)
    assert [method for method, _, _ in fits] == ["L-BFGS-B", "BFGS", "trust-exact"], done.stdout
    assert all(float(gap) <= 1e-8 for _, _, gap in fits), done.stdout
    losses = [float(value) for _, value, _ in fits] + [float(re.search(r"descent +loss ([0-9.]+)", done.stdout)[1])]
    assert max(losses) - min(losses) <= 1e-8 and 0.3 < losses[0] < 0.45, done.stdout  # log 2 = 0.69 at w = 0


def test_optimize_adam_runs_both_forms_to_the_same_parameters_and_the_loss_goes_down():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "optimize_adam.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    losses = [float(v) for v in re.findall(r"^step +\d+ +loss ([0-9.]+)", done.stdout, re.M)]
    assert len(losses) == 7, done.stdout
    assert losses[-1] < 0.01 < 0.5 < losses[0], done.stdout  # from 0.80 to about 0.003 (the noise is 0.0025)
    assert "both forms end on the same parameters: True" in done.stdout, done.stdout


def test_train_jit_runs_the_jitted_loop_to_the_eager_loops_parameters():
    done = subprocess.run([sys.executable, str(EXAMPLES / "train_jit.py")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    losses = [float(v) for v in re.findall(r"loss ([0-9.]+)", done.stdout)]
    assert len(losses) >= 3 and losses[-1] < 0.2 < 0.5 < losses[0], done.stdout
    assert "CacheInfo(hits=598, misses=2, maxsize=64, currsize=2)" in done.stdout, done.stdout  # two batch sizes
    assert "both loops end on the same parameters: True" in done.stdout, done.stdout
