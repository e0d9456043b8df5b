"""No module of the arena calls another module's private functions or methods.

A leading underscore says "this module's business": when a second module needs the function, it
gets a public name in the module of its concept (the shedding engine's `turns`, `playing`,
`drawing`... grew out of `state.py` that way, when `blind.py` called `state._end_turn`).  The
check reads every module's source: a call `something._name(...)`, not through `self` or `cls`,
must name a function the same module defines, or a field it sets itself (`setattr`, as
`shedding/observation.py` caches its getter on the ruleset).  namedtuple's `_replace`, `_asdict`
and `_make` are public.
"""

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parents[2] / "arena"
PUBLIC_UNDERSCORED = {"_replace", "_asdict", "_make"}


def private_calls(source: str) -> list[tuple[int, str]]:
    """(line, callee) of every call into a private name the module does not own."""
    tree = ast.parse(source)
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            own.add(node.name)
        elif (isinstance(node, ast.Call) and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("setattr", "__setattr__")):
            own.add(node.args[1].value)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name, target = node.func.attr, node.func.value
        if not name.startswith("_") or name.startswith("__") or name in PUBLIC_UNDERSCORED or name in own:
            continue
        if isinstance(target, ast.Name) and target.id in ("self", "cls"):
            continue
        found.append((node.lineno, ast.unparse(node.func)))
    return found


def test_no_module_calls_another_modules_private_functions():
    violations = [
        f"{path.relative_to(ARENA.parent)}:{line}: {callee}"
        for path in sorted(ARENA.rglob("*.py"))
        for line, callee in private_calls(path.read_text())
    ]
    assert violations == []


def test_the_check_finds_a_call_into_another_modules_private_method():
    source = (
        "def run(state, rules):\n"
        "    state._end_turn(1)\n"  # another module's private method: found
        "    state.end_turn(1)\n"
        "    _helper(state)\n"
        "    rules._getter(state)\n"  # a field this module set itself: its own
        "    object.__setattr__(rules, '_getter', len)\n"
        "def _helper(state):\n"
        "    state._helper()\n"  # named as one of this module's functions: its own
    )
    assert private_calls(source) == [(2, "state._end_turn")]
