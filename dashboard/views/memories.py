"""The memories screens: the list with search, a memory's page, and the actions on it.

A person sees every memory they read (theirs, their projects', the system's) and changes
only those they may write: 404 for a memory they do not read, 403 for one they only read.
"""

from django.conf import settings as django_settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import Truncator
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from memories.llm_usage import llm_status
from memories.models import LinkRelation, Status
from memories.selectors import listed, readable_ids, require_erasable
from memories.services.editing import (
    FeedbackTooSoon,
    bulk_change,
    bulk_undo_delete,
    delete_memory,
    give_feedback,
    restore_memory,
    update_memory,
)
from memories.services.erasing import erase_memory

from ..forms import BulkForm, MemoryEditForm, MemoryFilterForm, SelectionForm
from ..queries import (
    OUTGOING,
    entities,
    history,
    label_projects,
    memory_for,
    neighbours,
    open_contradiction_of,
    project_labels,
    read_only_reason,
    readable_memories,
    search,
    sorted_memories,
    strength,
    usage,
    writable_ids,
    writable_memory_for,
)
from ..text import highlight, query_stems

PAGE_SIZE = 25


SEARCH_LIMIT = 100


SNIPPET_CHARS = 400


@login_required
@require_GET
def memory_list(request):
    """The memories one reads, filtered, sorted and paged; with a query, the hybrid
    recall's hits with their score breakdowns. Only those one may change can be ticked."""
    labels = project_labels(request.user)
    form = MemoryFilterForm(request.GET, projects=labels)
    form.is_valid()  # errors are shown next to their fields; the valid filters apply
    filters, sort = form.selector_filters(), form.sort_order()
    query = (form.cleaned_data.get("q") or "").strip()
    scope = form.cleaned_data.get("scope") or None
    # A query the form refused (too long) lists nothing: not the whole store beneath it.
    context = {"form": form, "query": query, "search_error": "", "refused": "q" in form.errors,
               "undo_ids": request.session.pop("undo_ids", [])}
    if context["refused"]:
        rows = []
    elif query:
        try:
            rows = search(request.user, query, filters, sort, limit=SEARCH_LIMIT, scope=scope)
        except ValidationError as exc:
            rows, context["search_error"], context["refused"] = [], "; ".join(exc.messages), True
    else:
        rows = sorted_memories(
            listed(readable_memories(request.user, scope=scope), **filters), sort)
    context["page"] = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    shown = [row.memory if query else row for row in context["page"]]
    context["writable"] = writable_ids(request.user, [memory.pk for memory in shown])
    label_projects(labels, [memory.shared_with for memory in shown])
    if query:
        stems = query_stems(query)
        for hit in context["page"]:
            hit.highlighted = highlight(
                Truncator(hit.memory.content).chars(SNIPPET_CHARS), stems)
    if request.htmx:
        return render(request, "dashboard/memories.html#results", context)
    context["llm"] = llm_status(owner=request.user)
    return render(request, "dashboard/memories.html", context)


def _detail_context(request, memory, **extra) -> dict:
    linked = neighbours(memory, request.user)
    if memory.shared_with is not None:
        label_projects(project_labels(request.user), [memory.shared_with])
    successor = memory.superseded_by_id
    context = {
        "memory": memory,
        # What superseded it, unless made private or moved out of the person's sight since.
        "successor": successor if successor in readable_ids(request.user, [successor]) else None,
        "read_only": read_only_reason(memory, request.user),
        "erasable": memory.owner_id == request.user.pk,
        "strength": strength(memory),
        "neighbours": linked,
        # What this memory superseded: the losers of the contradictions it won.
        "predecessors": [n.memory for n in linked
                         if n.label == OUTGOING[LinkRelation.SUPERSEDES]],
        "entities": entities(memory, request.user),
        "usage": usage(memory),
        "contradiction": open_contradiction_of(request.user, memory),
        "form": None,
        "notice": "",
    }
    context["history"], context["older_history"] = history(memory, request.user)
    return {**context, **extra}


def _memory_panel(request, memory, *, status=200, changed=True, **extra):
    """The detail page, or for htmx its #memory partial, telling the page it changed."""
    if not request.htmx:
        return render(request, "dashboard/memory.html",
                      _detail_context(request, memory, **extra), status=status)
    response = render(request, "dashboard/memory.html#memory",
                      _detail_context(request, memory, **extra), status=status)
    return trigger_client_event(response, "memoryChanged") if changed else response


@login_required
@require_GET
def memory_detail(request, memory_id):
    memory = memory_for(request.user, memory_id)
    return _memory_panel(request, memory, changed=False)


@login_required
@require_http_methods(["GET", "POST"])
def memory_edit(request, memory_id):
    """Inline edit: the form replaces the content; errors come back in place, with what
    was typed."""
    memory = writable_memory_for(request.user, memory_id)
    if request.method != "POST":
        return _memory_panel(request, memory, changed=False,
                             form=MemoryEditForm.for_memory(memory))
    form = MemoryEditForm(request.POST, memory=memory)
    if form.is_valid():
        try:
            memory = update_memory(memory, by=request.user, check=form.unchanged,
                                   **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
    if form.errors:
        return _memory_panel(request, memory, changed=False, form=form)
    if not request.htmx:
        return redirect("memory", memory_id=memory.pk)
    # The form and its Save button are gone: a keyboard user is taken to what happened.
    return _memory_panel(request, memory, notice="Saved: the change is in the history.",
                         focus_notice=True)


def _after_action(request, memory, notice, **extra):
    if request.htmx:
        return _memory_panel(request, memory, notice=notice, **extra)
    messages.info(request, notice)
    return redirect("memory", memory_id=memory.pk)


@require_POST
@login_required
def memory_pin(request, memory_id):
    memory = writable_memory_for(request.user, memory_id)
    pinned = request.POST.get("pinned") == "true"
    memory = update_memory(memory, by=request.user, pinned=pinned)
    return _after_action(request, memory, "Pinned." if pinned else "Unpinned.")


@require_POST
@login_required
def memory_archive(request, memory_id):
    memory = writable_memory_for(request.user, memory_id)
    archived = request.POST.get("archived") == "true"
    memory = update_memory(memory, by=request.user,
                                    status=Status.ARCHIVED if archived else Status.ACTIVE)
    return _after_action(request, memory, "Archived." if archived else "Back in use.")


@require_POST
@login_required
def memory_delete(request, memory_id):
    memory = writable_memory_for(request.user, memory_id)
    memory = delete_memory(memory, by=request.user)
    return _after_action(request, memory, "Deleted. Undo puts it back as it was.")


@require_http_methods(["GET", "POST"])
@login_required
def memory_erase(request, memory_id):
    """Erase for good: a confirmation step, then the receipt (ids, never content)."""
    memory = writable_memory_for(request.user, memory_id)
    require_erasable(memory, request.user)
    context = {"memory": memory, "purge_days": django_settings.ENGRAM_PURGE_AFTER_DAYS}
    if request.method == "POST":
        if request.POST.get("confirm") != "yes":
            context["error"] = "Tick the box to confirm: erasing cannot be undone."
            return render(request, "dashboard/memory_erase.html", context, status=400)
        receipt = erase_memory(memory, by=request.user)
        parts = [(part, [(name, entry) for name, entry in receipt[part].items()
                         if entry["count"]]) for part in ("removed", "scrubbed", "flagged")]
        return render(request, "dashboard/memory_erase.html",
                      {"receipt": receipt, "parts": parts})
    return render(request, "dashboard/memory_erase.html", context)


@require_POST
@login_required
def memory_restore(request, memory_id):
    memory = writable_memory_for(request.user, memory_id)
    memory = restore_memory(memory, by=request.user)
    # The Undo button is gone: a keyboard user is taken to what happened.
    return _after_action(request, memory, "Restored as it was before the deletion.",
                         focus_notice=True)


@require_POST
@login_required
def memory_feedback(request, memory_id):
    memory = writable_memory_for(request.user, memory_id)
    signal = request.POST.get("signal", "")
    try:
        memory = give_feedback(memory, signal=signal, agent_id="dashboard", by=request.user)
        notice = f"Marked {signal}."
    except ValidationError as exc:
        notice = "; ".join(exc.messages)
    except FeedbackTooSoon as exc:
        notice = (f"You rated this memory recently; you can again in "
                  f"{max(1, exc.retry_after // 60)} min.")
    return _after_action(request, memory, notice)


def _back_to_list(request):
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                       require_https=request.is_secure()):
        return redirect(target)
    return redirect("home")


@require_POST
@login_required
def memory_bulk(request):
    """Tag, archive, delete (with undo) or re-embed the selected memories."""
    form = BulkForm(request.POST, user=request.user)
    result, undo_ids = None, []
    if form.is_valid():
        result = bulk_change(request.user, form.cleaned_data["ids"],
                                       action=form.cleaned_data["action"],
                                       tag=form.cleaned_data["tag"], by=request.user)
        undo_ids = [str(pk) for pk in result.changed] if result.action == "delete" else []
    if request.htmx:
        response = render(request, "dashboard/memories.html#bulk-status",
                          {"bulk_form": form, "result": result, "undo_ids": undo_ids})
        return trigger_client_event(response, "memoryChanged") if result else response
    if result:
        messages.info(request, result.message)
        request.session["undo_ids"] = undo_ids
    else:
        for error in form.errors.values():
            messages.error(request, " ".join(error))
    return _back_to_list(request)


@require_POST
@login_required
def memory_bulk_undo(request):
    selection = SelectionForm(request.POST, user=request.user)
    if selection.is_valid():
        restored = bulk_undo_delete(selection.cleaned_data["ids"], by=request.user)
        message = f"Restored {restored} {'memory' if restored == 1 else 'memories'}."
    else:
        message = " ".join(selection.errors["ids"])
    if request.htmx:
        # The Undo button is gone: a keyboard user is taken to what happened.
        response = render(request, "dashboard/memories.html#bulk-status",
                          {"result": {"message": message}, "focus_result": True})
        return trigger_client_event(response, "memoryChanged")
    messages.info(request, message)
    return _back_to_list(request)
