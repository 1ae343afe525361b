"""`code.execute`: model-written Python run in an isolated process; its output, never its code, is delivered.

One job per module: `limits` (rlimits), `gate` (import and attribute gate, RestrictedPython), `isolation` (which
namespace tool is in force and the command that enters it), `environment` (working folder, empty environment,
collected outputs), `runner` (one sandboxed run), `child` (the entry point inside the sandbox), `execute` (the
catalog entry). `limits`, `gate` and `child` import only the standard library and RestrictedPython: they are
what the sandboxed interpreter loads.
"""
