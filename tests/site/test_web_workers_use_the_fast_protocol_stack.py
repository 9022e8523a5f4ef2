"""The web workers `manage.py serve` starts (gunicorn's UvicornWorker) parse HTTP with
httptools and run their event loop on uvloop. Without them uvicorn quietly falls back to
pure-Python h11 and asyncio, which cost about 1 ms of CPU a request (docs/BENCHMARKS.md)."""

import uvloop
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn_worker import UvicornWorker


async def app(scope, receive, send):  # never called: only the configuration is loaded
    raise AssertionError


def served_config() -> Config:
    config = Config(app, **UvicornWorker.CONFIG_KWARGS)
    config.load()
    return config


def test_the_workers_parse_http_with_httptools():
    assert served_config().http_protocol_class is HttpToolsProtocol


def test_the_workers_run_their_event_loop_on_uvloop():
    loop = served_config().get_loop_factory()()
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()
