"""Dashboard screens about the store as a whole: contradictions, jobs, API keys, import
and export, settings, insights.

One view, one template; an htmx request gets a named partial of the same template.
Every screen shows the signed-in person's own data only (another's is a 404).
"""

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from . import capture, maintenance, services, store
from .models import MAX_CONTENT_LENGTH, ApiKey, ContradictionStatus, Resolution

MAX_IMPORT_BYTES = 50 * 1024 * 1024


# --- Contradictions ------------------------------------------------------------------------

RESOLUTIONS = [
    (Resolution.A_WINS, "A wins: keep A, close B"),
    (Resolution.B_WINS, "B wins: keep B, close A"),
    (Resolution.BOTH_VALID, "Both valid: change neither"),
    (Resolution.MERGED, "Merged: store the text below, close both"),
]


class ResolveForm(forms.Form):
    resolution = forms.ChoiceField(choices=RESOLUTIONS, widget=forms.RadioSelect)
    merged_content = forms.CharField(
        label="Merged text", required=False, strip=False, max_length=MAX_CONTENT_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Used only for a merge: both texts to start from; edit them into one.")
    note = forms.CharField(label="Note", required=False, max_length=2000,
                           widget=forms.Textarea(attrs={"rows": 2}),
                           help_text="Why, for whoever reads this later.")

    def clean(self):
        data = super().clean()
        if data.get("resolution") == Resolution.MERGED and not data.get(
                "merged_content", "").strip():
            self.add_error("merged_content", "A merge needs the merged text.")
        return data


@login_required
@require_GET
def contradictions(request):
    """The queue: open contradictions oldest first; resolved ones stay browsable."""
    status = request.GET.get("status")
    if status not in ContradictionStatus.values:
        status = ContradictionStatus.OPEN
    page = Paginator(store.contradiction_queue(request.user, status=status), 25).get_page(
        request.GET.get("page"))
    context = {"status": status, "page": page}
    template = "store/contradictions.html#queue" if request.htmx else "store/contradictions.html"
    return render(request, template, context)


@login_required
@require_http_methods(["GET", "POST"])
def contradiction_detail(request, contradiction_id):
    """The two memories side by side, and the form that resolves them."""
    contradiction = get_object_or_404(store.contradictions_of(request.user),
                                      pk=contradiction_id)
    a, b = contradiction.memory_a, contradiction.memory_b
    form = ResolveForm(request.POST or None,
                       initial={"merged_content": f"{a.content}\n\n{b.content}"})
    resolved_now = False
    if request.method == "POST" and form.is_valid():
        try:
            maintenance.resolve_contradiction(contradiction, by=request.user,
                                              **form.cleaned_data)
        except maintenance.ResolutionError as exc:
            form.add_error(None, str(exc))
        else:
            if not request.htmx:
                return redirect("contradiction_detail", contradiction_id=contradiction.pk)
            contradiction = store.contradictions_of(request.user).get(pk=contradiction.pk)
            resolved_now = True
    context = {"contradiction": contradiction, "form": form,
               "next_open": store.next_open_contradiction(request.user, after=contradiction)}
    template = ("store/contradiction.html#contradiction" if request.htmx
                else "store/contradiction.html")
    response = render(request, template, context)
    if resolved_now:
        trigger_client_event(response, "contradictionResolved", {"id": str(contradiction.pk)})
    return response


# --- Jobs ----------------------------------------------------------------------------------


class StartJobForm(forms.Form):
    kind = forms.ChoiceField(label="Job")
    dry_run = forms.BooleanField(label="Dry run: report what would change, change nothing",
                                 required=False)

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.owner = owner
        self.fields["kind"].choices = store.startable_job_kinds()

    def clean_kind(self):
        kind = self.cleaned_data["kind"]
        if store.active_job_of_kind(self.owner, kind):
            raise ValidationError("A job of this kind is already queued or running; "
                                  "wait for it to finish.")
        return kind


@login_required
@require_http_methods(["GET", "POST"])
def jobs(request):
    """Running and recent jobs with live progress, extraction work, and a job starter."""
    form = StartJobForm(request.POST or None, owner=request.user)
    started = None
    if request.method == "POST" and form.is_valid():
        started = store.start_job(request.user, **form.cleaned_data)
        if not request.htmx:
            return redirect("jobs")
        form = StartJobForm(owner=request.user)
    if request.htmx and request.method == "POST":
        response = render(request, "store/jobs.html#start-job", {"form": form})
        if started:
            trigger_client_event(response, "jobStarted", {"id": str(started.pk)})
        return response
    job_list = store.recent_jobs(request.user)
    observations = list(store.recent_observations(request.user))
    context = {"form": form, "jobs": job_list, "observations": observations,
               "polling": any(job.status in store.ACTIVE_JOB_STATUSES for job in job_list)
               or any(o.status == "pending" for o in observations)}
    template = "store/jobs.html#job-list" if request.htmx else "store/jobs.html"
    return render(request, template, context)


# --- API keys ------------------------------------------------------------------------------


class ApiKeyForm(forms.Form):
    name = forms.CharField(label="Name", max_length=100,
                           help_text="Which agent or machine will use it, e.g. “laptop claude”.")


@login_required
@require_http_methods(["GET", "POST"])
def api_keys(request):
    """The person's keys; a new key is shown once, in the answer to its creation."""
    form = ApiKeyForm(request.POST or None)
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            key, raw = services.create_api_key(owner=request.user, name=form.cleaned_data["name"])
        except ValidationError as exc:
            form.add_error("name", exc.message_dict.get("name", exc.messages))
        else:
            created, form = {"key": key, "raw": raw}, ApiKeyForm()
    context = {"form": form, "created": created, "keys": store.api_keys_of(request.user)}
    template = "store/api_keys.html#keys" if request.htmx else "store/api_keys.html"
    response = render(request, template, context)
    if created:
        add_never_cache_headers(response)
        trigger_client_event(response, "apiKeyCreated")
    return response


@login_required
@require_POST
def revoke_api_key(request, key_id):
    key = get_object_or_404(ApiKey, pk=key_id, owner=request.user)
    services.revoke_api_key(key)
    if not request.htmx:
        return redirect("api_keys")
    response = render(request, "store/api_keys.html#keys",
                      {"form": ApiKeyForm(), "keys": store.api_keys_of(request.user)})
    trigger_client_event(response, "apiKeyRevoked", {"id": key.pk})
    return response


# --- Import and export ---------------------------------------------------------------------


class ImportForm(forms.Form):
    file = forms.FileField(label="JSONL file", help_text="One memory per line, as exported.")
    skip_bad_lines = forms.BooleanField(
        label="Skip bad lines and import the rest", required=False,
        help_text="Unticked, a file with any bad line imports nothing.")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise ValidationError(f"The file is over {MAX_IMPORT_BYTES // 2**20} MB: "
                                  f"split it into smaller files.")
        return upload


@login_required
@require_http_methods(["GET", "POST"])
def transfer(request):
    """Export one's memories as JSONL, or import a JSONL file through remember_many."""
    form = ImportForm(request.POST or None, request.FILES or None)
    report = None
    if request.method == "POST" and form.is_valid():
        parsed, report = store.parse_jsonl(form.cleaned_data["file"])
        store.import_memories(request.user, parsed, report,
                              skip_bad_lines=form.cleaned_data["skip_bad_lines"])
        if report.bad and not report.skipped_bad:
            form.add_error("file", f"{len(report.bad)} bad line{'s' * (len(report.bad) != 1)}: "
                                   "nothing was imported.")
    context = {"form": form, "report": report, "formats": store.EXPORT_FORMATS,
               "memory_count": request.user.memories.visible().count()}
    template = "store/transfer.html#import" if request.htmx else "store/transfer.html"
    response = render(request, template, context)
    if report and report.written:
        trigger_client_event(response, "memoriesImported",
                             {"created": report.created, "strengthened": report.strengthened})
    return response


@login_required
@require_GET
def export_memories(request):
    filename = f"engram-{request.user.get_username()}-{timezone.localdate():%Y-%m-%d}.jsonl"
    response = StreamingHttpResponse(store.export_lines(request.user),
                                     content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- Charts: specs that static/store/charts.js turns into Chart.js charts ----------------


def chart(kind: str, labels, *series: dict, **options) -> dict:
    """One chart: its type, x labels, and series of {label, values[, type, axis]}."""
    return {"type": kind, "labels": list(labels), "series": list(series), **options}


def series(label: str, values, **options) -> dict:
    return {"label": label, "values": list(values), **options}


# --- Settings ------------------------------------------------------------------------------


@login_required
@require_GET
def settings_page(request):
    """The providers in use, the thresholds in force, and what the models have cost."""
    cost = store.cost_meter(request.user)
    per_day = cost["chart"]
    context = {"embedding": store.embedding_status(request.user),
               "llm": capture.llm_status(owner=request.user),
               "thresholds": store.thresholds_in_force(), "cost": cost,
               "cost_charts": {"per_day": chart(
                   "bar", per_day["labels"], series("tokens", per_day["tokens"]),
                   series("estimated cost (USD)", per_day["cost"], type="line", axis="y2"),
                   yTitle="tokens", y2Title="USD")}}
    return render(request, "store/settings.html", context)


# --- Insights ------------------------------------------------------------------------------

PERIODS = [(30, "30 days"), (90, "90 days"), (365, "a year")]
COUNT_TITLES = {"memory_type": "type", "kind": "kind", "status": "status"}


class PeriodForm(forms.Form):
    days = forms.TypedChoiceField(label="Period", choices=PERIODS, coerce=int, initial=90)


def _activity(owner, days: int) -> dict:
    now = timezone.now()
    return {"created": store.created_per_day(owner, days=days, now=now),
            "retrieved": store.retrievals_per_day(owner, days=days, now=now),
            "forgotten": store.forgotten_per_week(owner, weeks=max(4, days // 7), now=now)}


def _activity_charts(activity: dict, total: int | None) -> dict:
    created, retrieved, forgotten = (activity[k] for k in ("created", "retrieved", "forgotten"))
    growth = [series("created", created["values"])]
    if total is not None:  # the store's size at the end of each day
        size, running = [], total - created["total"]
        for n in created["values"]:
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
def insights(request):
    """Counts, activity over time, the forgetting curve, and a graph of the store."""
    period = PeriodForm(request.GET or None)
    days = period.cleaned_data["days"] if period.is_valid() else 90
    counts = store.store_counts(request.user)
    activity = _activity(request.user, days)
    context = {"period": period if period.is_bound else PeriodForm(initial={"days": days}),
               "days": days, "activity": activity,
               "activity_charts": _activity_charts(activity, counts["total"])}
    if request.htmx:
        return render(request, "store/insights.html#activity", context)
    forgetting = store.forgetting_curves()
    graph = store.memory_graph(request.user)
    context |= {
        "counts": counts, "forgetting": forgetting, "graph": graph,
        "merged": store.merged_duplicates(request.user, days=30, now=timezone.now()),
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
    return render(request, "store/insights.html", context)
