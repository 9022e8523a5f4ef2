"""The context preview: what an agent sending this prompt would receive, token for token."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memories.selectors import RecallFilters
from memories.services.context import assemble_context

from ..forms import ContextPreviewForm


@login_required
@require_GET
def context_preview(request):
    """What an agent sending this prompt would receive, token for token; previewing is
    not a retrieval."""
    form = ContextPreviewForm(request.GET or None)
    context = {"form": form, "built": None, "tier_threshold": settings.ENGRAM_TIER_THRESHOLD}
    if form.is_valid():
        data = form.cleaned_data
        context["built"] = assemble_context(
            owner=request.user, query=data["prompt"], max_tokens=data["budget"],
            fmt=data["format"], session_id=data["session_id"],
            filters=RecallFilters(project=data["project"] or None), track=False)
        built = context["built"]
        tiers = [(tier, built.tiers.get(tier, 0))
                 for tier in ("critical", "relevant", "background", "index")]
        # The tiers count memories' tokens only: without the rest the row did not add up
        # to the total above it (40 used, 24 in the tiers).
        context["tiers"] = [*tiers, ("headings and framing",
                                     built.tokens_used - sum(n for _, n in tiers))]
    template = "dashboard/context.html#preview" if request.htmx else "dashboard/context.html"
    return render(request, template, context)
