from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import render

from . import capture, services
from .models import Memory


@login_required
def home(request):
    """A first look at one's memories: the newest ones, or the nearest to a search."""
    query = request.GET.get("q", "").strip()
    memories = Memory.objects.for_owner(request.user).visible()
    context = {"query": query, "total": memories.count(), "error": "",
               "llm": capture.llm_status(owner=request.user)}
    if query:
        try:
            context["results"] = services.recall(owner=request.user, query=query, limit=20)
        except ValidationError as exc:
            context["error"] = "; ".join(exc.messages)
    else:
        context["memories"] = memories.defer("embedding", "search_vector")[:20]
    template = "memories/home.html#results" if request.htmx else "memories/home.html"
    return render(request, template, context)
