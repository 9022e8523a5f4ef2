"""The reflection screen: insights with the memories they cite, review, and the trigger."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from memories import maintenance
from memories.models import JobKind, Memory

from . import services
from .models import Insight, InsightStatus

PAGE = 50


def _listed(owner, status: str):
    insights = Insight.objects.for_owner(owner).select_related("memory")
    if status in InsightStatus.values:
        insights = insights.filter(status=status)
    insights = list(insights[:PAGE])
    cited = Memory.objects.only("id", "content", "status", "superseded_by").in_bulk(
        {i for insight in insights for i in insight.cited_ids})
    for insight in insights:
        insight.cited = [cited[i] for i in insight.cited_ids if i in cited]
    return insights


@login_required
def insights(request):
    status = request.GET.get("status", "")
    context = {"insights": _listed(request.user, status), "status": status,
               "statuses": InsightStatus.choices,
               "state": services.recommendation(request.user),
               "job": maintenance.latest_job(request.user, JobKind.REFLECT)}
    template = "reflection/insights.html#insight-list" if request.htmx else \
        "reflection/insights.html"
    return render(request, template, context)


@login_required
@require_POST
def review(request, insight_id):
    insight = get_object_or_404(Insight.objects.for_owner(request.user), pk=insight_id)
    services.review(insight, approve=request.POST.get("decision") == "approve",
                    by=request.user)
    if request.htmx:
        response = insights(request)
        response["HX-Trigger"] = "insightReviewed"
        return response
    return redirect("reflection")


@login_required
@require_POST
def reflect_now(request):
    job = maintenance.create_job(JobKind.REFLECT, owner=request.user)
    maintenance.queue_job(job)
    return redirect("reflection")
