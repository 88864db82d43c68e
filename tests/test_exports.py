"""What tenferro shows a user: ``tf``, ``tf.nn`` and ``tnp`` hold their public names and no
internals, EagerTensor's methods are written on classes (so editors complete them), and
the package says it is typed (PEP 561)."""

import ast
import inspect
import pathlib
import sys
import types

import pytest

import tenferro as tf
import tenferro.numpy as tnp
from tenferro import EagerTensor

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("module", [tf, tf.nn, tnp, tf.optimizers], ids=lambda m: m.__name__)
def test_every_public_name_is_in_all_and_documented_and_nothing_else_is_public(module):
    """A name without an underscore is public API (in ``__all__``, documented) or one of the
    package's own modules (``tf.numpy``, ``tnp.linalg``); imports of internals (``tf.Any``,
    ``tf.optree``, ``tf.nn.np``, ``tf.nn.lift``) are underscored or absent."""
    stray = [
        name
        for name, value in vars(module).items()
        if name.isidentifier()  # not pytest's assertion-rewriting helpers (@py_builtins)
        and not name.startswith("_")
        and name not in module.__all__
        and not (isinstance(value, types.ModuleType) and value.__name__.startswith("tenferro."))
    ]
    assert stray == []
    assert len(set(module.__all__)) == len(module.__all__)
    undocumented = [
        name
        for name in module.__all__
        if callable(getattr(module, name)) and not (inspect.getdoc(getattr(module, name)) or "").strip()
    ]
    assert undocumented == []


#: Set on EagerTensor when tenferro.numpy is imported, by its NumPy dispatch (NumPy's
#: protocols, which NumPy calls, not a user).
INSTALLED = {"__array_ufunc__", "__array_function__"}


def _bound_in_class_body(cls):
    tree = ast.parse(inspect.getsource(sys.modules[cls.__module__]))
    (node,) = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    names = set()
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names |= {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def test_every_method_and_operator_of_eager_tensor_is_written_in_a_class_body():
    """What static completion sees: each attribute EagerTensor has is defined in the body of
    EagerTensor or of a base class (a def, an assignment, a slot), not set by setattr."""
    not_written = []
    for name in dir(EagerTensor):
        owner = next(cls for cls in EagerTensor.__mro__ if name in vars(cls))
        if owner is object or name in ("__doc__", "__module__") or name in owner.__dict__.get("__slots__", ()):
            continue
        if name not in _bound_in_class_body(owner) and name not in INSTALLED:
            not_written.append(f"{owner.__name__}.{name}")
    assert not_written == []
    for name in ("sum", "reshape", "__getitem__", "__mul__", "__rtruediv__", "T", "at", "astype"):
        assert name in dir(EagerTensor) and inspect.getdoc(getattr(EagerTensor, name)), name
    assert EagerTensor.__mul__.__qualname__ == "EagerTensor.__mul__"


def test_the_package_says_it_is_typed_and_ships_the_marker():
    assert (pathlib.Path(tf.__file__).parent / "py.typed").is_file()
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["tenferro"]
