"""The design docs name only what exists: files, functions and classes, settings and
make targets.

docs/architecture.md and docs/scaling.md explain the code by its names; a rename that
leaves them behind makes them say what is not. So every name they give is looked up:

- a path (``app/...``, ``scripts/...``, ``tests/...``, ``docs/...``, ``migrations/...``,
  a ``*`` matching at least one file) must exist, and so must a relative link's target;
- ``name()`` in backticks must be defined (``def`` or ``class``) in the repository's
  Python sources, or be a builtin;
- ``owner.name`` in backticks (``Database.turn``, ``auth.match_for_caller``,
  ``app.errors.ServiceError``, ``round.sheet``), when the owner is one of the
  repository's modules, classes or tables, must be defined in it; an owner that is
  none of them (``gc.freeze``, ``asyncio.Event``) is a dependency's, not checked here;
- an UPPER_SNAKE name in backticks must be a setting (``app/settings.py``), one of
  ``NOT_SETTINGS``, or a constant defined at module level in ``app/``;
- ``make X`` in backticks must be a target of the Makefile.
"""

from __future__ import annotations

import ast
import builtins
import re
from functools import cache
from pathlib import Path

import pytest

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/architecture.md", "docs/scaling.md")
SOURCES = ("app", "scripts", "bench", "tests", "migrations")
# UPPER_SNAKE names the docs give that are not the app's: the container's environment,
# and a socket option.
NOT_SETTINGS = {"WEB_CONCURRENCY", "RUN_MIGRATIONS", "TCP_NODELAY"}

PATH = re.compile(r"(?<![\w./-])((?:app|scripts|tests|docs|migrations)/[\w./*-]*)")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CODE = re.compile(r"`([^`\n]+)`")
CALL = re.compile(r"^([A-Za-z_][\w.]*)\(.*\)$")
DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
UPPER_SNAKE = re.compile(r"^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=\S*)?$")
MAKE = re.compile(r"^make ([\w-]+)")


class Scope:
    """The names a module or a class defines."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def add_body(self, body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.names.add(node.name)
            elif isinstance(node, ast.Assign):
                self.names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                self.names.add(node.target.id)


class Sources:
    """The repository's Python sources, read once: modules by name and by dotted path,
    classes by name and by table name, and every function and class defined."""

    def __init__(self) -> None:
        self.modules: dict[str, list[Scope]] = {}  # "tokens": its modules, "app.errors": one
        self.classes: dict[str, list[Scope]] = {}  # "Database", and a table's "match"
        self.defined: set[str] = set()  # every def and class, at any depth
        self.app_constants: set[str] = set()  # module-level UPPER_SNAKE names in app/
        for top in SOURCES:
            for path in sorted((ROOT / top).rglob("*.py")):
                self.read(path)

    def read(self, path: Path) -> None:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = Scope()
        module.add_body(tree.body)
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        short = path.stem
        if short == "__init__":
            dotted, short = dotted.removesuffix(".__init__"), path.parent.name
        for key in {dotted, short}:
            self.modules.setdefault(key, []).append(module)
        if dotted.startswith("app."):
            self.app_constants.update(n for n in module.names if UPPER_SNAKE.match(n))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.defined.add(node.name)
            if isinstance(node, ast.ClassDef):
                scope = Scope()
                scope.add_body(node.body)
                self.classes.setdefault(node.name, []).append(scope)
                table = _table_name(node)
                if table:
                    self.classes.setdefault(table, []).append(scope)

    def scopes_of(self, owner: str) -> list[Scope]:
        return self.modules.get(owner, []) + self.classes.get(owner, [])


def _table_name(node: ast.ClassDef) -> str | None:
    for item in node.body:
        if (
            isinstance(item, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__tablename__" for t in item.targets)
            and isinstance(item.value, ast.Constant)
        ):
            return str(item.value.value)
    return None


@cache
def sources() -> Sources:
    return Sources()


@cache
def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([\w.-]+)\s*:(?!=)", text, flags=re.MULTILINE))


def setting_names() -> set[str]:
    return {name.upper() for name in Settings.model_fields}


def missing_paths(doc: Path, text: str) -> list[str]:
    missing = []
    for found in PATH.findall(text):
        path = found.rstrip(".,:;")
        exists = any(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()
        if not exists:
            missing.append(path)
    for target in LINK.findall(text):
        if "://" not in target and not (doc.parent / target).exists():
            missing.append(target)
    return missing


def missing_code_names(text: str) -> list[str]:
    found = sources()
    settings = setting_names()
    missing = []
    for span in CODE.findall(text):
        span = span.strip()
        if make := MAKE.match(span):
            if make.group(1) not in make_targets():
                missing.append(span)
        elif upper := UPPER_SNAKE.match(span):
            name = upper.group(1)
            if name not in settings | NOT_SETTINGS | found.app_constants:
                missing.append(span)
        else:
            call = CALL.match(span)
            name = call.group(1) if call else span
            if DOTTED.match(name):
                if name in found.modules:  # a module named in full: app.api.problems
                    continue
                owner, _, attribute = name.rpartition(".")
                scopes = found.scopes_of(owner)
                if scopes and not any(attribute in scope.names for scope in scopes):
                    missing.append(span)
            elif call and name not in found.defined and not hasattr(builtins, name):
                missing.append(span)
    return missing


@pytest.mark.parametrize("doc", DOCS)
def test_every_file_the_doc_names_exists(doc: str) -> None:
    path = ROOT / doc
    assert missing_paths(path, path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("doc", DOCS)
def test_every_function_class_setting_and_make_target_the_doc_names_exists(doc: str) -> None:
    assert missing_code_names((ROOT / doc).read_text(encoding="utf-8")) == []


def test_the_checks_catch_a_name_that_is_not_there() -> None:
    """Each kind of name, misspelt, is reported; spelt right, it is not."""
    wrong = (
        "`Database.turns` `auth.match_for_callers` `app.errors.ServiceErrors` "
        "`match.rematch` `fetch_change(match_id)` `DATABASE_POOL` `make benchmark` "
        "`app.api.problem`"
    )
    right = (
        "`Database.turn` `auth.match_for_caller` `app.errors.ServiceError` "
        "`match.rematch_id` `fetch_changes(match_id)` `DATABASE_POOL_SIZE=20` `make bench` "
        "`TICK_S` `WEB_CONCURRENCY` `gc.freeze` `hash(match_id)` `app.api.problems`"
    )
    assert missing_code_names(wrong) == [
        "Database.turns",
        "auth.match_for_callers",
        "app.errors.ServiceErrors",
        "match.rematch",
        "fetch_change(match_id)",
        "DATABASE_POOL",
        "make benchmark",
        "app.api.problem",
    ]
    assert missing_code_names(right) == []
    doc = ROOT / "docs" / "scaling.md"
    assert missing_paths(doc, "(app/live.py, app/nowhere.py, [x](nowhere.md))") == [
        "app/nowhere.py",
        "nowhere.md",
    ]
    assert missing_paths(doc, "app/games/*.py, app/live.py. [p](performance.md#x)") == []
