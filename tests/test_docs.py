"""The docs say only what works: install commands that pip can run, references that exist."""

import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def tracked_text_files():
    """Every file git tracks under docs-like or source paths, with its text."""
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for name in listed.stdout.splitlines():
        path = ROOT / name
        if path.suffix in {".md", ".py", ".toml", ".txt"} or name.startswith(".ci/"):
            yield name, path.read_text(encoding="utf-8")


def files_matching(pattern):
    return {name for name, text in tracked_text_files() if re.search(pattern, text)}


# Files owned by others that still need the fix; each entry must still match, so the
# list shrinks as they are fixed (strict, like tenferro-xfail.txt).
def test_no_install_from_an_index():
    """tenferro is not on a package index: `pip install "tenferro[test]"` cannot work, so
    the docs install from a clone (`pip install -e ".[test]"` or a path with the extra)."""
    found = files_matching(r"pip install ['\"]?tenferro(\[|['\"]?(\s|$))") - {"tests/test_docs.py"}
    assert found == set()


# -- docs/behaviour.md, the contract, says what the code and the tests do -----------------
BEHAVIOUR = ROOT / "docs" / "behaviour.md"


def section(title):
    """The text of docs/behaviour.md under the heading ``## title``, up to the next one."""
    text = BEHAVIOUR.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def fenced(text, language):
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


# (strict, as above: fixing one means removing its entry).
def test_nothing_cites_a_design_file_the_repository_lacks():
    """The contract is docs/behaviour.md; DESIGN.md is not in the repository."""
    assert not (ROOT / "DESIGN.md").exists()
    assert files_matching(r"DESIGN\.md") - {"tests/test_docs.py"} == set()


def test_every_behaviour_has_a_test_and_every_behaviour_test_a_behaviour():
    documented = {int(n) for n in re.findall(r"^\| B(\d+) \|", section("Behaviours"), re.M)}
    tests = (ROOT / "tests" / "test_behaviours.py").read_text(encoding="utf-8")
    tested = {int(n) for n in re.findall(r"^def test_b(\d+)_", tests, re.M)}
    assert documented == tested == set(range(1, 17))


def test_the_seed_program_lists_the_trace_shown():
    (program,) = fenced(section("The seed page"), "python")
    namespace = {}
    exec(program, namespace)
    listing = fenced(section("Behaviours"), "text")[0]
    assert str(namespace["loss"].trace()) + "\n" == listing


def test_error_tree_is_the_class_hierarchy():
    """Every exported error is in the tree, under its parent, with its built-in bases."""
    import tenferro

    (tree,) = fenced(section("Errors"), "text")
    parents, seen = [], set()
    for line in tree.splitlines():
        depth = (len(line) - len(line.lstrip())) // 2
        name, _, builtins = line.split()[0].partition("(")
        cls = getattr(tenferro, name)
        del parents[depth:]
        bases = {b.__name__ for b in cls.__bases__}
        assert bases == set(parents[-1:]) | set(filter(None, builtins.rstrip(")").split(","))), name
        parents.append(name)
        seen.add(name)
    exported = {n for n in tenferro.__all__ if isinstance(getattr(tenferro, n), type)}
    errors = {n for n in exported if issubclass(getattr(tenferro, n), tenferro.TenferroError)}
    assert seen == errors


def test_conformance_checks_listed_are_the_suite_checks():
    from tenferro.testing.checks import CHECKS

    listed = re.findall(r"^\| `(\w+)` \|", section("The conformance suite"), re.M)
    assert listed == list(CHECKS)


# -- links between the docs resolve ---------------------------------------------------------
def slug(heading):
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    return {slug(h) for h in re.findall(r"^#+ (.*)$", path.read_text(encoding="utf-8"), re.M)}


DOC_FILES = [
    "README.md",
    "CONTRIBUTING.md",
    "docs/behaviour.md",
    "docs/complex.md",
    "docs/life-of-an-op.md",
    "docs/autograd.md",
    "docs/optimizers.md",
    "docs/special.md",
    "docs/stats.md",
    "docs/scipy-linalg.md",
    "docs/scipy-signal-integrate.md",
    "examples/tenferro-mathx/README.md",
]


@pytest.mark.parametrize("name", DOC_FILES)
def test_relative_links_resolve(name):
    path = ROOT / name
    for target in re.findall(r"\]\(([^)]+)\)", path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{name}: {target}"
        if anchor:
            assert anchor in anchors(linked), f"{name}: {target}"


# -- docs/life-of-an-op.md walks the code as it is ----------------------------------------------
LIFE = ROOT / "docs" / "life-of-an-op.md"


def test_the_life_of_an_op_runs_and_names_files_and_definitions_that_exist():
    """Its program runs; every core file it names exists, and every definition it names as
    ``module.name`` or ``Class.method`` (in backticks) is found where it says."""
    import importlib

    text = LIFE.read_text(encoding="utf-8")
    (program,) = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    exec(compile(program, "docs/life-of-an-op.md", "exec"), {"__name__": "__main__"})
    files = set(re.findall(r"`(core/\w+\.py)`", text))
    assert files and all((ROOT / "tenferro" / f).exists() for f in files), files
    named = {
        "Op.call": ("op", "Op.call"),
        "node.op.vjp": ("op", "Op.vjp"),
        "node.op.input_vjp": ("op", "Op.input_vjp"),
        "node.op.jvp": ("op", "Op.jvp"),
        "call.method": ("call", "method"),
        "session_class": ("session", "session_class"),
        "reverse_sweep": ("sweep", "reverse_sweep"),
        "push_tangents": ("forward", "push_tangents"),
        "_transposed": ("forward", "_transposed"),
        "EagerRuntime._backward": ("runtime", "EagerRuntime._backward"),
        "classify": ("call", None),
    }
    for mention, (module, path) in named.items():
        assert mention in text, mention
        if path is not None:
            target = importlib.import_module(f"tenferro.core.{module}")
            for part in path.split("."):
                target = getattr(target, part)
        else:
            assert f"def {mention}(" in (ROOT / "tenferro" / "core" / f"{module}.py").read_text(encoding="utf-8")
