"""The import gate, in process: what a calculation may use passes, every way to os/subprocess/ctypes is refused."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tools.code import gate


def _run(source: str, folder: Path) -> str:
    code, modules = gate.check(source)
    gate.preimport(modules)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, gate.restricted_globals(str(folder)))
    return out.getvalue()


def test_a_calculation_with_allowed_modules_runs_and_prints(tmp_path: Path) -> None:
    source = (
        "import math, statistics\n"
        "from fractions import Fraction\n"
        "from collections import Counter\n"
        "from sympy import primerange\n"
        "values = [x * x for x in range(2000)]\n"
        "total = 0\n"
        "for v in values:\n"
        "    total += v\n"
        "class Box:\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n"
        "print(total, statistics.mean([1, 2, 3]), Fraction(1, 3) + Fraction(1, 6), math.isqrt(99))\n"
        "print(Counter('abca').most_common(1), list(primerange(2, 20)), Box(5).n, f'{total:,}')\n"
    )
    lines = _run(source, tmp_path).splitlines()
    assert lines[0] == f"{sum(x * x for x in range(2000))} 2 1/2 9"
    assert lines[1] == "[('a', 2)] [2, 3, 5, 7, 11, 13, 17, 19] 5 " + f"{sum(x * x for x in range(2000)):,}"


@pytest.mark.parametrize(
    ("source", "refusal"),
    [
        ("import os", "import of os is not allowed"),
        ("import subprocess", "import of subprocess is not allowed"),
        ("from ctypes import CDLL", "import of ctypes is not allowed"),
        ("import importlib\nimportlib.import_module('os')", "import of importlib is not allowed"),
        ("import builtins\nbuiltins.__import__('os')", "import of builtins is not allowed"),
        ("from . import secrets", "import of . is not allowed"),
        ("__import__('os').system('id')", '"__import__" is an invalid variable name'),
        ("__builtins__['__import__']('os')", '"__builtins__" is an invalid variable name'),
        ("().__class__.__base__.__subclasses__()", '"__class__" is an invalid attribute name'),
        ("eval('1')", None),
        ("exec('import os')", None),
    ],
)
def test_ways_to_reach_the_system_are_refused(source: str, refusal: str | None, tmp_path: Path) -> None:
    with pytest.raises((gate.GateRefused, NameError)) as raised:
        _run(source, tmp_path)
    if refusal is not None:
        assert refusal in str(raised.value)


@pytest.mark.parametrize(
    "source",
    [
        "import fractions\nfractions.sys.modules['os'].system('id')",
        "import sympy.utilities.autowrap as a\na.check_output(['id'])",
        "from sympy.external import import_module\nimport_module('os').system('id')",
        "import random\nrandom.Random.__init__",
        "import json\ngetattr(json, 'codecs')",
    ],
)
def test_forbidden_modules_reached_through_allowed_ones_are_refused(source: str, tmp_path: Path) -> None:
    with pytest.raises((AttributeError, NameError, gate.GateRefused)):
        _run(source, tmp_path)


def test_open_reaches_only_the_working_folder(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    (folder / "data.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    source = "import csv\nrows = list(csv.DictReader(open('data.csv')))\nprint(int(rows[0]['a']) + int(rows[0]['b']))"
    assert _run(source, folder) == "3\n"
    for escape in ("../secret.txt", str(tmp_path / "secret.txt"), "/etc/passwd"):
        with pytest.raises(PermissionError, match="only files in the working folder"):
            _run(f"open({escape!r}).read()", folder)


def test_invalid_python_is_a_refusal_that_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(gate.GateRefused, match=r"not valid Python.*line 2"):
        _run("x = 1\nprint(x", tmp_path)
