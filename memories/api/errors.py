"""One JSON error shape for the whole API:

    {"error": {"status": 400, "code": "invalid_request", "message": "...",
               "fields": {"content": ["Content is empty: ..."]}}}
"""

import logging
import re

from django.conf import settings
from django.core.exceptions import (
    ObjectDoesNotExist,
    RequestDataTooBig,
    TooManyFieldsSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from memories.selectors import NoSuchProject, NotAllowed, OutOfProject
from memories.services.editing import FeedbackTooSoon

log = logging.getLogger(__name__)

CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal_error",
    503: "service_unavailable",
}


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with what is stored."
    default_code = "conflict"


def error_body(status_code: int, message: str, fields: dict | None = None, **extra) -> dict:
    body = {"status": status_code, "code": CODES.get(status_code, "error"), "message": message}
    if fields:
        body["fields"] = fields
    return {"error": {**body, **extra}}


SHOWN_HEAD, SHOWN_TAIL = 400, 100  # characters of a message kept either side of a cut


def shown(message) -> str:
    """A message as an answer can carry it. DRF echoes a refused value ('"…" is not a
    valid choice.'): cut in the middle, so a megabyte sent is not two megabytes answered
    and logged, and a lone surrogate written as an escape, which no JSON encoder can
    write as UTF-8."""
    text = str(message)
    if len(text) > SHOWN_HEAD + SHOWN_TAIL:
        text = f"{text[:SHOWN_HEAD]}…{text[-SHOWN_TAIL:]}"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _field_errors(detail, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested errors as {"filters.kinds.0": ["..."]}: one flat map a client can show."""
    if isinstance(detail, dict):
        found: dict[str, list[str]] = {}
        for name, inner in detail.items():
            found.update(_field_errors(inner, f"{prefix}{name}."))
        return found
    if isinstance(detail, list) and any(isinstance(item, (dict, list)) for item in detail):
        found = {}
        for index, inner in enumerate(detail):
            found.update(_field_errors(inner, f"{prefix}{index}."))
        return found
    messages = detail if isinstance(detail, list) else [detail]
    return {shown(prefix.rstrip(".")) or "non_field_errors": [shown(m) for m in messages]} \
        if messages else {}


def flatten(detail) -> tuple[str, dict | None]:
    """A validation error's detail as one message (naming the first field) and the map."""
    if isinstance(detail, dict):
        fields = _field_errors(detail)
        first_name, first = next(iter(fields.items()))
        return f"{first_name}: {first[0]}", fields
    if isinstance(detail, list):
        return "; ".join(shown(d) for d in detail), None
    return shown(detail), None


def as_api_validation_error(exc: DjangoValidationError) -> exceptions.ValidationError:
    """A model or service validation error as DRF's, field by field when it has fields."""
    return exceptions.ValidationError(
        exc.message_dict if hasattr(exc, "error_dict") else exc.messages)


_NO_MATCH = re.compile(r"No (\w+) matches the given query\.")


def _not_found(exc: Http404) -> str:
    """What was not found, in words: get_object_or_404 names the model ("No Observation
    matches the given query."); only what the caller may reach is ever looked in."""
    if match := _NO_MATCH.fullmatch(str(exc)):
        thing = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", match[1]).lower()
        return f"No such {thing} for this owner."
    return str(exc) or "Not found."


def _gone(exc: ObjectDoesNotExist) -> str:
    """"No such memory for this owner." from Memory.DoesNotExist."""
    model = type(exc).__qualname__.removesuffix(".DoesNotExist")
    return _not_found(Http404(f"No {model} matches the given query."))


def handle(exc, context):
    if isinstance(exc, DjangoValidationError):
        exc = as_api_validation_error(exc)
    elif isinstance(exc, (OutOfProject, NotAllowed)):
        exc = exceptions.PermissionDenied(str(exc))
    elif isinstance(exc, NoSuchProject):
        exc = exceptions.NotFound(str(exc))
    elif isinstance(exc, FeedbackTooSoon):
        exc = exceptions.Throttled(wait=exc.retry_after, detail=str(exc))
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(_not_found(exc))
    elif isinstance(exc, ObjectDoesNotExist):
        # found, then gone before its row could be locked: another request erased it
        exc = exceptions.NotFound(_gone(exc))
    elif isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response(error_body(413, f"The request body is over {limit:,} bytes: send "
                                        "less at a time."), status=413)
    elif isinstance(exc, TooManyFieldsSent):
        exc = exceptions.ParseError(f"More than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} "
                                    "parameters: send fewer.")

    response = exception_handler(exc, context)
    if response is not None:
        message, fields = flatten(response.data.get("detail", response.data)
                                   if isinstance(response.data, dict) and "detail" in response.data
                                   else response.data)
        response.data = error_body(response.status_code, message, fields)
        return response
    if isinstance(exc, (OperationalError, InterfaceError)):
        log.error("database unavailable: %s", exc)
        return Response(error_body(503, "The database is unavailable; retry shortly."),
                        status=503, headers={"Retry-After": "5"})
    log.exception("unhandled API error", exc_info=exc)
    return Response(error_body(500, "Something went wrong on our side; it has been logged."),
                    status=500)


def _api_path(request) -> bool:
    return request.path.startswith("/api/")


def page_not_found(request, exception=None):
    """Django's 404 for a URL no view matched (e.g. /api/v1/memories/not-a-uuid): JSON
    in the one shape under /api/, the usual page elsewhere."""
    if _api_path(request):
        return JsonResponse(error_body(404, "No such API endpoint, or a malformed id in "
                                            "the path."), status=404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    """An error outside DRF's handler (middleware, URL resolution) under /api/: still JSON."""
    if _api_path(request):
        return JsonResponse(error_body(500, "Something went wrong on our side; it has been "
                                            "logged."), status=500)
    return defaults.server_error(request)


def bad_request(request, exception=None):
    if _api_path(request):
        return JsonResponse(error_body(400, "The request could not be read."), status=400)
    return defaults.bad_request(request, exception)
