"""The core's modules form layers a reader can name, each importing only those below, and
the core imports nothing from the layers above it (plugins, the test suite, extend), but
EagerTensor's two base classes of the front end, which import nothing above the core."""

import ast
import pathlib

import tenferro

CORE = pathlib.Path(tenferro.__file__).parent / "core"

#: Bottom to top. A module may import (at run time) only modules of lower layers.
LAYERS = [
    ("errors and plain values", {"errors", "params", "rules"}),
    (
        "tensors, engines, the recording switch, vmap's trace and plain arguments",
        {"tensor", "engine", "recording", "tracing", "arguments"},
    ),
    ("op specs", {"spec"}),
    ("the trace", {"trace"}),
    ("the graph, the registry and the core's two ops", {"graph", "registry", "accumulate", "alias"}),
    ("what the runtime and the session offer below them, and the plugin hooks", {"protocols", "hookspecs"}),
    ("the eager tensor and plugin loading", {"eager", "loading"}),
    ("the arrays a transform borrows", {"borrowed"}),
    ("the words for what an op's call or rules got wrong", {"call_errors", "rule_errors"}),
    ("calling an op", {"call"}),
    ("the op", {"op"}),
    ("the session", {"session"}),
    ("the reverse sweep", {"sweep"}),
    ("forward mode", {"forward"}),
    ("the runtime", {"runtime"}),
]
LAYER_OF = {module: index for index, (_, modules) in enumerate(LAYERS) for module in modules}


def _imports(path: pathlib.Path, *, type_checking: bool, package: str = "tenferro.core") -> set[str]:
    """Absolute names of the tenferro modules ``path`` (a module of ``package``) imports, at
    any depth (inside functions too); ``if TYPE_CHECKING:`` blocks only when ``type_checking``."""
    found = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING" and not type_checking:
                continue
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.rsplit(".", child.level - 1)[0]
                    if child.module:
                        found.add(f"{base}.{child.module}")
                    else:  # from . import x, y: the modules x and y
                        found.update(f"{base}.{alias.name}" for alias in child.names)
                elif child.module and child.module.startswith("tenferro"):
                    found.add(child.module)
            elif isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names if alias.name.startswith("tenferro"))
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _core_modules() -> list[pathlib.Path]:
    return [path for path in sorted(CORE.glob("*.py")) if path.stem != "__init__"]


def test_every_core_module_has_a_layer():
    assert {path.stem for path in _core_modules()} == set(LAYER_OF)


def test_core_modules_import_only_from_layers_below_in_type_hints_too():
    """No circle hides under ``if TYPE_CHECKING:``: what a lower module needs of an upper one
    is a protocol declared below it (``protocols.py``, ``trace.Recorder``)."""
    upward = []
    for path in _core_modules():
        for name in _imports(path, type_checking=True):
            target = name.removeprefix("tenferro.core.").split(".")[0]
            if name.startswith("tenferro.core.") and LAYER_OF[target] >= LAYER_OF[path.stem]:
                upward.append(f"{path.stem} ({LAYERS[LAYER_OF[path.stem]][0]}) imports {target}")
    assert upward == []


def test_the_runtime_and_the_session_offer_what_their_protocols_declare():
    from tenferro import CpuEngine, EagerRuntime
    from tenferro.core.op import Op
    from tenferro.core.protocols import Runtime, Session
    from tenferro.core.trace import Recorder

    rt = EagerRuntime(engine=CpuEngine.serial())
    with rt.eager_session() as session:
        for protocol, instance in ((Runtime, rt), (Session, session), (Recorder, Op(rt.registry["mul"]))):
            declared = set(protocol.__annotations__) | {
                name for name, value in vars(protocol).items() if callable(value) and not name.startswith("__")
            }
            assert declared and all(hasattr(instance, name) for name in declared), protocol


def test_the_core_imports_nothing_from_plugins_testing_or_extend():
    above = [
        f"{path.stem} imports {name}"
        for path in CORE.glob("*.py")
        for name in _imports(path, type_checking=True)
        if name.startswith(("tenferro.plugins", "tenferro.testing", "tenferro.extend"))
    ]
    assert above == []


#: The front end's base classes of EagerTensor (operators, NumPy's methods): outside the
#: core, which knows no op by name, and outside tenferro.numpy, which imports the core;
#: they reach tenferro.numpy through the namespace it binds when imported.
BASES = {"tenferro._array", "tenferro._operators"}


def test_the_core_imports_of_the_front_end_only_eager_tensors_base_classes_which_import_only_the_core():
    outside = {
        name
        for path in _core_modules()
        for name in _imports(path, type_checking=False)
        if not name.startswith("tenferro.core")
    }
    assert outside == BASES
    package = CORE.parent
    for name in BASES:
        path = package / f"{name.rpartition('.')[2]}.py"
        imported = _imports(path, type_checking=False, package="tenferro")
        assert imported and all(n.startswith("tenferro.core.") for n in imported), (name, imported)


def _private_attributes(tree: ast.AST) -> set[str]:
    """The private attribute names a module's classes define: slots, ``self._x = ...``,
    private methods and class attributes (dunder names are Python's, not private)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    for target in item.targets:
                        if isinstance(target, ast.Name):
                            names.add(target.id)
                            if target.id == "__slots__" and isinstance(item.value, (ast.Tuple, ast.List)):
                                names.update(e.value for e in item.value.elts if isinstance(e, ast.Constant))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                names.add(node.attr)
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def test_nothing_outside_the_core_reads_a_private_attribute_of_the_core():
    """The front end, the plugins, the transforms and the conformance suite use the core's
    public API (``x.runtime``, ``rt.current_session()``, ``eager.held``, ...): a private
    attribute of a core class read outside the core is a hidden coupling. EagerTensor's two
    base classes are part of its definition and read its slots."""
    private = set().union(*(_private_attributes(ast.parse(p.read_text(encoding="utf-8"))) for p in _core_modules()))
    package = CORE.parent
    found = []
    for path in sorted(package.rglob("*.py")):
        if CORE in path.parents or f"tenferro.{path.stem}" in BASES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = _private_attributes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private and node.attr not in own:
                found.append(f"{path.relative_to(package)}:{node.lineno} .{node.attr}")
    assert found == []
