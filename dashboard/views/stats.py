"""Stats: counts, activity over time, the forgetting curve, and a graph of the store."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from ..forms import PeriodForm
from ..stats import (
    chart,
    created_per_day,
    forgetting_curves,
    forgotten_per_week,
    memory_graph,
    merged_duplicates,
    retrievals_per_day,
    series,
    store_counts,
)

COUNT_TITLES = {"memory_type": "type", "kind": "kind", "status": "status"}


def _activity(user, days: int) -> dict:
    now = timezone.now()
    return {"created": created_per_day(user, days=days, now=now),
            "retrieved": retrievals_per_day(user, days=days, now=now),
            "forgotten": forgotten_per_week(user, weeks=max(4, days // 7), now=now)}


def _activity_charts(activity: dict, stored: int | None) -> dict:
    """`stored`: the memories the heading counts, the forgotten left out."""
    created, retrieved, forgotten = (activity[k] for k in ("created", "retrieved", "forgotten"))
    growth = [series("created", created["values"])]
    if stored is not None:  # the store's size at the end of each day, as the heading counts
        size, running = [], stored - sum(created["kept"])
        for n in created["kept"]:
            running += n
            size.append(running)
        growth.append(series("stored in all", size, type="line", axis="y2"))
    return {"created": chart("bar", created["labels"], *growth, y2Title="stored"),
            "retrieved": chart("bar", retrieved["labels"],
                               series("retrievals", retrieved["values"])),
            "forgotten": chart("bar", forgotten["labels"],
                               series("forgotten", forgotten["values"]))}


@login_required
@require_GET
def stats(request):
    """Counts, activity over time, the forgetting curve, and a graph of the store."""
    period = PeriodForm(request.GET or None)
    days = period.cleaned_data["days"] if period.is_valid() else 90
    counts = store_counts(request.user)
    activity = _activity(request.user, days)
    # The select shows the period in force, 90 days after a bad ?days=, beside the error.
    context = {"period": PeriodForm(initial={"days": days}),
               "period_errors": period.errors.get("days", ()), "days": days,
               "activity": activity,
               "activity_charts": _activity_charts(activity, counts["visible"])}
    if request.htmx:
        return render(request, "dashboard/stats.html#activity", context)
    forgetting = forgetting_curves()
    graph = memory_graph(request.user)
    context |= {
        "counts": counts, "forgetting": forgetting, "graph": graph,
        "merged": merged_duplicates(request.user, days=30, now=timezone.now()),
        "graph_elements": {"nodes": graph["nodes"], "edges": graph["edges"]},
        "count_tables": [{"name": name, "title": title, "rows": counts[name]}
                         for name, title in COUNT_TITLES.items()],
        "insight_charts": {
            **{name: chart("doughnut" if name != "kind" else "bar",
                           [label for label, _ in counts[name]],
                           series("memories", [n for _, n in counts[name]]))
               for name in COUNT_TITLES},
            "forgetting": chart("line", forgetting["labels"],
                                *(series(c["label"], c["values"]) for c in forgetting["curves"]),
                                xTitle="days unused", yTitle="retention", yMax=1),
        },
    }
    return render(request, "dashboard/stats.html", context)
