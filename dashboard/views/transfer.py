"""Import and export: one's memories as JSONL, and a JSONL file stored through remember_many."""

from django.contrib.auth.decorators import login_required
from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import trigger_client_event

from memories.services.transfer import (
    EXPORT_FORMATS,
    export_lines,
    import_memories,
    parse_jsonl,
)

from ..forms import ImportForm


@login_required
@require_http_methods(["GET", "POST"])
def transfer_page(request):
    """Export one's memories as JSONL, or import a JSONL file through remember_many."""
    form = ImportForm(request.POST or None, request.FILES or None)
    report = None
    if request.method == "POST" and form.is_valid():
        parsed, report = parse_jsonl(form.cleaned_data["file"])
        import_memories(request.user, parsed, report,
                              skip_bad_lines=form.cleaned_data["skip_bad_lines"])
        if report.bad and not report.skipped_bad:
            form.add_error("file", f"{len(report.bad)} bad line{'s' * (len(report.bad) != 1)}: "
                                   "nothing was imported.")
    context = {"form": form, "report": report, "formats": EXPORT_FORMATS,
               "memory_count": request.user.memories.visible().count()}
    template = "dashboard/transfer.html#import" if request.htmx else "dashboard/transfer.html"
    response = render(request, template, context)
    if report and report.written:
        trigger_client_event(response, "memoriesImported",
                             {"created": report.created, "strengthened": report.strengthened})
    return response


@login_required
@require_GET
def export_memories(request):
    filename = f"engram-{request.user.get_username()}-{timezone.localdate():%Y-%m-%d}.jsonl"
    response = StreamingHttpResponse(export_lines(request.user),
                                     content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
