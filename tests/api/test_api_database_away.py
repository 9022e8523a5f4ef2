"""PostgreSQL away: every API request answers 503 with Retry-After, in the one error
shape, for as long as the server cannot be reached, and the next request after it comes
back is served again, with nothing restarted."""

import socket
from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError, connection

pytestmark = pytest.mark.django_db(transaction=True)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once it is closed


def database_away():
    """New connections go to a loopback port where nothing listens."""
    real = connection.get_connection_params

    def unreachable():
        return {**real(), "host": "127.0.0.1", "port": closed_port(), "connect_timeout": 2}

    connection.close()
    return mock.patch.object(connection, "get_connection_params", unreachable)


@pytest.mark.parametrize(("method", "path", "body"), [
    ("get", "/api/v1/memories", None),
    ("post", "/api/v1/memories", {"content": "The build uses uv."}),
    ("post", "/api/v1/memories/context", {"query": "build"}),
])
def test_503_with_retry_after_while_the_database_is_unreachable_then_served(
        alice, api_client_for, method, path, body):
    client = api_client_for(alice)
    assert getattr(client, method)(path, body, format="json").status_code in (200, 201)
    with database_away():
        response = getattr(client, method)(path, body, format="json")
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == "5"
    assert response.json() == {"error": {"status": 503, "code": "service_unavailable",
                                         "message": "The database is unavailable; retry "
                                                    "shortly."}}
    # Back: the very next request reconnects by itself.
    assert getattr(client, method)(path, body, format="json").status_code in (200, 201)


@pytest.mark.parametrize("error", [OperationalError("server closed the connection"),
                                   InterfaceError("connection already closed")])
def test_a_connection_lost_mid_request_is_a_503_too(alice, api_client_for, error):
    client = api_client_for(alice)
    with mock.patch("memories.selectors.listed", side_effect=error):
        response = client.get("/api/v1/memories")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.json()["error"]["code"] == "service_unavailable"
