"""`manage.py serve` starts gunicorn and the worker from the checkout, whatever folder it
was run from: gunicorn imports `engram_site.asgi` from its working folder, and run from
another folder it stopped at once with "No module named 'engram_site'"."""

import io
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from memories.management.commands import serve


class Child:
    """A child process that has already exited cleanly."""

    def __init__(self, argv, **options):
        self.argv = argv
        self.options = options

    def poll(self):
        return 0

    def wait(self):
        return 0

    def send_signal(self, signum):
        raise AssertionError("an exited child is not signalled")


@pytest.fixture
def started(monkeypatch, tmp_path):
    children = []

    def start(argv, **options):
        children.append(Child(argv, **options))
        return children[-1]

    monkeypatch.setattr(serve.subprocess, "Popen", start)
    monkeypatch.setattr(serve.connection, "ensure_connection", lambda: None)
    monkeypatch.setattr(serve.signal, "signal", lambda signum, handler: None)
    monkeypatch.chdir(tmp_path)  # somewhere that is not the checkout
    with pytest.raises(SystemExit) as exited:
        call_command("serve", port=8999, stdout=io.StringIO())
    assert exited.value.code == 0
    return children


def test_the_web_server_starts_in_the_checkout(started):
    [web] = [child for child in started if "gunicorn" in child.argv]
    assert Path(web.options["cwd"]) == Path(settings.BASE_DIR)


def test_the_worker_starts_in_the_checkout(started):
    [worker] = [child for child in started if "run_huey" in child.argv]
    assert Path(worker.options["cwd"]) == Path(settings.BASE_DIR)
