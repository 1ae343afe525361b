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


#: Known ways around an attribute gate, one row per family (grow it when a new one turns up). Each program would
#: reach a forbidden object if the family were open; the gate must stop it, with the error it raises.
ESCAPE_FAMILIES = [
    ("attrgetter", "import operator\noperator.attrgetter('__class__.__base__.__subclasses__')(())()", AttributeError),
    ("attrgetter-from", "from operator import attrgetter\nattrgetter('__class__.__base__')(())", AttributeError),
    ("attrgetter-many", "import operator\noperator.attrgetter('real', '__class__')(1)", AttributeError),
    ("attrgetter-frame", "import operator as o\no.attrgetter('gi_frame.f_back')(x for x in [1])", AttributeError),
    ("attrgetter-module", "import operator, fractions\noperator.attrgetter('sys.modules')(fractions)", AttributeError),
    ("methodcaller", "import operator\noperator.methodcaller('__getattribute__', '__class__')(())", AttributeError),
    ("methodcaller-from", "from operator import methodcaller\nmethodcaller('__subclasses__')(int)", AttributeError),
    ("itemgetter-dunder", "import operator\noperator.itemgetter('__builtins__')({'__builtins__': 1})", KeyError),
    ("subscript-dunder", "d = {'__builtins__': 1}\nd['__builtins__']", KeyError),
    ("getattr-string", "getattr((), '__class__')", NameError),
    ("vars", "vars(())", NameError),
    ("dir", "dir(())", NameError),
    ("type", "type(())", NameError),
    ("globals", "globals()", NameError),
    ("builtins-name", "__builtins__", gate.GateRefused),
    ("import-dunder", "__import__('os')", gate.GateRefused),
    ("dunder-attribute", "().__class__", gate.GateRefused),
    ("str-format", "'{0.__class__.__base__}'.format(())", NotImplementedError),
    ("str-format-map", "'{x.__class__}'.format_map({'x': ()})", NotImplementedError),
    ("str-format-unbound", "str.format('{0.__class__}', ())", AttributeError),
    ("string-formatter", "import string\nstring.Formatter().format('{0.__class__}', ())", NotImplementedError),
    ("generator-frame", "g = (x for x in [1])\ng.gi_frame.f_globals", gate.GateRefused),
    ("frame-back", "g = (x for x in [1])\ng.gi_frame.f_back", gate.GateRefused),
    ("traceback-frame", "try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame", gate.GateRefused),
    ("type-hints-eval", "import typing\ndef f(x: '().__class__'): pass\ntyping.get_type_hints(f)", AttributeError),
    ("type-hints-from", "from typing import get_type_hints", ImportError),
    (
        "singledispatch-eval",
        "import functools\n@functools.singledispatch\ndef f(x): pass\ndef g(x: '().__class__'): pass\nf.register(g)",
        AttributeError,
    ),
    ("module-attribute", "import fractions\nfractions.sys.modules['os']", AttributeError),
    ("from-import-module", "from fractions import sys", ImportError),
    ("from-import-callable", "from sympy.utilities.autowrap import check_output", ImportError),
    ("forbidden-callable", "import sympy.utilities.autowrap as a\na.check_output(['id'])", AttributeError),
    ("star-import", "from sympy import *", gate.GateRefused),
    ("eval", "eval('1')", gate.GateRefused),
    ("exec", "exec('1')", gate.GateRefused),
    ("compile", "compile('1', 'x', 'eval')", NameError),
]


@pytest.mark.parametrize(
    ("source", "error"), [pytest.param(source, error, id=family) for family, source, error in ESCAPE_FAMILIES]
)
def test_known_escape_families_are_closed(source: str, error: type[Exception], tmp_path: Path) -> None:
    with pytest.raises(error):
        _run(source, tmp_path)


def test_the_guarded_operator_helpers_still_do_their_job(tmp_path: Path) -> None:
    source = (
        "import operator\n"
        "from operator import attrgetter, itemgetter, methodcaller\n"
        "class Row:\n"
        "    def __init__(self, name, score):\n"
        "        self.name = name\n"
        "        self.score = score\n"
        "rows = [Row('b', 2), Row('a', 1)]\n"
        "print([r.name for r in sorted(rows, key=attrgetter('score'))], attrgetter('name', 'score')(rows[0]))\n"
        "print(sorted([(2, 'x'), (1, 'y')], key=itemgetter(0)), itemgetter(0, 1)('ab'))\n"
        "print(list(map(methodcaller('upper'), ['a', 'b'])), operator.methodcaller('split', ',')('a,b'))\n"
        "print(attrgetter('real.imag')(3), operator.attrgetter('numerator')(4))\n"
    )
    assert _run(source, tmp_path).splitlines() == [
        "['a', 'b'] ('b', 2)",
        "[(1, 'y'), (2, 'x')] ('a', 'b')",
        "['A', 'B'] ['a', 'b']",
        "0 4",
    ]
