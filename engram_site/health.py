"""/healthz: is Engram able to remember and recall right now?"""

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET
from rest_framework.exceptions import AuthenticationFailed

from memories.api.authentication import ApiKeyAuthentication
from memories.llm_usage import llm_status
from memories.models import Memory
from memories.providers.embeddings import get_provider
from memories.queue import backlog


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('server_version'), "
            "(SELECT extversion FROM pg_extension WHERE extname = 'vector')"
        )
        server_version, pgvector_version = cursor.fetchone()
    return {
        "ok": True,
        "embedded": bool(settings.DATABASES["default"].get("EMBEDDED_PGDATA")),
        "server_version": server_version,
        "pgvector": pgvector_version,
    }


def _queue() -> dict:
    from huey.contrib.djhuey import HUEY

    report = {"backend": type(HUEY).__name__, "immediate": HUEY.immediate}
    try:
        report.update(pending=HUEY.pending_count(), scheduled=HUEY.scheduled_count(), ok=True)
    except Exception as exc:  # the queue may be down while the database is up
        report.update(ok=False, error=str(exc).splitlines()[0])
    return report


def _trusted(request) -> bool:
    """Staff signed in, or a valid API key: those may see what waits in the queue."""
    if request.user.is_authenticated and request.user.is_staff:
        return True
    try:
        return ApiKeyAuthentication().authenticate(request) is not None
    except AuthenticationFailed:
        return False


@require_GET
def healthz(request):
    """ok, degraded or unavailable for anyone (a load balancer); the details (versions,
    the database's error, the cost meter, what waits) for staff or a valid API key."""
    trusted = _trusted(request)
    try:
        database = _database()
        awaiting = Memory.objects.awaiting_embedding().count()
    except DatabaseError as exc:
        body = {"status": "unavailable"}
        if trusted:
            body["database"] = {"ok": False, "error": str(exc)}
        return JsonResponse(body, status=503)
    queue = _queue()
    body = {
        "status": "ok" if database["pgvector"] and queue["ok"] else "degraded",
        "database": database,
        "pgvector": database["pgvector"],
        "embedding": {**get_provider().describe(), "awaiting_embedding": awaiting},
        "queue": queue,
        "llm": llm_status(),
    }
    if not trusted:
        return JsonResponse({"status": body["status"]}, status=200)
    body["backlog"] = backlog()
    return JsonResponse(body, status=200)
