"""The image's web process (the Dockerfile's CMD) serves what `manage.py serve` serves:
the ASGI app that routes /mcp to the MCP server, on uvicorn workers. It ran Django's WSGI
app, which answers /mcp with a 404, so a deployment had no MCP server."""

import json
import re
import shlex
from pathlib import Path

from memories.management.commands import serve

ROOT = Path(__file__).resolve().parents[2]


def image_web_command() -> list[str]:
    dockerfile = (ROOT / "Dockerfile").read_text()
    [cmd] = re.findall(r"^CMD (\[.*\])$", dockerfile, flags=re.MULTILINE)
    shell, flag, script = json.loads(cmd)
    assert (shell, flag) == ("sh", "-c")
    words = shlex.split(script)
    return words[words.index("gunicorn") + 1:]


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_the_image_serves_the_app_that_holds_mcp():
    assert image_web_command()[0] == serve.APPLICATION


def test_the_image_runs_it_on_the_workers_serve_uses():
    assert option(image_web_command(), "--worker-class") == serve.WORKER_CLASS


def test_the_image_loads_the_app_once_before_its_workers_fork():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "--preload" in image_web_command()
    assert "ENGRAM_PRELOAD_MODEL=1 exec gunicorn" in dockerfile


def test_the_image_listens_on_every_address_at_its_port():
    assert option(image_web_command(), "--bind") == "0.0.0.0:${PORT}"
