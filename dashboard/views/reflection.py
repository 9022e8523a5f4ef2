"""Reflection: insights with the memories they cite, review, and the trigger.

Listed are the insights whose memory one reads (one's own, one's projects'); reviewing
one changes its memory, so it takes a person who may change that memory.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from memories.jobs import JobAlreadyActive, latest_job, start_job
from memories.models import JobKind, Memory
from reflection.models import Insight, InsightStatus
from reflection.services import recommendation, review

from ..queries import writable_ids

PAGE = 50


def _listed(user, status: str):
    insights = Insight.objects.readable_by(user).select_related("memory")
    if status in InsightStatus.values:
        insights = insights.filter(status=status)
    insights = list(insights[:PAGE])
    cited = Memory.objects.readable_by(user).only(
        "id", "content", "status", "superseded_by").in_bulk(
        {i for insight in insights for i in insight.cited_ids})
    writable = writable_ids(user, [insight.memory_id for insight in insights])
    for insight in insights:
        insight.cited = [cited[i] for i in insight.cited_ids if i in cited]
        insight.reviewable = insight.memory_id in writable
    return insights


def _insight_list(request, reviewed=None):
    status = request.GET.get("status", "")
    context = {"insights": _listed(request.user, status), "status": status,
               "reviewed": reviewed,
               "statuses": InsightStatus.choices,
               "state": recommendation(request.user),
               "job": latest_job(request.user, JobKind.REFLECT)}
    template = "dashboard/insights.html#insight-list" if request.htmx else \
        "dashboard/insights.html"
    return render(request, template, context)


@login_required
@require_GET
def insights(request):
    return _insight_list(request)


@login_required
@require_POST
def insight_review(request, insight_id):
    insight = get_object_or_404(Insight.objects.readable_by(request.user), pk=insight_id)
    insight = review(insight, approve=request.POST.get("decision") == "approve",
                     by=request.user)
    if request.htmx:
        # The button pressed is disabled, or gone with the insight under a filter: a
        # keyboard user is taken to what happened.
        return trigger_client_event(_insight_list(request, reviewed=insight),
                                    "insightReviewed")
    return redirect("reflection")


@login_required
@require_POST
def reflect_now(request):
    try:
        start_job(JobKind.REFLECT, owner=request.user)
    except JobAlreadyActive as exc:
        messages.info(request, str(exc))
    return redirect("reflection")
