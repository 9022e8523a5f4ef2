"""Settings: the providers in use, the thresholds in force, and what the models have cost."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memories.llm_usage import llm_status

from ..queries import embedding_status, thresholds_in_force
from ..stats import chart, cost_meter, series


@login_required
@require_GET
def settings_page(request):
    """The providers in use, the thresholds in force, and what the models have cost."""
    cost = cost_meter(request.user)
    per_day = cost["chart"]
    context = {"embedding": embedding_status(request.user),
               "llm": llm_status(owner=request.user),
               "thresholds": thresholds_in_force(), "cost": cost,
               "cost_charts": {"per_day": chart(
                   "bar", per_day["labels"], series("tokens", per_day["tokens"]),
                   series("estimated cost (USD)", per_day["cost"], type="line", axis="y2"),
                   yTitle="tokens", y2Title="USD")}}
    return render(request, "dashboard/settings.html", context)
