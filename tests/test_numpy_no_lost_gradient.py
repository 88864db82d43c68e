"""No value silently loses its gradient: every public callable of ``tenferro.numpy``, its
``linalg`` and ``fft`` and ``tenferro.nn`` is called inside ``tf.grad`` with a tracked
value in each float position it takes (an array, a Python float, a list item, a float
keyword), from a small table of sample arguments. Each call must be

- differentiable: a float result tracks the gradient, and the gradient matches central
  finite differences in a random direction; or
- a constant where the function is on the documented list of constant results
  (docs/numpy.md, "Constant results": integer, bool and step-function values, inspection);
  or
- refused with a TenferroError (an ArgumentError when a value would leave the transform).

A silent constant (``tnp.full((3,), a)`` was one, so its gradient was 0 where JAX and
autograd give 3) fails, as does any other error and any callable no sample reaches (add
one to the table). Deterministic and fast: one sample per function, 3x3 at most.
"""

from __future__ import annotations

import inspect
import pathlib
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import TenferroError

RNG = np.random.default_rng(20261201)
V = np.array([0.3, 0.55, 0.8])  # distinct, inside every elementwise domain (acos, atanh, log ...)
W = np.array([0.45, 0.7, 0.35])
V6 = np.linspace(0.2, 0.7, 6)
_B = RNG.normal(size=(3, 3))
M = _B @ _B.T + 3 * np.eye(3)  # symmetric positive definite, well separated eigenvalues
M[0, 1] += 0.25  # and not symmetric: a general square matrix
SPD = _B @ _B.T + 3 * np.eye(3)
R = RNG.normal(size=(2, 3))
I = np.array([3, 5, 6])  # noqa: E741 - integers, for the bitwise functions
MASK = np.array([True, False, True])

#: Sample calls tried in order until one runs on plain (untracked) values, by the number
#: of positional parameters the function requires.
GENERIC: dict[int, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {
    1: [((V,), {}), ((M,), {}), ((I,), {})],
    2: [((V, W), {}), ((M, M), {}), ((M, V), {}), ((I, I), {})],
    3: [((MASK, V, W), {})],
}
#: Sample calls of functions the generic ones do not fit (positions and keywords that
#: take floats are what the sweep tracks).
SAMPLES: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {
    "tnp.acosh": [((V + 1.0,), {})],
    "tnp.arccosh": [((V + 1.0,), {})],
    "tnp.arange": [((0.5, 3.0, 0.75), {})],
    "tnp.asarray": [(([0.5, V[0]],), {})],
    "tnp.astype": [((V, tnp.complex128), {})],
    "tnp.can_cast": [((V, tnp.float64), {})],
    "tnp.broadcast_arrays": [((V, M), {})],
    "tnp.broadcast_to": [((V, (2, 3)), {})],
    "tnp.clip": [((V, 0.4, 0.6), {})],
    "tnp.concat": [(([V, W],), {})],
    "tnp.concatenate": [(([V, W], 0), {})],
    "tnp.diff": [((V,), {"prepend": 0.1, "append": W})],
    "tnp.einsum": [(("ij,jk->ik", M, SPD), {})],
    "tnp.empty": [(((2,),), {})],
    "tnp.expand_dims": [((V, 0), {})],
    "tnp.eye": [((3,), {})],
    "tnp.finfo": [((V,), {})],
    "tnp.full": [(((3,), 0.5), {})],
    "tnp.full_like": [((V, 0.5), {})],
    "tnp.iinfo": [((I,), {})],
    "tnp.__array_namespace_info__": [((), {})],
    "tnp.isdtype": [((tnp.float64, "real floating"), {})],
    "tnp.linspace": [((0.5, 2.0, 4), {})],
    "tnp.meshgrid": [((V, W), {})],
    "tnp.moveaxis": [((M, 0, 1), {})],
    "tnp.ones": [(((2,),), {})],
    "tnp.permute_dims": [((M, (1, 0)), {})],
    "tnp.repeat": [((V, 2), {})],
    "tnp.reshape": [((V6, (2, 3)), {})],
    "tnp.result_type": [((V, 1.0), {})],
    "tnp.roll": [((V, 1), {})],
    "tnp.searchsorted": [((np.sort(V), W), {})],
    "tnp.split": [((V6, 2), {})],
    "tnp.stack": [(([V, W],), {})],
    "tnp.take": [((V, np.array([2, 0])), {})],
    "tnp.take_along_axis": [((M, np.array([[0], [2], [1]])), {"axis": 1})],
    "tnp.tile": [((V, (2,)), {})],
    "tnp.transpose": [((M,), {})],
    "tnp.zeros": [(((2,),), {})],
    "tnp.linalg.cholesky": [((SPD,), {})],
    "tnp.linalg.cross": [((V, W), {})],
    "tnp.linalg.eigh": [((SPD,), {})],
    "tnp.linalg.eigvalsh": [((SPD,), {})],
    "tnp.linalg.matrix_power": [((M, 2), {})],
    "tnp.linalg.matrix_rank": [((M,), {"rtol": 0.01})],
    "tnp.linalg.pinv": [((R,), {"rtol": 1e-3})],
    "tnp.linalg.qr": [((R.T,), {})],
    "tnp.linalg.solve": [((M, V), {})],
    "tnp.linalg.multi_dot": [(([M, R.T, R],), {})],
    "tnp.linalg.tensorinv": [((M,), {"ind": 1})],
    "tnp.linalg.svd": [((R,), {"full_matrices": False})],
    "tnp.linalg.svdvals": [((R,), {})],
    "tnp.linalg.tensordot": [((M, SPD), {})],
    "tnp.tensordot": [((M, SPD), {})],
    "tnp.fft.fftfreq": [((4,), {"d": 0.5})],
    "tnp.fft.rfftfreq": [((4,), {"d": 0.5})],
    "tnp.fft.hfft": [((V + 0j,), {})],
    "tnp.fft.irfft": [((V + 0j,), {})],
    "tnp.fft.irfftn": [((M + 0j,), {})],
    # NumPy's names beyond the array API (tenferro/numpy/_stacking.py, _polynomials.py, ...)
    "tnp.apply_along_axis": [((tnp.sum, 0, M), {})],
    "tnp.bartlett": [((4,), {})],
    "tnp.blackman": [((4,), {})],
    "tnp.hamming": [((4,), {})],
    "tnp.hanning": [((4,), {})],
    "tnp.kaiser": [((4, 2.0), {})],
    "tnp.tri": [((3,), {})],
    "tnp.identity": [((3,), {})],
    "tnp.tril_indices": [((3,), {})],
    "tnp.triu_indices": [((3,), {})],
    "tnp.diag_indices": [((3,), {})],
    "tnp.mask_indices": [((3, np.triu), {})],
    "tnp.ravel_multi_index": [((([0, 1], [1, 2]), (2, 3)), {})],
    "tnp.unpackbits": [((np.array([3], dtype=np.uint8),), {})],
    "tnp.einsum_path": [(("ij,jk", M, M), {})],
    "tnp.fromiter": [(([1.0, 2.0], np.float64), {})],
    "tnp.fromstring": [(("1 2",), {"sep": " "})],
    "tnp.frombuffer": [((b"\x00" * 16,), {})],
    "tnp.apply_over_axes": [((lambda a, axis: tnp.sum(a, axis=axis), M, [0]), {})],
    "tnp.argpartition": [((V, 1), {})],
    "tnp.array_split": [((V6, 4), {})],
    "tnp.bincount": [((np.array([0, 2, 2]), V), {})],
    "tnp.choose": [((np.array([0, 1, 0]), [V, W]), {})],
    "tnp.column_stack": [(([V, W],), {})],
    "tnp.delete": [((V, 1), {})],
    "tnp.dsplit": [((np.ones((1, 2, 4)) * 0.5, 2), {})],
    "tnp.dstack": [(([V, W],), {})],
    "tnp.fromfunction": [((lambda i, j: i * 0.5 + j, (2, 2)), {})],
    "tnp.geomspace": [((0.5, 2.0, 3), {})],
    "tnp.gradient": [((V6, 0.5), {})],
    "tnp.hsplit": [((V6, 2), {})],
    "tnp.hstack": [(([V, W],), {})],
    "tnp.insert": [((V, 1, 0.25), {})],
    "tnp.ldexp": [((V, I), {})],
    "tnp.pad": [((V, 1), {"mode": "reflect"})],
    "tnp.partition": [((V, 1), {})],
    "tnp.piecewise": [((V, [V > 0.5], [tnp.sin, tnp.cos]), {})],
    "tnp.polyfit": [((V, W, 1), {})],
    "tnp.resize": [((V, (2, 2)), {})],
    "tnp.rollaxis": [((M, 1), {})],
    "tnp.select": [(([MASK], [V], 0.5), {})],
    "tnp.swapaxes": [((M, 0, 1), {})],
    "tnp.vsplit": [((M[:2] * 0.5, 2), {})],
    "tnp.vstack": [(([V, W],), {})],
    "tf.nn.layer_norm": [((V, W, V), {"eps": 1e-5})],
    "tf.nn.one_hot": [((I, 7), {})],
    "tf.nn.rms_norm": [((V, W), {})],
    "tf.nn.softplus": [((V,), {"beta": 1.5, "threshold": 20.0})],
}
#: Functions whose every argument is an integer, a bool or a dtype: nothing to track.
NO_FLOAT_ARGUMENT = frozenset(
    {
        "tnp.bitwise_and",
        "tnp.bitwise_invert",
        "tnp.bitwise_left_shift",
        "tnp.bitwise_not",
        "tnp.bitwise_or",
        "tnp.bitwise_right_shift",
        "tnp.bitwise_xor",
        "tnp.invert",
        "tnp.left_shift",
        "tnp.right_shift",
        "tnp.eye",
        "tnp.empty",
        "tnp.ones",
        "tnp.zeros",
        "tnp.iinfo",
        "tnp.isdtype",
        "tnp.__array_namespace_info__",  # takes no argument
        "tf.nn.one_hot",
        # NumPy's integer and shape functions beyond the array API
        "tnp.bitwise_count",
        "tnp.diag_indices",
        "tnp.einsum_path",
        "tnp.frombuffer",
        "tnp.fromfunction",
        "tnp.fromiter",
        "tnp.fromstring",
        "tnp.gcd",
        "tnp.hamming",
        "tnp.hanning",
        "tnp.bartlett",
        "tnp.blackman",
        "tnp.identity",
        "tnp.indices",
        "tnp.lcm",
        "tnp.mask_indices",
        "tnp.packbits",
        "tnp.ravel_multi_index",
        "tnp.tri",
        "tnp.tril_indices",
        "tnp.triu_indices",
        "tnp.unpackbits",
        "tnp.unravel_index",
    }
)
NAMESPACES = {"tnp": tnp, "tnp.linalg": tnp.linalg, "tnp.fft": tnp.fft, "tf.nn": tf.nn}


def _public(label: str, namespace: Any) -> list[str]:
    names = getattr(namespace, "__all__", None) or [n for n in dir(namespace) if not n.startswith("_")]
    return sorted(
        f"{label}.{name}"
        for name in names
        if callable(getattr(namespace, name))
        and not isinstance(getattr(namespace, name), type)
        and getattr(getattr(namespace, name), "__module__", "").startswith("tenferro")  # not NumPy's own (printoptions)
    )


#: Functions that read or write files: nothing to sweep without a file system to touch.
NOT_SWEPT = frozenset({"tnp.load", "tnp.save", "tnp.savez", "tnp.fromfile"})
CALLABLES = [
    name for label, namespace in NAMESPACES.items() for name in _public(label, namespace) if name not in NOT_SWEPT
]


def _function(qualified: str) -> Callable[..., Any]:
    label, _, name = qualified.rpartition(".")
    return getattr(NAMESPACES[label], name)


def documented_constants() -> dict[str, set[str] | None]:
    """The functions docs/numpy.md lists as constant results (the paragraph that starts
    with **Constant results.**), by qualified name: None where every argument is constant,
    else the arguments that are (``tnp.arange`` (in ``stop``))."""
    text = (pathlib.Path(__file__).parents[1] / "docs" / "numpy.md").read_text()
    paragraph = re.search(r"\*\*Constant results\.\*\*(.*?)\n\n", text, re.S)
    assert paragraph, "docs/numpy.md has no paragraph '**Constant results.**'"
    body = " ".join(paragraph.group(1).split())
    listed: dict[str, set[str] | None] = {}
    for names, arguments in re.findall(r"((?:`(?:tnp|tf\.nn)\.[\w.]+`(?:, )?)+)(?: \(in `(\w+)`)?", body):
        for name in re.findall(r"`([\w.]+)`", names):
            listed[name] = {arguments} if arguments else None
    return listed


def parameter(qualified: str, position: Position) -> str:
    """The name of the parameter a position fills."""
    if position[0] == "kw":
        return position[1]
    parameters = list(inspect.signature(_function(qualified)).parameters.values())
    index = position[1]
    for p in parameters[: index + 1]:
        if p.kind is p.VAR_POSITIONAL:
            return p.name
    return parameters[index].name


# -- sample calls ---------------------------------------------------------------------------
def _required(function: Callable[..., Any]) -> int:
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return 2
    return sum(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def sample(qualified: str) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The first sample call of ``qualified`` that runs on plain values, or None."""
    function = _function(qualified)
    for args, kwargs in SAMPLES.get(qualified) or GENERIC.get(_required(function), []):
        try:
            function(*args, **kwargs)
        except TenferroError:
            continue
        return args, kwargs
    return None


#: A float position of a call: ("arg", i), ("item", i, j) of a list argument, ("kw", name).
Position = tuple[Any, ...]


def float_positions(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Position]:
    def floating(value: Any) -> bool:
        return type(value) is float or (isinstance(value, np.ndarray) and value.dtype.kind in "fc")

    found: list[Position] = []
    for i, value in enumerate(args):
        if floating(value):
            found.append(("arg", i))
        elif isinstance(value, list):
            found += [("item", i, j) for j, item in enumerate(value) if floating(item)]
    found += [("kw", name) for name, value in kwargs.items() if floating(value)]
    return found


def value_at(position: Position, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if position[0] == "arg":
        return args[position[1]]
    if position[0] == "item":
        return args[position[1]][position[2]]
    return kwargs[position[1]]


def substituted(position: Position, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    args, kwargs = list(args), dict(kwargs)
    if position[0] == "arg":
        args[position[1]] = value
    elif position[0] == "item":
        args[position[1]] = [*args[position[1]]]
        args[position[1]][position[2]] = value
    else:
        kwargs[position[1]] = value
    return tuple(args), kwargs


def leaves(result: Any) -> list[Any]:
    if isinstance(result, (list, tuple)):
        return [leaf for item in result for leaf in leaves(item)]
    return [result]


def _weights(leaf: Any) -> np.ndarray:
    return np.random.default_rng(leaf.ndim * 7 + leaf.size).uniform(0.5, 1.5, leaf.shape)


def scalar(result: Any) -> Any:
    """A fixed random linear function of the float leaves of a result (real and imaginary
    parts weighed apart), a Python float on plain values."""
    total: Any = 0.0
    for leaf in leaves(result):
        if isinstance(leaf, (tf.EagerTensor, np.ndarray)) and leaf.dtype.kind in "fc":
            w = _weights(leaf)
            total = total + tnp.sum(tnp.real(leaf) * w) + tnp.sum(tnp.imag(leaf) * (2.0 - w))
    return total


# -- the sweep -------------------------------------------------------------------------------
def outcome(qualified: str, args: tuple[Any, ...], kwargs: dict[str, Any], position: Position) -> tuple[str, Any]:
    """("differentiable", (gradient, its finite difference)), ("constant", None) or
    ("refused", the TenferroError) for the call tracked at ``position``."""
    function = _function(qualified)
    seen: list[bool] = []

    def probe(a: Any) -> Any:
        called_args, called_kwargs = substituted(position, a, args, kwargs)
        result = function(*called_args, **called_kwargs)
        seen.append(
            any(
                type(leaf) is tf.EagerTensor and leaf.dtype.kind in "fc" and leaf.tracks_grad()
                for leaf in leaves(result)
            )
        )
        return scalar(result) + 0.0 * tnp.sum(tnp.real(a))

    start = value_at(position, args, kwargs)
    try:
        g = tf.grad(probe)(start)
    except TenferroError as exc:
        return "refused", exc
    except Exception as exc:  # noqa: BLE001 - reported by the test, with the call
        return "raw", exc
    if not seen[-1]:
        return "constant", None
    direction = np.random.default_rng(3).uniform(-1.0, 1.0, np.shape(start))
    h = 1e-6

    def at(t: float) -> float:
        moved = start + t * direction
        called_args, called_kwargs = substituted(
            position, float(moved) if type(start) is float else moved, args, kwargs
        )
        return float(np.asarray(scalar(function(*called_args, **called_kwargs))))

    fd = (at(h) - at(-h)) / (2 * h)
    return "differentiable", (float(np.sum(np.real(np.asarray(g)) * direction)), fd)


def sweep() -> tuple[dict[str, list[tuple[Position, str, Any]]], list[str]]:
    results: dict[str, list[tuple[Position, str, Any]]] = {}
    unsampled = []
    for qualified in CALLABLES:
        found = sample(qualified)
        if found is None:
            unsampled.append(qualified)
            continue
        args, kwargs = found
        results[qualified] = [(p, *outcome(qualified, args, kwargs, p)) for p in float_positions(args, kwargs)]
    return results, unsampled


RESULTS, UNSAMPLED = sweep()


def test_every_public_callable_is_called_with_a_tracked_value():
    assert not UNSAMPLED, f"no sample call runs for {UNSAMPLED}: add one to SAMPLES"
    untracked = sorted(name for name, rows in RESULTS.items() if not rows and name not in NO_FLOAT_ARGUMENT)
    assert not untracked, f"no float position in the sample call of {untracked}: give them one, or list them"
    assert len(RESULTS) > 200


@pytest.mark.parametrize("qualified", sorted(RESULTS))
def test_no_value_silently_loses_its_gradient(qualified):
    constants = documented_constants()
    for position, kind, detail in RESULTS[qualified]:
        where = f"{qualified} tracked in {parameter(qualified, position)!r}"
        if kind == "constant":
            listed = constants.get(qualified, set())
            assert listed is None or parameter(qualified, position) in listed, (
                f"{where} returns a constant: a silent lost gradient. Make it differentiable, refuse it inside "
                f"a transform, or (no derivative by nature) list it under 'Constant results' in docs/numpy.md"
            )
        elif kind == "differentiable":
            got, fd = detail
            assert np.isfinite(fd), f"{where}: the sample is outside the domain (give it one inside, in SAMPLES)"
            assert got == pytest.approx(fd, rel=1e-5, abs=1e-6), f"{where}: gradient {got}, finite differences {fd}"
        else:
            assert kind == "refused", f"{where} raised {type(detail).__name__}: {detail}"


def test_the_documented_constant_results_are_constant():
    """The list in docs/numpy.md says no more than is true: each function on it returns a
    constant for some tracked argument (a function that became differentiable leaves it)."""
    found: dict[str, set[str]] = {}
    for name, rows in RESULTS.items():
        for position, kind, _ in rows:
            if kind == "constant":
                found.setdefault(name, set()).add(parameter(name, position))
    for name, arguments in documented_constants().items():
        assert name in found, f"docs/numpy.md lists {name} as a constant result, but it is not one"
        assert arguments is None or arguments <= found[name], f"{name} is not constant in {arguments - found[name]}"


def test_full_was_a_silent_constant():
    """The hole this sweep exists for: tnp.full's fill value."""
    rows = RESULTS["tnp.full"]
    assert [kind for _, kind, _ in rows] == ["differentiable"]


def test_unique_values_differentiate_in_the_first_element_holding_each():
    """unique_values and the values of unique_all/counts/inverse were constants."""
    x0 = np.array([3.0, 1.0, 3.0, 2.0, 1.0])
    w = np.array([1.0, 10.0, 100.0])

    for function in (tnp.unique_values, lambda x: tnp.unique_all(x).values, lambda x: tnp.unique_counts(x)[0]):
        g = tf.grad(lambda x, f=function: tnp.sum(f(x) * w))(x0)
        np.testing.assert_array_equal(np.asarray(g), [100.0, 1.0, 0.0, 10.0, 0.0])  # jax.grad's: first occurrences
    np.testing.assert_array_equal(np.asarray(tnp.unique_inverse(x0).values), [1.0, 2.0, 3.0])


def test_nextafter_is_refused_inside_a_transform():
    """It was a silent constant: its derivative in x1 is 1, which JAX and PyTorch do not define either."""
    with pytest.raises(tf.ArgumentError, match=r"tnp\.nextafter reads x1 as a NumPy array"):
        tf.grad(lambda x: tnp.sum(tnp.nextafter(x, 2.0)))(V)
    np.testing.assert_array_equal(np.asarray(tnp.nextafter(tf.variable(V), 2.0)), np.nextafter(V, 2.0))


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda x, a: tf.nn.softplus(x, beta=a), "beta"),
        (lambda x, a: tf.nn.softplus(x, threshold=a), "threshold"),
        (lambda x, a: tf.nn.layer_norm(x, eps=a), "eps"),
        (lambda x, a: tf.nn.rms_norm(x, eps=a), "eps"),
    ],
    ids=["softplus beta", "softplus threshold", "layer_norm eps", "rms_norm eps"],
)
def test_an_nn_parameter_taken_as_a_number_is_refused_when_differentiated(call, argument):
    """softplus(threshold=<tracked>) was a silent constant, beta= a KernelError about the kernel."""
    with pytest.raises(tf.ArgumentError, match=rf"tf\.nn\.\w+ reads {argument} as a Python number"):
        tf.grad(lambda a: tnp.sum(call(tnp.asarray(V), a)))(0.5)
    want = np.asarray(call(tnp.asarray(V), 0.5))
    np.testing.assert_array_equal(np.asarray(call(tnp.asarray(V), tnp.asarray(0.5))), want)
