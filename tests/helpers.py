import json
import socket


def service_answers(port: int) -> bool:
    """Whether a server listens on this loopback port (for tests of a machine service)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


ANTHROPIC_MESSAGES = "https://api.anthropic.com/v1/messages"


def anthropic_reply(payload, input_tokens: int = 120, output_tokens: int = 30):
    """What Anthropic's Messages API answers with `payload` (JSON-encoded unless a string)
    as the model's text, for respx to hand to the real SDK."""
    import httpx

    text = payload if isinstance(payload, str) else json.dumps(payload)
    return httpx.Response(200, json={
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}})


def htmx_settled(page) -> None:
    """Wait until htmx is loaded and no request, swap or settle is under way."""
    page.wait_for_function(
        "() => window.htmx !== undefined"
        " && !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def run_on_redis(script: str) -> str:
    """Run `script` in a fresh Python with Django set up on the Redis queue (database 15 of
    the machine's Redis); its standard output. Fails the test on a non-zero exit."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "engram_site.settings",
           "HUEY_REDIS_URL": "redis://127.0.0.1:6379/15"}
    out = subprocess.run([sys.executable, "-c", "import django\ndjango.setup()\n" + script],
                         cwd=Path(__file__).resolve().parents[1], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def child_database_env(**extra) -> dict:
    """The environment that points a child process at this test database (the embedded
    server's socket: the child attaches to the running server instead of starting one)."""
    import os
    from urllib.parse import quote

    from django.db import connection

    params = connection.get_connection_params()
    url = f"postgres://{params['user']}@{quote(params['host'], safe='')}/{params['dbname']}"
    return {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "engram_site.settings",
            **extra}
