"""The work log: a project's tasks newest first with the files they touched, narrowed to
one file or one task, beside the files edited together and the error -> fix patterns."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from work import selectors

TIMELINE_TASKS = 50
# A turn that read thousands of files made the page megabytes (30,000 reads: 10 MB, 6 s).
TOUCHES_PER_TASK = 200


class WorkLogFilters(forms.Form):
    project = forms.CharField(max_length=200, required=False)
    path = forms.CharField(max_length=1000, required=False, label="File")
    task = forms.IntegerField(min_value=1, required=False)


@login_required
@require_GET
def work_log(request):
    projects = selectors.projects(request.user)
    filters = WorkLogFilters(request.GET)
    filters.is_valid()  # a bad filter's error is shown; the valid ones apply
    given = filters.cleaned_data
    project = given.get("project") or (projects[0] if projects else "")
    path, task = given.get("path") or "", given.get("task")
    # The select shows the project the timeline is of, one with no work logged too.
    choices = projects if project in projects or not project else [project, *projects]
    context = {
        "filters": filters, "projects": choices, "project": project, "path": path,
        "task_id": task,
        "tasks": selectors.timeline(request.user, project, path=path or None, task_id=task,
                                    limit=TIMELINE_TASKS, touches=TOUCHES_PER_TASK),
        "co_edits": selectors.co_edits(request.user, project, path=path or None),
        "error_fixes": selectors.error_fix_patterns(request.user, project, limit=20),
    }
    template = "dashboard/worklog.html#timeline" if request.htmx else "dashboard/worklog.html"
    return render(request, template, context)
