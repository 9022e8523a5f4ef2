"""Schemathesis against the published OpenAPI schema, with a valid key: whatever it
generates (valid and invalid bodies, query strings and path parameters), the API answers
without a server error, and every 4xx comes in the one error shape (memories/api/errors.py).

Bounded and reproducible: 25 examples an operation, derandomized (the same cases every
run), each request through Django's WSGI handler in this process, on the test database.
"""

import os

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from rest_framework.throttling import ScopedRateThrottle
from schemathesis.checks import not_a_server_error

from memories.api.errors import CODES
from memories.services.api_keys import create_api_key


def _published_schema() -> dict:
    """What /api/schema/ serves (same generator, no request needed at import time)."""
    import json

    from drf_spectacular.renderers import OpenApiJsonRenderer

    document = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(document))


schema = schemathesis.openapi.from_dict(_published_schema())
schema.app = get_wsgi_application()


@pytest.fixture
def bearer(transactional_db, alice, monkeypatch):
    # The rate limits are not what is under test: a longer hunt by hand must not run
    # into them either.
    lifted = {scope: "1000000/min" for scope in ScopedRateThrottle.THROTTLE_RATES}
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", lifted)
    _, raw_key = create_api_key(owner=alice, name="fuzz")
    return {"Authorization": f"Bearer {raw_key}"}


def assert_error_shape(response) -> None:
    """A 4xx is {"error": {status, code, message, fields?}} and nothing else."""
    content_type = {k.lower(): v for k, v in response.headers.items()}.get("content-type")
    assert content_type and "json" in content_type[0], (
        f"{response.status_code} is not JSON: {response.text[:300]!r}")
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error = body["error"]
    assert error["status"] == response.status_code, body
    assert error["code"] == CODES.get(response.status_code, "error"), body
    assert isinstance(error["message"], str) and error["message"], body
    if "fields" in error:
        assert isinstance(error["fields"], dict) and all(
            isinstance(messages, list) and all(isinstance(m, str) for m in messages)
            for messages in error["fields"].values()), body


@schema.parametrize()
# ENGRAM_FUZZ_EXAMPLES=200 ENGRAM_FUZZ_RANDOM=1 for a longer hunt by hand (RELIABILITY.md).
@settings(max_examples=int(os.environ.get("ENGRAM_FUZZ_EXAMPLES", "25")),
          derandomize=not os.environ.get("ENGRAM_FUZZ_RANDOM"), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_server_error_and_every_4xx_in_the_error_shape(case, bearer):
    response = case.call(headers=bearer)
    case.validate_response(response, checks=[not_a_server_error], headers=bearer)
    if 400 <= response.status_code < 500:
        assert_error_shape(response)
