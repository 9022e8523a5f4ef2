"""Jobs: running and recent ones with live progress, extraction work, and a job starter."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from memories.capture.extraction import NothingToRetry, retry_failed_chunks
from memories.jobs import ACTIVE_STATUSES, JobAlreadyActive, recent_jobs, start_job
from memories.models import ObservationStatus
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
        response = render(request, "dashboard/jobs.html#start-job",
                          {"form": form, "started": started})
        if started:
            trigger_client_event(response, "jobStarted", {"id": str(started.pk)})
        return response
    template = "dashboard/jobs.html#job-list" if request.htmx else "dashboard/jobs.html"
    return render(request, template, {"form": form, **_job_list(request.user)})


@login_required
@require_POST
def observation_retry(request, observation_id):
    """Send an observation's failed chunks through extraction again."""
    try:
        if retry_failed_chunks(request.user, observation_id) is None:
            raise Http404("No such observation.")
    except NothingToRetry as exc:  # retried already, from another tab or the API
        messages.info(request, str(exc))
    if request.htmx:
        return render(request, "dashboard/jobs.html#job-list", _job_list(request.user))
    return redirect("jobs")


def _job_list(user) -> dict:
    jobs = recent_jobs(user)
    observations = list(recent_observations(user))
    return {"jobs": jobs, "observations": observations,
            # Staff see every owner's backlog; a person sees their own.
            "backlog": backlog(owner=None if user.is_staff else user),
            "polling": any(job.status in ACTIVE_STATUSES for job in jobs)
            or any(o.status == ObservationStatus.PENDING for o in observations)}
