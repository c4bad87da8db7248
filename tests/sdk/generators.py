"""The Python SDKs generated from the committed OpenAPI document, for the tests that use them.

openapi-python-client runs with ``sdk/python-config.yaml``; openapi-generator's
``python`` generator runs on its default flags, as a newcomer runs it. A test module
generates each client once into a temporary directory and imports it from there.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import ROOT

SPEC = ROOT / "openapi" / "openapi.json"
PYTHON_CONFIG = ROOT / "sdk" / "python-config.yaml"
OPENAPI_PYTHON_CLIENT = Path(sys.executable).with_name("openapi-python-client")
OPENAPI_GENERATOR = Path(sys.executable).with_name("openapi-generator-cli")
# openapi-generator's python generator names its package this when given no packageName.
OPENAPI_GENERATOR_PACKAGE = "openapi_client"


def run_generator(*command: str) -> str:
    """Run a generator from the repository root; return what it printed."""
    run = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )
    printed = run.stdout + run.stderr
    assert run.returncode == 0, f"{' '.join(command)} failed:\n{printed}"
    return printed


def generate_python_client(output: Path) -> str:
    """Run openapi-python-client on the committed document; return what it printed."""
    return run_generator(
        str(OPENAPI_PYTHON_CLIENT),
        "generate",
        "--path",
        str(SPEC),
        "--config",
        str(PYTHON_CONFIG),
        "--output-path",
        str(output),
        "--overwrite",
    )


def generate_openapi_generator_python(output: Path) -> str:
    """Run openapi-generator's python generator on its default flags; return what it printed.

    The generator is a Java program: without java this fails under CI and skips elsewhere.
    """
    if shutil.which("java") is None:
        message = "java not found: openapi-generator cannot run"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return run_generator(
        str(OPENAPI_GENERATOR), "generate", "-g", "python", "-i", str(SPEC), "-o", str(output)
    )


@contextmanager
def importable(output: Path, package: str) -> Iterator[None]:
    """The package generated into ``output`` importable while the block runs, then gone."""
    sys.path.insert(0, str(output))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.path.remove(str(output))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]
