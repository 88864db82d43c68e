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
