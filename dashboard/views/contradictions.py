"""The contradictions queue, and one contradiction side by side with the form that resolves it.

The queue is one's own contradictions and those of the projects one owns or edits
(`Contradiction.objects.queued_for`). A project's reader may open one between memories
they read, read only (the service refuses a resolution: 403); a stranger gets a 404.
"""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import trigger_client_event

from memories.maintenance.contradictions import (
    ResolutionError,
    may_resolve,
    resolve_contradiction,
)
from memories.models import ContradictionStatus
from memories.selectors import (
    contradiction_queue,
    contradictions_of,
    next_open_contradiction,
)

from ..forms import ResolveForm
from ..queries import label_projects, project_labels, still_readable


@login_required
@require_GET
def contradiction_list(request):
    """The queue: open contradictions oldest first; resolved ones stay browsable. Unsure
    verdicts are listed only when asked for (`unsure=1`)."""
    status = request.GET.get("status")
    if status not in ContradictionStatus.values:
        status = ContradictionStatus.OPEN
    unsure = request.GET.get("unsure") == "1"
    page = Paginator(contradiction_queue(request.user, status=status, unsure=unsure),
                     25).get_page(request.GET.get("page"))
    if projects := [c.shared_with for c in page if c.shared_with is not None]:
        label_projects(project_labels(request.user), projects)
    # a tab or the toggle swapped the list away with the link just pressed: focus goes to
    # the tab now current, not to the top of the page (not when the list refreshes itself)
    context = {"status": status, "page": page, "unsure": unsure,
               "focus_tab": bool(request.htmx) and request.htmx.trigger != "queue"}
    template = "dashboard/contradictions.html#queue" if request.htmx else "dashboard/contradictions.html"
    return render(request, template, context)


@login_required
@require_http_methods(["GET", "POST"])
def contradiction_detail(request, contradiction_id):
    """The two memories side by side, and the form that resolves them."""
    contradiction = get_object_or_404(contradictions_of(request.user),
                                      pk=contradiction_id)
    a, b = contradiction.memory_a, contradiction.memory_b
    form = ResolveForm(request.POST or None,
                       initial={"merged_content": f"{a.content}\n\n{b.content}"})
    resolved_now = False
    if request.method == "POST" and form.is_valid():
        try:
            resolve_contradiction(contradiction, by=request.user,
                                              **form.cleaned_data)
        except ResolutionError as exc:
            form.add_error(None, str(exc))
        else:
            if not request.htmx:
                return redirect("contradiction_detail", contradiction_id=contradiction.pk)
            contradiction = contradictions_of(request.user).get(pk=contradiction.pk)
            resolved_now = True
    if request.htmx and (wrong := [name for name in form.errors if name in form.fields]):
        # the form was swapped away with the button pressed: focus goes to what to fix
        form.fields[wrong[0]].widget.attrs["autofocus"] = True
    context = {"contradiction": contradiction, "form": form, "resolved_now": resolved_now,
               "may_resolve": may_resolve(contradiction, request.user),
               "merged": still_readable(request.user, contradiction.merged_into),
               "next_open": next_open_contradiction(request.user, after=contradiction)}
    template = ("dashboard/contradiction.html#contradiction" if request.htmx
                else "dashboard/contradiction.html")
    response = render(request, template, context)
    if resolved_now:
        trigger_client_event(response, "contradictionResolved", {"id": str(contradiction.pk)})
    return response
