"""Hypothesis profiles for tenferro's tests and conformance runs.

``dev`` (randomised, 15 examples: the default outside CI, so a plain ``pytest`` costs what
CI's run costs and still tries new examples each time), ``ci`` (the same 15 examples,
derandomised, so a CI run is reproducible), ``thorough`` (randomised, 25 examples: the
heavier run, chosen on purpose) and ``nightly`` (500). Select one with
``TENFERRO_HYPOTHESIS_PROFILE=<name>`` or pytest's ``--hypothesis-profile=<name>``; with
neither, ``ci`` is used when the ``CI`` environment variable is set, else ``dev``.

The examples are the whole difference in cost: the conformance items (4 359 of the suite's
10 560 tests) each run one check per example, and the other tests cost the same in every
profile. tenferro's own sweep of its built-in ops runs :data:`SWEEP_EXAMPLES` per check
under ``dev`` and ``ci`` (at 15 it was 70 % of the suite's time).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE_ENV = "TENFERRO_HYPOTHESIS_PROFILE"

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}

# Built on hypothesis's defaults, not on the profile it has loaded: when it sees a CI
# environment it loads its own derandomised "ci", and "dev" would inherit that.
_DEFAULTS = settings.get_profile("default")
settings.register_profile("dev", _DEFAULTS, max_examples=15, **_COMMON)
settings.register_profile("ci", _DEFAULTS, max_examples=15, derandomize=True, print_blob=True, **_COMMON)
settings.register_profile("thorough", _DEFAULTS, max_examples=25, **_COMMON)
settings.register_profile("nightly", _DEFAULTS, max_examples=500, **_COMMON)

#: Examples per check in tenferro's own sweep of its built-in ops (tests/test_conformance.py)
#: under the everyday profiles, so that ``pytest`` stays within five minutes; a profile not
#: listed (the one hypothesis has loaded: see current_profile) runs its own number there too, as
#: ``tenferro check`` and third-party runs always do.
SWEEP_EXAMPLES = {"dev": 6, "ci": 6}
#: Examples of the ``dask_engine`` check in that sweep under the same profiles: each builds
#: and computes dask graphs (40 ms an example), and two find an op without a path.
ENGINE_SWEEP_EXAMPLES = {"dev": 2, "ci": 2}

#: The profile names, for the command-line options that choose one.
PROFILES = ("dev", "ci", "thorough", "nightly")


def default_profile() -> str:
    return os.environ.get(PROFILE_ENV) or ("ci" if os.environ.get("CI") else "dev")


def load_default_profile() -> str:
    """Load the profile chosen by the environment and return its name."""
    name = default_profile()
    settings.load_profile(name)
    return name


def current_profile() -> str:
    """The name of the profile hypothesis has loaded (``--hypothesis-profile`` included);
    with a hypothesis too old to say, the one the environment chooses."""
    name = getattr(settings, "get_current_profile_name", None)
    return name() if name is not None else default_profile()
