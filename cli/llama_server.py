"""`python -m cli.llama_server`: llama.cpp's OpenAI server (`llama_cpp.server`) that loads models without weight
repacking unless told otherwise.

llama.cpp repacks a model's weights into "extra buffer types" for the CPU's fastest kernels (AMX among them). A VM
whose CPU reports AMX but does not allow it kills the server with "Illegal instruction" on its first request;
loading with `use_extra_bufts=False` avoids that at a small cost in speed. llama-cpp-python 0.3 has the field in
llama.cpp's model parameters but neither `Llama()` nor the server settings expose it, so this launcher sets it in
the default model parameters every `Llama` starts from. Where the installed server has the setting itself, the flag
is handed to it instead. Every other argument is the server's own.

Its greedy schema-constrained answers check the grammar last (cli/grammar_sampling.py): the same tokens, sooner.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

SERVER_MODULE = "llama_cpp.server"
EXTRA_BUFTS = "use_extra_bufts"
FLAG = f"--{EXTRA_BUFTS}"
_TRUE = {"1", "on", "t", "true", "y", "yes"}


def server_has_setting() -> bool:
    """The installed server takes `--use_extra_bufts` itself."""
    from llama_cpp.server.settings import ModelSettings

    return EXTRA_BUFTS in ModelSettings.model_fields


def disable_extra_bufts() -> bool:
    """Every model loaded from now on in this process skips weight repacking; False where llama.cpp's model
    parameters have no such field (an older llama.cpp, which has no repacking to avoid)."""
    import llama_cpp.llama_cpp as lib

    if EXTRA_BUFTS not in {name for name, *_ in lib.llama_model_params._fields_}:
        return False
    defaults: Callable[[], Any] = lib.llama_model_default_params

    def without_extra_bufts() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    lib.llama_model_default_params = without_extra_bufts
    return True


def server_argv(argv: list[str]) -> list[str]:
    """The server's own arguments: `--use_extra_bufts` is applied here (default False) unless the server has it."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(FLAG, default="false")
    known, rest = parser.parse_known_args(argv)
    wanted = str(known.use_extra_bufts).strip().lower() in _TRUE
    if server_has_setting():
        return [*rest, FLAG, str(wanted)]
    if not wanted:
        disable_extra_bufts()
    return rest


def main(argv: list[str] | None = None) -> None:
    rest = server_argv(sys.argv[1:] if argv is None else argv)
    from llama_cpp.server.__main__ import main as serve

    from cli.grammar_sampling import install

    install()

    sys.argv = [SERVER_MODULE, *rest]
    serve()


if __name__ == "__main__":
    main()
