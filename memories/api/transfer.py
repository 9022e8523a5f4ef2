"""Import and export as JSONL: a file imported within the request or, when large, as a
job; the owner's store exported, streamed a line at a time."""

from django.conf import settings
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from memories.jobs import JobAlreadyActive
from memories.services.transfer import (
    IMPORT_FORMATS,
    export_lines,
    import_jsonl,
    runs_as_job,
    start_import_job,
)

from .errors import Conflict
from .views import ScopedView


class TooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


def too_large() -> TooLarge:
    limit = settings.ENGRAM_IMPORT_MAX_BYTES
    return TooLarge(f"The file is over {limit:,} bytes: split it into smaller files.")


class JsonLinesParser(BaseParser):
    """The file as the raw body. Read here, not by Django's request.body, so the limit is
    the import's own (ENGRAM_IMPORT_MAX_BYTES), not that of a JSON request."""

    media_type = "application/x-ndjson"

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.ENGRAM_IMPORT_MAX_BYTES
        data = stream.read(limit + 1) if stream is not None else b""
        if len(data) > limit:
            raise too_large()
        return {"file": data}


class JsonlParser(JsonLinesParser):
    media_type = "application/jsonl"


class ImportReportOutput(serializers.Serializer):
    imported = inline_serializer("ImportedCounts", {
        "memories": serializers.IntegerField(), "entities": serializers.IntegerField(),
        "relationships": serializers.IntegerField(),
        "contradictions": serializers.IntegerField()})
    strengthened = serializers.IntegerField(
        help_text="Lines that were near-duplicates of stored memories and strengthened them")
    already_stored = serializers.IntegerField(
        help_text="Memories of an export found stored as they are (the same text, project "
                  "and creation time), left as they are")
    contradictions_already_stored = serializers.IntegerField(
        help_text="Contradictions of an export found recorded between the same two memories, "
                  "left as they are (an open one takes the file's resolution, and is counted "
                  "as imported)")
    undeleted = serializers.IntegerField(
        help_text="Memories of an export you deleted since, found deleted and brought back "
                  "with their exported status")
    skipped = serializers.IntegerField(help_text="Bad lines (or observations) left out")
    errors = inline_serializer("ImportError", {
        "line": serializers.IntegerField(), "message": serializers.CharField()}, many=True)


class ImportJobOutput(serializers.Serializer):
    job_id = serializers.UUIDField()
    status = serializers.CharField()
    url = serializers.CharField(help_text="Poll it for the job's progress and report")


class Import(ScopedView):
    throttle_scope = "memories"
    parser_classes = (JsonLinesParser, JsonlParser, MultiPartParser)

    class ImportOptions(serializers.Serializer):
        format = serializers.ChoiceField(
            IMPORT_FORMATS, required=False,
            help_text="engram or mcp-memory; by default told from the first line (the MCP "
                      "memory server's lines are typed entity or relation)")
        project = serializers.CharField(
            max_length=200, required=False, allow_blank=True,
            help_text="The project of every imported memory (default: each line's own, "
                      "none for the MCP graph). A key restricted to a project imports into "
                      "it, and reports a line naming another project as an error")

    @extend_schema(
        parameters=[ImportOptions],
        request={"application/x-ndjson": OpenApiTypes.BINARY,
                 "multipart/form-data": inline_serializer(
                     "ImportUpload", {"file": serializers.FileField()})},
        responses={200: ImportReportOutput, 202: ImportJobOutput,
                   409: OpenApiResponse(description="Another import of yours is running"),
                   413: OpenApiResponse(description="The file is over the import limit")},
        summary="Import a JSONL file: Engram's export or the MCP memory server's graph; "
                "a large file is queued as a job")
    def post(self, request):
        if int(request.META.get("CONTENT_LENGTH") or 0) > settings.ENGRAM_IMPORT_MAX_BYTES:
            raise too_large()
        options = self.ImportOptions(data=request.query_params)
        options.is_valid(raise_exception=True)
        data = self._file(request)
        fmt, project = (options.validated_data.get("format"),
                        self.reach.project_for(options.validated_data.get("project") or None))
        within = self.reach.project
        if runs_as_job(data):
            try:
                job = start_import_job(request.user, data, fmt=fmt, project=project,
                                       within=within)
            except JobAlreadyActive as exc:
                raise Conflict(str(exc)) from None
            return Response(ImportJobOutput({
                "job_id": job.pk, "status": job.status,
                "url": reverse("api-job", args=[job.pk])}).data, status=202)
        report = import_jsonl(request.user, data, fmt=fmt, project=project, within=within)
        return Response(ImportReportOutput(report.as_dict()).data)

    @staticmethod
    def _file(request) -> bytes:
        upload = request.data.get("file")
        if isinstance(upload, bytes):
            data = upload
        elif upload is not None and hasattr(upload, "read"):
            if upload.size > settings.ENGRAM_IMPORT_MAX_BYTES:
                raise too_large()
            data = upload.read()
        else:
            data = b""
        if not data.strip():
            raise exceptions.ValidationError({"file": [(
                "Send the JSONL file as the body (application/x-ndjson) or as the "
                "multipart field file.")]})
        return data


class JsonLinesRenderer(JSONRenderer):
    """Lets a client ask for the export by its media type; an error is then one line."""

    media_type = "application/x-ndjson"
    format = "jsonl"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return super().render(data, accepted_media_type, renderer_context) + b"\n"


class Export(ScopedView):
    throttle_scope = "memories"
    renderer_classes = (JSONRenderer, JsonLinesRenderer)

    @extend_schema(
        responses={(200, "application/x-ndjson"): OpenApiTypes.BINARY},
        summary="Export as JSONL: entities, memories with their versions, links and "
                "insights, relationships and the contradictions between the memories "
                "(not deleted memories or project sharing)")
    def get(self, request):
        filename = f"engram-{request.user.get_username()}-{timezone.localdate():%Y-%m-%d}.jsonl"
        response = StreamingHttpResponse(export_lines(request.user,
                                                      project=self.reach.project),
                                         content_type="application/x-ndjson; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
