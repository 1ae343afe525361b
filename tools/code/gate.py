"""The import gate: which modules a program may import and which names it may reach, checked before it runs.

Built on RestrictedPython, which compiles the program so that every attribute access, subscript, iteration and
print goes through guard functions supplied here, and rejects names starting with `_` (`__import__`,
`__builtins__`, `__class__`, `__subclasses__`, `__globals__`) at compile time. The gate adds an allow-list of
importable modules (checked statically before running and again by the `__import__` the program gets), refuses
modules outside the allow-list reached as attributes or imported names (`fractions.sys`, `from fractions import
sys`), callables that belong to process, file-system or interpreter modules (`sympy.utilities.autowrap.check_output`)
and the standard library's ways to evaluate strings as Python (`typing.get_type_hints` and `functools.singledispatch`
evaluate string annotations), and hands out `operator.attrgetter`, `methodcaller` and `itemgetter` only in
versions that pass each step through the same guards (the originals walk `"__class__.__base__.__subclasses__"`).
tests/unit/code/test_gate.py keeps the table of known escape families.

sympy evaluates strings it parses (`sympify`, `S`, `parse_expr`, `lambdify`) with Python's `eval`: that family is
open by design, and the isolation holds it (tests/sandbox).

The gate is defence in depth: the process isolation (`isolation`, `limits`) is what must hold if it is bypassed.
Only the standard library and RestrictedPython are imported here, because the sandboxed interpreter loads this.
"""

from __future__ import annotations

import ast
import builtins
import functools
import operator
import os
import sys
import typing
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

from RestrictedPython import compile_restricted_exec, limited_builtins, safe_builtins
from RestrictedPython.Eval import default_guarded_getitem, default_guarded_getiter
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence, raise_, safer_getattr

#: Top-level modules a calculation needs; their submodules are allowed with them.
ALLOWED_MODULES = frozenset(
    {
        "math",
        "cmath",
        "statistics",
        "itertools",
        "functools",
        "operator",
        "fractions",
        "decimal",
        "numbers",
        "datetime",
        "calendar",
        "zoneinfo",
        "json",
        "csv",
        "re",
        "string",
        "textwrap",
        "unicodedata",
        "collections",
        "heapq",
        "bisect",
        "random",
        "copy",
        "enum",
        "dataclasses",
        "typing",
        "sympy",
        "mpmath",
    }
)
_ALLOWED_TEXT = ", ".join(sorted(ALLOWED_MODULES))
#: Modules whose functions and classes a program never gets, whichever allowed module re-exports them.
FORBIDDEN_ORIGINS = frozenset(
    {
        "os",
        "posix",
        "nt",
        "sys",
        "subprocess",
        "socket",
        "_socket",
        "ssl",
        "ctypes",
        "_ctypes",
        "importlib",
        "builtins",
        "io",
        "_io",
        "shutil",
        "pathlib",
        "tempfile",
        "signal",
        "threading",
        "_thread",
        "multiprocessing",
        "pty",
        "fcntl",
        "resource",
        "mmap",
        "runpy",
        "code",
        "pickle",
        "marshal",
        "gc",
        "inspect",
        "urllib",
        "http",
    }
)
_EXTRA_BUILTINS = [
    "all",
    "any",
    "bin",
    "dict",
    "enumerate",
    "filter",
    "format",
    "frozenset",
    "iter",
    "list",
    "map",
    "max",
    "min",
    "next",
    "reversed",
    "set",
    "sorted",
    "sum",
    "tuple",
    "zip",
    "bytes",
    "bytearray",
]
_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
    "@=": operator.imatmul,
}


class GateRefused(Exception):
    """The program uses something the gate does not allow; the message says what and what is allowed."""


def is_allowed(module: str) -> bool:
    return module.split(".", 1)[0] in ALLOWED_MODULES


def imported_modules(tree: ast.AST) -> list[str]:
    """Every module the program names in an import statement, in order."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.append("." * node.level + (node.module or ""))
    return names


def check(source: str, filename: str = "program.py") -> tuple[Any, list[str]]:
    """Compile the program under RestrictedPython and check its imports: (code object, imported modules)."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        raise GateRefused(f"the program is not valid Python: {exc.msg} (line {exc.lineno})") from None
    modules = imported_modules(tree)
    refused = sorted({m for m in modules if not is_allowed(m)})
    if refused:
        raise GateRefused(f"import of {', '.join(refused)} is not allowed; allowed: {_ALLOWED_TEXT}")
    result = compile_restricted_exec(source, filename)
    if result.errors or result.code is None:
        raise GateRefused("the program uses restricted names: " + "; ".join(result.errors))
    return result.code, modules


def restricted_globals(folder: str) -> dict[str, Any]:
    """The globals a gated program runs with: guarded builtins, `open` inside `folder`, print to stdout."""
    allowed_builtins = dict(safe_builtins)
    allowed_builtins.update(limited_builtins)
    allowed_builtins.update({name: getattr(builtins, name) for name in _EXTRA_BUILTINS})
    allowed_builtins["range"] = range  # RestrictedPython caps range() at 1000 items; the memory limit bounds it
    allowed_builtins["__import__"] = _guarded_import
    allowed_builtins["open"] = _folder_open(folder)
    return {
        "__builtins__": allowed_builtins,
        "__name__": "__main__",
        "__metaclass__": type,
        "_getattr_": _guarded_getattr,
        "_getitem_": _guarded_getitem,
        "_getiter_": default_guarded_getiter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_write_": lambda obj: obj,  # attribute names are already checked at compile time
        "_inplacevar_": lambda op, x, y: _INPLACE[op](x, y),
        "_apply_": lambda func, *args, **kwargs: func(*args, **kwargs),
        "_print_": _StdoutPrint,
    }


def preimport(modules: Iterable[str]) -> None:
    """Import the allowed modules a program names, while the launcher may still read the whole interpreter."""
    for module in modules:
        if module and not module.startswith(".") and is_allowed(module):
            __import__(module)


def _guarded_import(
    name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
) -> ModuleType:
    if level or not is_allowed(name):
        raise ImportError(f"import of {name} is not allowed; allowed: {_ALLOWED_TEXT}")
    module = __import__(name, globals, locals, fromlist, 0)
    if not fromlist:
        return module
    # `from m import x` reads x off the module without `_getattr_`: hand over a stand-in holding guarded names
    names = ModuleType(module.__name__)
    for item in fromlist:
        try:
            setattr(names, item, _guarded_getattr(module, item))
        except AttributeError as exc:
            raise ImportError(f"cannot import {item} from {name}: {exc}") from None
    return names


def _guarded_getattr(obj: Any, name: str, default: Any = raise_) -> Any:
    _refuse(obj)
    value = safer_getattr(obj, name, default)
    _refuse(value)
    return _SAFE_VERSIONS.get(id(value), value)


def _guarded_getitem(obj: Any, key: Any) -> Any:
    if isinstance(key, str) and key.startswith("__") and key.endswith("__"):
        raise KeyError(f"{key}: names with leading and trailing double underscores are not allowed")
    return default_guarded_getitem(obj, key)


def _refuse(value: Any) -> None:
    if isinstance(value, ModuleType):
        if not is_allowed(value.__name__):
            raise AttributeError(f"module {value.__name__} is not allowed")
        return
    if any(value is evaluator for evaluator in _EVALUATORS):
        raise AttributeError(f"{value.__name__} evaluates strings as Python and is not allowed")
    origin = getattr(value, "__module__", None)
    if callable(value) and isinstance(origin, str) and origin.split(".", 1)[0] in FORBIDDEN_ORIGINS:
        raise AttributeError(f"{getattr(value, '__name__', 'this object')} (from {origin}) is not allowed")


def _attrgetter(*names: str) -> Callable[[Any], Any]:
    """operator.attrgetter, each dotted step through the gate."""
    paths = [_checked_name(name).split(".") for name in names]

    def get(obj: Any) -> Any:
        found = []
        for path in paths:
            value = obj
            for part in path:
                value = _guarded_getattr(value, part)
            found.append(value)
        return found[0] if len(found) == 1 else tuple(found)

    return get


def _methodcaller(name: str, /, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    """operator.methodcaller, the method looked up through the gate."""
    _checked_name(name)
    return lambda obj: _guarded_getattr(obj, name)(*args, **kwargs)


def _itemgetter(*keys: Any) -> Callable[[Any], Any]:
    """operator.itemgetter, each key through the subscript guard."""
    if not keys:
        raise TypeError("itemgetter expected 1 argument, got 0")
    if len(keys) == 1:
        return lambda obj: _guarded_getitem(obj, keys[0])
    return lambda obj: tuple(_guarded_getitem(obj, key) for key in keys)


def _checked_name(name: Any) -> str:
    if not isinstance(name, str):
        raise TypeError("attribute name must be a string")
    return name


#: Callables that evaluate strings as Python with unguarded attribute access.
_EVALUATORS: tuple[Any, ...] = (typing.get_type_hints, functools.singledispatch, functools.singledispatchmethod)
#: The program gets these in place of the originals, wherever it reaches them.
_SAFE_VERSIONS: dict[int, Any] = {
    id(operator.attrgetter): _attrgetter,
    id(operator.methodcaller): _methodcaller,
    id(operator.itemgetter): _itemgetter,
}


def _folder_open(folder: str) -> Callable[..., Any]:
    root = os.path.realpath(folder)

    def open_in_folder(file: str, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        path = os.path.realpath(os.path.join(root, str(file)))
        if os.path.commonpath([root, path]) != root:
            raise PermissionError(f"{file}: only files in the working folder can be opened")
        return builtins.open(path, mode, *args, **kwargs)

    return open_in_folder


class _StdoutPrint:
    """RestrictedPython's `print` hook, writing straight to stdout instead of collecting into `printed`."""

    def __init__(self, _getattr_: Any = None) -> None:
        pass

    def __call__(self) -> str:
        return ""

    def _call_print(self, *objects: Any, **kwargs: Any) -> None:
        if kwargs.get("file") is None:
            kwargs["file"] = sys.stdout
        print(*objects, **kwargs)
