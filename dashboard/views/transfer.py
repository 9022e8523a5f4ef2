"""Import and export: one's store as JSONL, and a JSONL file (Engram's own or the MCP
memory server's graph) imported, within the request or, when large, as a job."""

from django.contrib.auth.decorators import login_required
from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import trigger_client_event

from memories.jobs import JobAlreadyActive
from memories.services.transfer import (
    EXPORT_FORMATS,
    export_lines,
    import_jsonl,
    runs_as_job,
    start_import_job,
)

from ..forms import ImportForm


@login_required
@require_http_methods(["GET", "POST"])
def transfer_page(request):
    """Export one's store as JSONL, or import a JSONL file."""
    form = ImportForm(request.POST or None, request.FILES or None)
    report = job = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data["file"].read()
        options = {"fmt": form.cleaned_data["format"] or None,
                   "project": form.cleaned_data["project"] or None}
        if runs_as_job(data):
            try:
                job = start_import_job(request.user, data, **options)
            except JobAlreadyActive as exc:
                form.add_error("file", str(exc))
        else:
            report = import_jsonl(request.user, data, **options,
                                  skip_bad_lines=form.cleaned_data["skip_bad_lines"])
            if report.bad and not report.skipped_bad:
                form.add_error("file", f"{len(report.bad)} bad line"
                                       f"{'s' * (len(report.bad) != 1)}: nothing was imported.")
    context = {"form": form, "report": report, "job": job, "formats": EXPORT_FORMATS,
               "memory_count": request.user.memories.visible().count()}
    template = "dashboard/transfer.html#import" if request.htmx else "dashboard/transfer.html"
    response = render(request, template, context)
    if report and report.written:
        trigger_client_event(response, "memoriesImported",
                             {"created": report.created, "strengthened": report.strengthened})
    if job:
        trigger_client_event(response, "jobStarted", {"id": str(job.pk)})
    return response


@login_required
@require_GET
def export_memories(request):
    filename = f"engram-{request.user.get_username()}-{timezone.localdate():%Y-%m-%d}.jsonl"
    response = StreamingHttpResponse(export_lines(request.user),
                                     content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
