"""API keys: one's keys, a new one shown once, and revoking."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from memories.models import ApiKey
from memories.services.api_keys import create_api_key, revoke_api_key

from ..forms import ApiKeyForm
from ..queries import api_keys_of


@login_required
@require_http_methods(["GET", "POST"])
def api_key_list(request):
    """The person's keys; a new key is shown once, in the answer to its creation."""
    form = ApiKeyForm(request.POST or None)
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            key, raw = create_api_key(owner=request.user, **form.cleaned_data)
        except ValidationError as exc:
            for name, messages in exc.message_dict.items():
                form.add_error(name if name in form.fields else None, messages)
        else:
            created, form = {"key": key, "raw": raw}, ApiKeyForm()
    context = {"form": form, "created": created, "keys": api_keys_of(request.user),
               "now": timezone.now()}
    template = "dashboard/api_keys.html#keys" if request.htmx else "dashboard/api_keys.html"
    response = render(request, template, context)
    if created:
        add_never_cache_headers(response)
        trigger_client_event(response, "apiKeyCreated")
    return response


@login_required
@require_POST
def api_key_revoke(request, key_id):
    key = get_object_or_404(ApiKey, pk=key_id, owner=request.user)
    revoke_api_key(key)
    if not request.htmx:
        return redirect("api_keys")
    # Its Revoke button is gone: a keyboard user is taken to what happened.
    response = render(request, "dashboard/api_keys.html#keys",
                      {"form": ApiKeyForm(), "keys": api_keys_of(request.user),
                       "now": timezone.now(), "revoked": key})
    trigger_client_event(response, "apiKeyRevoked", {"id": key.pk})
    return response
