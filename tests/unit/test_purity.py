"""The games package stays pure: no framework, database, service layer, clock or randomness."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GAMES_DIR = Path(__file__).resolve().parents[2] / "app" / "games"
GAMES_PACKAGE = "app.games"

FORBIDDEN = (
    "fastapi",
    "starlette",
    "sqlmodel",
    "sqlalchemy",
    "app.db",
    "app.api",
    "app.services",
    "random",
    "secrets",
    "time",
    "datetime",
    "uuid",
)


def is_forbidden(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


def package_of(path: Path) -> str:
    """Dotted package a module file under app/games/ belongs to."""
    relative = path.relative_to(GAMES_DIR).parent.parts
    return ".".join((GAMES_PACKAGE, *relative))


def imported_modules(source: str, package: str) -> set[str]:
    """Every module a source file imports, with relative imports resolved against ``package``."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base_parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            modules.add(base)
            # ``from app import db`` imports the module app.db
            modules.update(f"{base}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Name) and node.func.id == "__import__")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            )
        ):
            modules.add(node.args[0].value)
    return modules


def game_module_files() -> list[Path]:
    return sorted(GAMES_DIR.rglob("*.py"))


def test_games_package_has_modules_to_check() -> None:
    names = {path.name for path in game_module_files()}
    assert {"__init__.py", "base.py", "asszorti.py"} <= names


@pytest.mark.parametrize(
    "path", game_module_files(), ids=lambda p: str(p.relative_to(GAMES_DIR.parent))
)
def test_game_module_imports_nothing_impure(path: Path) -> None:
    modules = imported_modules(path.read_text(encoding="utf-8"), package_of(path))
    assert sorted(m for m in modules if is_forbidden(m)) == []


@pytest.mark.parametrize(
    ("source", "package", "caught"),
    [
        ("import fastapi", "app.games", "fastapi"),
        ("from starlette.requests import Request", "app.games", "starlette.requests"),
        ("import sqlalchemy.orm as orm", "app.games", "sqlalchemy.orm"),
        ("from sqlmodel import Session", "app.games", "sqlmodel"),
        ("from app.db.models import Match", "app.games", "app.db.models"),
        ("from app import services", "app.games", "app.services"),
        ("from ..api import deps", "app.games", "app.api"),
        ("from .. import db", "app.games", "app.db"),
        ("from ...services import x", "app.games.pkg", "app.services"),
        ("import random", "app.games", "random"),
        ("from secrets import token_hex", "app.games", "secrets"),
        ("import time", "app.games", "time"),
        ("from datetime import datetime", "app.games", "datetime"),
        ("import uuid", "app.games", "uuid"),
        ("def f():\n    import random\n", "app.games", "random"),
        ("import importlib\nimportlib.import_module('random')", "app.games", "random"),
        ("__import__('time')", "app.games", "time"),
    ],
)
def test_purity_check_catches_a_forbidden_import(source: str, package: str, caught: str) -> None:
    modules = imported_modules(source, package)
    assert caught in modules
    assert any(is_forbidden(m) for m in modules)


@pytest.mark.parametrize(
    "source",
    [
        "import timeit",
        "from typing import Any",
        "from app.games.base import Score",
        "from . import base",
        "import randomness_free",
        "from pydantic import BaseModel",
        "from app.dbx import y",
    ],
)
def test_purity_check_allows_harmless_imports(source: str) -> None:
    modules = imported_modules(source, "app.games")
    assert not any(is_forbidden(m) for m in modules)


SERVICES_DIR = GAMES_DIR.parent / "services"
HTTP_LAYER = ("app.api", "app.schemas", "fastapi", "starlette")


@pytest.mark.parametrize(
    "path", sorted(SERVICES_DIR.rglob("*.py")), ids=lambda p: str(p.relative_to(GAMES_DIR.parent))
)
def test_service_module_imports_no_http_layer(path: Path) -> None:
    """The use cases return domain results; the API models are built in ``app/api``."""
    modules = imported_modules(path.read_text(encoding="utf-8"), "app.services")
    http = [m for m in modules if any(m == n or m.startswith(n + ".") for n in HTTP_LAYER)]
    assert sorted(http) == []
