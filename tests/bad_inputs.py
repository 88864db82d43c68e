"""The bad-input fuzz: every public function of tenferro.numpy (with linalg and fft) and
tf.nn, EagerTensor's methods, operators, conversions and indexing, the transforms and the
tensor constructors, called with one argument replaced by a bad value; each exception it
raises is sorted into what the error contract allows (a TenferroError naming what the user
called) and what it does not (a raw Python or NumPy exception; a TenferroError naming
something else).

A :class:`Target` is what a user calls (``tnp.searchsorted``, ``x.sum``, ``operator +``,
``x[key]``, ``tf.grad``) with a valid call (its ``required`` arguments). The fuzz replaces
one argument at a time, or gives one optional argument, each value of :data:`BAD`; and
gives each argument of a namespace function a value a transform tracks
(:func:`tracked_calls`). ``python tests/bad_inputs.py`` prints the counts and every
failure, grouped by site.
"""

from __future__ import annotations

import inspect
import math
import operator
import pathlib
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import EagerRuntime, EagerTensor, TenferroError, Tensor

# -- the values ------------------------------------------------------------------------------
F = tnp.asarray(np.linspace(0.1, 0.6, 6).reshape(2, 3))  # in the domain of every unary function
I = tnp.asarray(np.arange(1, 7).reshape(2, 3))  # noqa: E741 - the integer twin of F
B = F > 0.3
V = tnp.asarray([0.1, 0.2, 0.3])
M = tnp.asarray([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])  # symmetric positive definite
OTHER = EagerRuntime()  # a second runtime, whose tensors may not meet the default runtime's
TRACKED = tf.variable(np.array([0.5, 1.0, 2.0]))


def user_len(value: Any) -> int:
    """``len`` as a function of the user's (given where a transform wants the function to
    transform: what it raises on a bad argument is the user function's own error)."""
    return len(value)


#: The bad values, by kind: each is given in turn to every argument of every target.
BAD: dict[str, list[Any]] = {
    "None": [None],
    "str": ["x", ""],
    "bytes": [b"x"],
    "object": [object(), {}, {1, 2}],
    "callable": [user_len],
    "nested list": [[[1.0], [2.0, 3.0]], [[1.0, [2.0]]], [F, 1.0], [[F, F], F]],
    "empty": [(), [], np.zeros((0,))],
    "bool": [True, np.array([True, False])],
    "integer array": [np.arange(3), np.array([[1, 2], [3, 4]], np.int8)],
    "structured array": [np.zeros(2, dtype=[("a", "f8"), ("b", "i4")])],
    "object array": [np.array([1.0, "a"], dtype=object), np.array([None, None])],
    "datetime array": [np.array(["2020-01-01"], dtype="datetime64[D]")],
    "float16 array": [np.ones(3, np.float16)],
    "huge int": [2**70, 10**30, -(2**70), np.uint64(2**64 - 1)],
    "negative": [-1, -3],
    "float for int": [1.5, -0.5, np.float32(2.0)],
    "nan/inf": [math.nan, math.inf, -math.inf, np.array([math.nan, math.inf])],
    "complex": [1j, np.array([1 + 2j])],
    "not broadcasting": [np.ones((4, 5)), tnp.ones((7,))],
    "0-d": [np.float64(2.0), tnp.asarray(2.0), np.array(3)],
    "wrong rank": [np.ones((2, 2, 2, 2)), tnp.ones((1, 1, 1, 1, 1))],
    "out of range axis": [7, -9],
    "duplicate axes": [(0, 0), (1, -1), [0, 0]],
    "tuple for int": [(1, 2), (1.5,)],
    "array for scalar": [np.ones(3), tnp.ones((2,))],
    "bool tensor": [B],
    "int tensor": [I],
    "complex tensor": [tnp.asarray([1 + 1j, 2 - 1j])],
    "empty tensor": [tnp.zeros((0, 3))],
    "other runtime": [OTHER.constant_from(np.ones((2, 3))), OTHER.variable_from(np.ones(3))],
    "tracked": [TRACKED, tf.variable(np.array(2.0))],
    "Tensor": [Tensor.from_numpy(np.ones(3))],
    "dtype": [np.float16, np.dtype("U3"), np.dtype([("a", "f8")]), np.dtype(object), "float99"],
    "slice": [slice(None), slice(0, 2, 0), slice("a")],
    "Ellipsis": [Ellipsis],
}

#: Extra bad values for the key of ``x[key]`` and ``x.at[key]``.
BAD_KEYS: dict[str, list[Any]] = {
    "too many indices": [(0, 0, 0), (..., 0, 0, 0)],
    "index out of range": [5, -7, [0, 9], np.array([-3])],
    "two ellipses": [(..., ...)],
    "float index": [1.0, [0.5], np.array([1.5]), tnp.asarray([0.5])],
    "mask of another shape": [np.array([True]), np.ones((3, 2), bool), tnp.asarray([True, False, True])],
    "mixed list": [[0, "a"], [0, None], [[0], 1]],
}

#: Functions a transform is given that return what it cannot differentiate.
BAD_FUNCTIONS: dict[str, list[Callable[..., Any]]] = {
    "returns None": [lambda *xs: None],
    "returns a str": [lambda *xs: "s"],
    "returns a vector": [lambda x, *_: tnp.multiply(x, 2.0)],
    "returns a tuple": [lambda x, *_: (tnp.sum(x), 1.0)],
    "returns another runtime's tensor": [lambda *xs: OTHER.constant_from(np.ones(()))],
    "reads its argument": [lambda x, *_: float(tnp.sum(x)), lambda x, *_: np.sum(np.asarray(x))],
    "returns an int": [lambda *xs: 3],
    "returns a complex": [lambda x, *_: tnp.multiply(tnp.sum(x), 1j)],
}


def bad_values(kinds: dict[str, list[Any]]) -> Iterator[tuple[str, Any]]:
    for kind, values in kinds.items():
        for value in values:
            yield kind, value


# -- the targets -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """What a user calls: ``name`` as errors name it, ``call(**arguments)``, a valid call's
    ``required`` arguments, and the ``optional`` ones the fuzz also gives."""

    name: str
    call: Callable[..., Any]
    required: dict[str, Any]
    optional: tuple[str, ...] = ()
    #: Other names an error message may give it by (``tnp.acos`` for ``tnp.arccos``).
    aliases: tuple[str, ...] = ()
    #: Bad values by kind for particular arguments, beside :data:`BAD`.
    extra: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    #: Arguments that are the tensor a method or operator belongs to: given only the bad
    #: values that are tenferro arrays (``x.sum`` of anything else is not tenferro's call).
    tensors: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


#: A valid value of each argument name of the namespace functions.
ARGUMENTS: dict[str, Any] = {
    "x": F,
    "x1": F,
    "x2": F,
    "a": F,
    "b": F,
    "obj": [[1.0, 2.0]],
    "condition": B,
    "arrays": [F, F],
    "arrays_and_dtypes": [F, np.float32],
    "operands": [F, F],
    "shape": (2, 3),
    "fill_value": 1.5,
    "start": 0.0,
    "stop": 1.0,
    "num": 5,
    "n_rows": 3,
    "type": np.float64,
    "from_": np.float32,
    "to": np.float64,
    "dtype": np.float32,
    "kind": "real floating",
    "subscripts": "ij,kj->ik",
    "indices": tnp.asarray([0, 1]),
    "indices_or_sections": 2,
    "repeats": 2,
    "repetitions": (2, 1),
    "source": 0,
    "destination": 1,
    "shift": 1,
    "axes": (1, 0),
    "labels": [0, 2, 1],
    "num_classes": 3,
    "n": 4,
    "axis": 0,
    # NumPy's names beyond the array API (tenferro/numpy/_stacking.py, _polynomials.py, ...)
    "z": F,
    "arr": F,
    "ary": F,
    "arys": [F],
    "tup": [F, F],
    "values": F,
    "v": V,
    "m": F,
    "p": V,
    "f": F,
    "y": F,
    "u": V,
    "a1": V,
    "a2": V,
    "ar": F,
    "ar1": V,
    "ar2": V,
    "filt": V,
    "array": F,
    "object": [[1.0, 2.0]],
    "seq_of_zeros": V,
    "q": 0.5,
    "kth": 1,
    "bins": [0.2, 0.4],
    "pad_width": 1,
    "deg": 1,
    "M": 4,
    "N": 3,
    "beta": 2.0,
    "new_shape": (3, 2),
    "axis1": 0,
    "axis2": 1,
    "choices": [V, V],
    "condlist": [B],
    "choicelist": [F],
    "funclist": [tnp.sin],
    "func": tnp.sum,
    "func1d": tnp.sum,
    "mask_func": np.triu,
    "function": lambda i, j: i + j,
    "dimensions": (2, 3),
    "keys": [V, V],
    "multi_index": ([0, 1], [1, 2]),
    "dims": (2, 3),
    "sample": F,
    "xp": V,
    "fp": V,
    "buffer": b"\x00" * 16,
    "iter": [1.0, 2.0],
    "varargs": [],
    "args": [],
}

_INTEGER_BINARY = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")
#: linalg functions of one square matrix.
_SQUARE = (
    "cholesky",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "slogdet",
    "pinv",
    "qr",
    "svd",
    "svdvals",
    "matrix_rank",
    "matrix_norm",
    "trace",
    "diagonal",
)
#: Valid arguments where the names' defaults do not fit the function.
OVERRIDES: dict[str, dict[str, Any]] = {
    **{f"tnp.{name}": {"x1": I, "x2": I} for name in (*_INTEGER_BINARY, "left_shift", "right_shift")},
    **{f"tnp.{name}": {"x": I} for name in ("bitwise_invert", "bitwise_not", "invert")},
    **{f"tnp.linalg.{name}": {"x": M} for name in _SQUARE},
    "tnp.searchsorted": {"x1": V, "x2": F},
    "tnp.cumulative_sum": {"x": V},
    "tnp.cumulative_prod": {"x": V},
    "tnp.iinfo": {"type": np.int64},
    "tnp.take_along_axis": {"indices": tnp.asarray([[0], [2]])},
    "tnp.dot": {"b": F.T},
    "tnp.matmul": {"x2": F.T},
    "tnp.linalg.matmul": {"x2": F.T},
    "tnp.outer": {"x1": V, "x2": V},
    "tnp.linalg.outer": {"x1": V, "x2": V},
    "tnp.linalg.cross": {"x1": V, "x2": tnp.asarray([0.3, 0.1, 0.2])},
    "tnp.linalg.solve": {"x1": M, "x2": V},
    "tnp.linalg.multi_dot": {"arrays": [M, M, V]},
    "tnp.linalg.tensorsolve": {"a": M, "b": V},
    "tnp.linalg.tensorinv": {"a": tnp.reshape(tnp.eye(4) * 2.0, (2, 2, 2, 2))},
    "tnp.linalg.matrix_power": {"x": M, "n": 2},
    "tnp.meshgrid": {"arrays": [V, V]},
    "tnp.from_dlpack": {"x": np.ones(3)},
    "tnp.arange": {"start": 5},
    "tnp.choose": {"a": tnp.asarray([0, 1, 0])},
    "tnp.polyfit": {"x": V, "y": V},
    "tnp.histogram2d": {"x": V, "y": V},
    "tnp.convolve": {"a": V},
    "tnp.correlate": {"a": V},
    "tnp.extract": {"condition": B},
    "tnp.delete": {"obj": 1},
    "tnp.insert": {"obj": 1, "values": 0.5},
    "tnp.interp": {"x": F},
    "tnp.apply_along_axis": {"axis": 0},
    "tnp.fromiter": {"dtype": np.float64},
    "tnp.fromstring": {"args": ["1 2", np.float64, -1, " "]},
    "tnp.ix_": {"args": [[0, 1]]},
    "tnp.piecewise": {"x": F},
    "tnp.ravel_multi_index": {"multi_index": ([0, 1], [1, 2])},
    "tnp.digitize": {"x": V},
    "tnp.lexsort": {"keys": [V, V]},
    "tnp.diag": {"v": V},
    "tnp.resize": {"a": V},
    "tnp.fromfunction": {"shape": (2, 2)},
    "tnp.tril_indices_from": {"arr": M},
    "tnp.triu_indices_from": {"arr": M},
    "tnp.diag_indices_from": {"arr": M},
    "tnp.apply_over_axes": {"func": lambda a, axis: tnp.sum(a, axis=axis), "a": F, "axes": [0]},
    "tnp.bincount": {"x": tnp.asarray([0, 2, 1])},
    "tnp.bitwise_count": {"x": I},
    "tnp.dsplit": {"ary": tnp.ones((2, 2, 4))},
    "tnp.einsum_path": {"operands": ["ij,jk", F, F.T]},
    "tnp.gcd": {"x1": I, "x2": I},
    "tnp.lcm": {"x1": I, "x2": I},
    "tnp.geomspace": {"start": 1.0, "stop": 8.0},
    "tnp.hsplit": {"ary": tnp.ones((2, 4))},
    "tnp.ldexp": {"x2": I},
    "tnp.packbits": {"a": B},
    "tnp.unpackbits": {"a": tnp.asarray(np.array([3, 7], dtype=np.uint8))},
    "tnp.vander": {"x": V},
    "tnp.vecmat": {"x1": V, "x2": M},
}
#: Functions the fuzz leaves out: they read or write files, whose errors are the file
#: system's (a FileNotFoundError is no argument error of tenferro's).
NOT_FUZZED = ("tnp.load", "tnp.save", "tnp.savez", "tnp.fromfile")
_MODULES = ((tnp, "tnp"), (tnp.linalg, "tnp.linalg"), (tnp.fft, "tnp.fft"), (tf.nn, "tf.nn"))


def _namespace_functions() -> Iterator[tuple[str, Callable[..., Any]]]:
    """Every public function of tenferro.numpy (and its linalg and fft) and tf.nn."""
    for module, prefix in _MODULES:
        for name in sorted(getattr(module, "__all__", None) or dir(module)):
            function = getattr(module, name)
            if name.startswith("_") or inspect.isclass(function) or not callable(function):
                continue
            if not getattr(function, "__module__", "").startswith("tenferro"):
                continue  # a name the module imported (tnp.linalg.NamedTuple)
            if f"{prefix}.{name}" in NOT_FUZZED:
                continue
            yield f"{prefix}.{name}", function


def _caller(function: Callable[..., Any]) -> Callable[..., Any]:
    """``call(**arguments)`` of ``function``: positional-only arguments by position, ``*args``
    from a list, the rest by keyword."""
    parameters = inspect.signature(function).parameters.values()

    def call(**arguments: Any) -> Any:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for p in parameters:
            if p.name not in arguments:
                continue
            value = arguments[p.name]
            if p.kind is p.VAR_POSITIONAL:
                args.extend(value if isinstance(value, list) else [value])
            elif p.kind is p.POSITIONAL_ONLY:
                args.append(value)
            else:
                kwargs[p.name] = value
        return function(*args, **kwargs)

    return call


def function_targets() -> list[Target]:
    functions = list(_namespace_functions())
    names_of: dict[int, list[str]] = {}
    for name, function in functions:
        names_of.setdefault(id(function), []).append(name)
    targets = []
    for name, function in functions:
        given = OVERRIDES.get(name, {})
        required, optional = {}, []
        for p in inspect.signature(function).parameters.values():
            if p.kind is p.VAR_KEYWORD:
                continue
            if p.default is p.empty:
                required[p.name] = given.get(p.name, ARGUMENTS.get(p.name))
            else:
                optional.append(p.name)
        aliases = tuple(n for n in names_of[id(function)] if n != name)  # the same function by another name
        targets.append(Target(name, _caller(function), required, tuple(optional), aliases))
    return targets


def _method_call(method: str) -> Callable[..., Any]:
    def call(x: Any, **arguments: Any) -> Any:
        return getattr(x, method)(**arguments)

    return call


def _positional_method(method: str) -> Callable[..., Any]:
    """``x.method(*args)``: the methods that take NumPy's positional forms."""

    def call(x: Any, args: Any, **arguments: Any) -> Any:
        return getattr(x, method)(*(args if isinstance(args, list) else [args]), **arguments)

    return call


def _at_call(update: str) -> Callable[..., Any]:
    def call(x: Any, key: Any, v: Any) -> Any:
        return getattr(x.at[key], update)(v)

    return call


#: EagerTensor's methods: valid required arguments, the optional ones, and the function
#: whose name their errors may give.
METHODS: dict[str, tuple[dict[str, Any], tuple[str, ...], str]] = {
    **{m: ({}, ("axis", "dtype", "keepdims", "out"), f"tnp.{m}") for m in ("sum", "prod", "mean")},
    **{m: ({}, ("axis", "dtype", "ddof", "keepdims"), f"tnp.{m}") for m in ("std", "var")},
    **{m: ({}, ("axis", "keepdims", "out"), f"tnp.{m}") for m in ("max", "min", "any", "all", "argmax", "argmin")},
    **{m: ({}, ("axis", "dtype", "out"), f"tnp.{m}") for m in ("cumsum", "cumprod")},
    "squeeze": ({}, ("axis",), "tnp.squeeze"),
    "astype": ({"dtype": np.float32}, ("order", "casting", "subok", "copy"), "tnp.astype"),
    "clip": ({}, ("min", "max", "out"), "tnp.clip"),
    "dot": ({"b": F.T}, ("out",), "tnp.dot"),
    "repeat": ({"repeats": 2}, ("axis",), "tnp.repeat"),
    "argsort": ({}, ("axis", "kind", "order"), "tnp.argsort"),
    "copy": ({}, ("order",), "x.copy"),
    "flatten": ({}, ("order",), "tnp.reshape"),
    "ravel": ({}, ("order",), "tnp.reshape"),
    "swapaxes": ({"axis1": 0, "axis2": 1}, (), "tnp.permute_dims"),
    "detach": ({}, ("engine",), "detach"),
    "__array_namespace__": ({}, ("api_version",), "x.__array_namespace__"),
    "__dlpack__": ({}, ("stream", "max_version", "dl_device", "copy"), "x.__dlpack__"),
    "__format__": ({"spec": ""}, (), "format(x"),
    "__round__": ({}, ("ndigits",), "round"),
    "round": ({}, ("decimals", "out"), "tnp.round"),
}
#: Methods called with positional arguments (NumPy's ``x.reshape(3, 2)``).
POSITIONAL_METHODS: dict[str, tuple[list[Any], tuple[str, ...], str]] = {
    "reshape": ([(3, 2)], ("order", "copy"), "tnp.reshape"),
    "transpose": ([1, 0], (), "tnp.permute_dims"),
    "item": ([0], (), "x.item"),
    "to_device": (["cpu"], ("stream",), "x.to_device"),
}
#: Python's conversions of a tensor, a tensor each converts, and how their errors name them.
CONVERSIONS: dict[str, tuple[Callable[[Any], Any], Any, str]] = {
    "float(x)": (float, tnp.asarray(1.5), "float()"),
    "int(x)": (int, tnp.asarray(1.5), "int()"),
    "bool(x)": (bool, tnp.asarray(1.5), "bool()"),
    "complex(x)": (complex, tnp.asarray(1.5), "complex()"),
    "len(x)": (len, V, "len()"),
    "operator.index(x)": (operator.index, tnp.asarray(2), "operator.index"),
    "list(x)": (list, V, "iteration over"),
    "iter(x)": (iter, V, "iteration over"),
}


def method_targets() -> list[Target]:
    x = ("x",)
    targets = [
        Target(f"x.{m}", _method_call(m), {"x": F, **required}, optional, (by,), tensors=x)
        for m, (required, optional, by) in METHODS.items()
    ]
    targets += [
        Target(f"x.{m}", _positional_method(m), {"x": F, "args": args}, optional, (by,), tensors=x)
        for m, (args, optional, by) in POSITIONAL_METHODS.items()
    ]
    keys = {"key": BAD_KEYS}
    targets += [
        Target(f"x.at[key].{u}", _at_call(u), {"x": F, "key": 0, "v": 1.0}, (), ("x.at[",), keys, x)
        for u in ("set", "add", "multiply", "min", "max")
    ]
    targets.append(Target("x[key]", lambda x, key: x[key], {"x": F, "key": 0}, (), ("x[",), keys, x))
    targets += [
        Target(name, lambda x, f=f: f(x), {"x": valid}, (), (by,), tensors=x)
        for name, (f, valid, by) in CONVERSIONS.items()
    ]
    return targets


#: The binary operators (as errors name them), a valid pair of operands of each, and the
#: names an error may give it by: the ufunc a NumPy array on the left calls (which
#: dispatches to tenferro.numpy), and the mirrored comparison Python tries second
#: (``object() < x`` is ``x > object()``).
OPERATORS: dict[str, tuple[Callable[[Any, Any], Any], Any, Any, tuple[str, ...]]] = {
    "+": (operator.add, F, F, ("tnp.add",)),
    "-": (operator.sub, F, F, ("tnp.subtract",)),
    "*": (operator.mul, F, F, ("tnp.multiply", "operator.index")),  # "s" * x: str repetition asks x for an index
    "/": (operator.truediv, F, F, ("tnp.divide",)),
    "//": (operator.floordiv, F, F, ("tnp.floor_divide",)),
    "%": (operator.mod, F, F, ("tnp.remainder",)),
    "**": (operator.pow, F, F, ("tnp.pow",)),
    "@": (operator.matmul, F, F.T, ("tnp.matmul",)),
    "&": (operator.and_, I, I, ("tnp.bitwise_and",)),
    "|": (operator.or_, I, I, ("tnp.bitwise_or",)),
    "^": (operator.xor, I, I, ("tnp.bitwise_xor",)),
    "<<": (operator.lshift, I, I, ("tnp.bitwise_left_shift",)),
    ">>": (operator.rshift, I, I, ("tnp.bitwise_right_shift",)),
    "<": (operator.lt, F, F, ("tnp.less", "operator >")),
    "<=": (operator.le, F, F, ("tnp.less_equal", "operator >=")),
    ">": (operator.gt, F, F, ("tnp.greater", "operator <")),
    ">=": (operator.ge, F, F, ("tnp.greater_equal", "operator <=")),
    "==": (operator.eq, F, F, ("tnp.equal",)),
    "!=": (operator.ne, F, F, ("tnp.not_equal",)),
}
UNARY_OPERATORS: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "-": (operator.neg, F),
    "+": (operator.pos, F),
    "~": (operator.invert, I),
}


def operator_targets() -> list[Target]:
    targets = [
        Target(f"operator {symbol}", lambda x, y, op=op: op(x, y), {"x": x, "y": y}, (), aliases)
        for symbol, (op, x, y, aliases) in OPERATORS.items()
    ]
    targets += [
        Target(f"operator {symbol}", lambda x, op=op: op(x), {"x": x}, tensors=("x",))
        for symbol, (op, x) in UNARY_OPERATORS.items()
    ]
    targets.append(Target("abs()", lambda x: abs(x), {"x": F}, tensors=("x",)))
    # divmod(x, y) is the pair (x // y, x % y)
    targets.append(
        Target("divmod", lambda x, y: divmod(x, y), {"x": F, "y": F}, (), ("tnp.floor_divide", "tnp.remainder"))
    )
    return targets


def _sum_squares(x: Any, *rest: Any) -> Any:
    return tnp.sum(tnp.multiply(x, x))  # tenferro's functions only: whatever x is, they answer for it


def _twice(x: Any) -> Any:
    return tnp.multiply(x, 2.0)


def _transformed(transform: Callable[..., Any]) -> Callable[..., Any]:
    """``transform(fun, **options)(primal)``: a transform of ``jax.grad``'s form."""

    def call(fun: Any, primal: Any, **options: Any) -> Any:
        return transform(fun, **options)(primal)

    return call


def _vjp(fun: Any, primal: Any, cotangent: Any, **options: Any) -> Any:
    _, f_vjp = tf.vjp(fun, primal, **options)
    return f_vjp(cotangent)


def _linearize(fun: Any, primal: Any, tangent: Any, **options: Any) -> Any:
    _, f_jvp = tf.linearize(fun, primal, **options)
    return f_jvp(tangent)


def _jvp(fun: Any, primals: Any, tangents: Any, **options: Any) -> Any:
    return tf.jvp(fun, primals, tangents, **options)


def _hvp(fun: Any, primals: Any, tangents: Any, **options: Any) -> Any:
    return tf.hvp(fun, primals, tangents, **options)


def _transform_names(transform: str) -> tuple[str, ...]:
    """How errors name a transform: ``grad: ...``, or a read refused inside it (``np.asarray(x):
    ... the arguments grad is differentiating``), or the tenferro function that refused a
    value inside the transformed function (``tnp.multiply: ...``)."""
    return (f"{transform}:", f"the arguments {transform} is differentiating", "tnp.")


def transform_targets() -> list[Target]:
    functions = {"fun": BAD_FUNCTIONS}
    primal = np.array([0.5, 1.0, 2.0])
    options = ("argnums", "has_aux", "holomorphic", "engine")
    targets = [
        Target(
            f"tf.{name}",
            _transformed(getattr(tf, name)),
            {"fun": _sum_squares, "primal": primal},
            options,
            _transform_names(getattr(tf, name).__name__),
            functions,
        )
        for name in ("grad", "value_and_grad", "jacrev", "jacobian", "jacfwd", "hessian")
    ]
    one = {"fun": _twice, "primal": primal}
    pair = {"primals": (primal,), "tangents": (primal,)}
    forward = ("has_aux", "engine")
    targets += [
        Target("tf.vjp", _vjp, {**one, "cotangent": primal}, forward, _transform_names("vjp"), functions),
        Target(
            "tf.linearize", _linearize, {**one, "tangent": primal}, forward, _transform_names("linearize"), functions
        ),
        Target("tf.jvp", _jvp, {"fun": tnp.sin, **pair}, forward, _transform_names("jvp"), functions),
        Target("tf.hvp", _hvp, {"fun": _sum_squares, **pair}, ("engine",), _transform_names("hvp"), functions),
    ]
    return targets


def tensor_targets() -> list[Target]:
    loss = tnp.sum(tnp.multiply(TRACKED, TRACKED))
    return [
        Target("Tensor.from_vec_col_major", Tensor.from_vec_col_major, {"shape": [2, 3], "data": list(range(6))}),
        Target("Tensor.from_numpy", Tensor.from_numpy, {"array": np.ones(3)}),
        Target("tf.variable", tf.variable, {"a": np.ones(3)}),
        Target("tf.constant", tf.constant, {"a": np.ones(3)}),
        Target("backward", lambda loss: loss.backward(), {"loss": loss}, tensors=("loss",)),
        Target(
            "backward_with",
            lambda out, v: out.backward_with(v),
            {"out": TRACKED * 2.0, "v": Tensor.from_numpy(np.ones(3))},
            (),
            (),
            {},
            ("out",),
        ),
    ]


def _update(name: str) -> Callable[..., Any]:
    """``opt.update(grads, state, params)`` of ``tf.optimizers.<name>()``, its state made from params."""

    def call(grads: Any, params: Any, **hyper: Any) -> Any:
        opt = getattr(tf.optimizers, name)(**hyper)
        return opt.update(grads, opt.init(np.ones(3)), params)

    return call


def optimizer_targets() -> list[Target]:
    """tf.flatten, each optimizer's hyper-parameters, init and update, apply_updates and the drivers."""
    hyper = {
        "sgd": ("step_size", "momentum", "nesterov"),
        "rmsprop": ("step_size", "gamma", "eps", "initial_scale"),
        "adam": ("step_size", "b1", "b2", "eps"),
        "adamw": ("step_size", "b1", "b2", "eps", "weight_decay"),
    }
    targets = [
        Target("tf.flatten", tf.flatten, {"tree": [F, 1.0]}),
        Target("unflatten", lambda v: tf.flatten([F, 1.0])[1](v), {"v": np.ones(7)}),
        Target("tf.optimizers.apply_updates", tf.optimizers.apply_updates, {"params": F, "updates": F}),
    ]
    for name, options in hyper.items():
        full = f"tf.optimizers.{name}"
        targets.append(Target(full, getattr(tf.optimizers, name), {}, options))
        targets.append(
            Target(f"{full}.init", lambda params, name=name: getattr(tf.optimizers, name)().init(params), {"params": F})
        )
        targets.append(Target(f"{full}.update", _update(name), {"grads": np.ones(3), "params": np.ones(3)}))
    gradient = {"grad": lambda x, i: x, "x": np.ones(3)}
    for name in ("sgd", "rmsprop", "adam"):
        driver = getattr(tf.optimizers.drivers, name)
        options = tuple(p for p in inspect.signature(driver).parameters if p not in gradient)
        targets.append(Target(f"tf.optimizers.drivers.{name}", driver, gradient, options))
    return targets


def all_targets() -> list[Target]:
    return [
        *function_targets(),
        *method_targets(),
        *operator_targets(),
        *transform_targets(),
        *tensor_targets(),
        *optimizer_targets(),
    ]


# -- the fuzz --------------------------------------------------------------------------------
@dataclass
class Failure:
    """One call that broke the contract: what was called, and what it raised."""

    target: str
    argument: str
    kind: str
    value: Any
    exception: BaseException

    def __str__(self) -> str:
        shown = repr(self.value).replace("\n", " ")
        shown = shown if len(shown) < 60 else shown[:57] + "..."
        message = str(self.exception).replace("\n", " ")[:200]
        return f"{self.target}({self.argument}={shown}) [{self.kind}]: {type(self.exception).__name__}: {message}"


@dataclass
class Tally:
    """The fuzz's counts: calls made, and the failures of each sort."""

    calls: int = 0
    raw: list[Failure] = field(default_factory=list)
    unnamed: list[Failure] = field(default_factory=list)

    def sites(self) -> set[tuple[str, str]]:
        """(target, argument) of every failure."""
        return {(f.target, f.argument) for f in (*self.raw, *self.unnamed)}


def calls(target: Target) -> Iterator[tuple[str, str, Any, dict[str, Any]]]:
    """Every fuzzed call of ``target``: (argument, kind of bad value, value, arguments)."""
    for argument in (*target.required, *target.optional):
        for kind, value in bad_values({**BAD, **target.extra.get(argument, {})}):
            if argument in target.tensors and type(value) is not EagerTensor:
                continue
            yield argument, kind, value, {**target.required, argument: value}


PACKAGE = pathlib.Path(tf.__file__).parent


def raised_in_tenferro(exc: BaseException) -> bool:
    """Whether tenferro's code raised ``exc``: from where it was raised outward, past the
    libraries tenferro calls (NumPy's Python, SciPy's), the first frame is tenferro's. Python's
    own TypeError once every operand of an operator returned NotImplemented (``x + None``, the
    protocol that lets another type's reflected operator answer), NumPy's refusal of a NumPy
    operand before it asks tenferro (``structured_array == x``) and what a user's function
    raises while a transform runs it (:func:`user_len`) are not tenferro's."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = pathlib.Path(frame.filename)
        if path.is_relative_to(PACKAGE):
            return True
        if "site-packages" not in path.parts and not path.is_relative_to(STDLIB):
            return False  # the user's (this fuzz's) own code raised it
    return False


#: Python's own library, whose frames (like NumPy's) are passed on the way out to the caller.
STDLIB = pathlib.Path(traceback.__file__).parent


def attempt(target: Target, argument: str, kind: str, value: Any, arguments: dict[str, Any], tally: Tally) -> None:
    """One call of ``target``, its exception (if any) sorted into ``tally``."""
    tally.calls += 1
    try:
        target.call(**arguments)
    except TenferroError as exc:
        if not any(name in str(exc) for name in target.names()):
            tally.unnamed.append(Failure(target.name, argument, kind, value, exc))
    except Exception as exc:  # noqa: BLE001 - what the fuzz is for
        if raised_in_tenferro(exc):
            tally.raw.append(Failure(target.name, argument, kind, value, exc))


def fuzz(target: Target, tally: Tally) -> Tally:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a NumPy warning for a bad value is not a failure
        for argument, kind, value, arguments in calls(target):
            attempt(target, argument, kind, value, arguments, tally)
    return tally


def _tracked_call(target: Target, argument: str, primal: Any) -> Target:
    """``target`` with ``argument`` given the value ``tf.vjp`` tracks (its errors may name vjp)."""

    def call(**arguments: Any) -> Any:
        return tf.vjp(lambda t: target.call(**{**arguments, argument: t}), primal)

    return Target(target.name, call, target.required, (), (*target.aliases, *_transform_names("vjp")[:2]))


#: The values a transform tracks, as given to an argument that needs a constant.
TRACKED_PRIMALS: dict[str, Any] = {"tracked 0-d": np.array(2.0), "tracked 1-d": np.array([1.0, 2.0])}


def tracked_calls(target: Target, tally: Tally) -> Tally:
    """Each argument of ``target`` given a value a transform tracks: the call differentiates
    or refuses with a TenferroError, never reads it as a constant silently (the refusal is
    what must be named here; a silent constant is item 1's check, not this fuzz's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for argument in (*target.required, *target.optional):
            for kind, primal in TRACKED_PRIMALS.items():
                attempt(_tracked_call(target, argument, primal), argument, kind, primal, target.required, tally)
    return tally


def main() -> None:
    tally = Tally()
    for target in all_targets():
        fuzz(target, tally)
    for target in function_targets():
        tracked_calls(target, tally)
    for label, failures in (("RAW", tally.raw), ("UNNAMED", tally.unnamed)):
        sites: dict[tuple[str, str], list[Failure]] = {}
        for failure in failures:
            sites.setdefault((failure.target, failure.argument), []).append(failure)
        print(f"{label}: {len(failures)} at {len(sites)} sites")
        for (target, argument), found in sites.items():
            print(f"{label} {target} {argument} x{len(found)} {sorted({f.kind for f in found})}: {found[0]}")
    print(f"{tally.calls} calls; {len(tally.raw)} raw errors; {len(tally.unnamed)} naming another function")


if __name__ == "__main__":
    main()
