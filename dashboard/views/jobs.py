"""Jobs: running and recent ones with live progress, extraction work, and a job starter."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from django_htmx.http import trigger_client_event

from memories.jobs import ACTIVE_STATUSES, JobAlreadyActive, recent_jobs, start_job
from memories.queue import backlog

from ..forms import StartJobForm
from ..queries import recent_observations


@login_required
@require_http_methods(["GET", "POST"])
def job_list(request):
    """Running and recent jobs with live progress, extraction work, and a job starter."""
    form = StartJobForm(request.POST or None, owner=request.user)
    started = None
    if request.method == "POST" and form.is_valid():
        try:
            started = start_job(owner=request.user, **form.cleaned_data)
        except JobAlreadyActive as exc:  # started elsewhere since the form was checked
            form.add_error("kind", str(exc))
        else:
            if not request.htmx:
                return redirect("jobs")
            form = StartJobForm(owner=request.user)
    if request.htmx and request.method == "POST":
        response = render(request, "dashboard/jobs.html#start-job", {"form": form})
        if started:
            trigger_client_event(response, "jobStarted", {"id": str(started.pk)})
        return response
    job_list = recent_jobs(request.user)
    observations = list(recent_observations(request.user))
    context = {"form": form, "jobs": job_list, "observations": observations,
               # Staff see every owner's backlog; a person sees their own.
               "backlog": backlog(owner=None if request.user.is_staff else request.user),
               "polling": any(job.status in ACTIVE_STATUSES for job in job_list)
               or any(o.status == "pending" for o in observations)}
    template = "dashboard/jobs.html#job-list" if request.htmx else "dashboard/jobs.html"
    return render(request, template, context)
