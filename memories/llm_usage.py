"""Using a language model within limits: which provider to ask now, the log of every call,
the daily token budget, and the circuit breaker.

Capture, maintenance and reflection all ask models; each asks `choose_provider` first and
logs what the calls cost, so one place decides when the rules stand in.
"""

from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from .engine.cost_control import circuit_reopens_at
from .models import ModelCall
from .providers.errors import ProviderError
from .providers.llm import RulesProvider, get_llm_provider


def circuit_reopens(provider_name: str, now: datetime, owner=None) -> datetime | None:
    """When the provider's circuit breaker closes again; None while it is closed. Counted
    per owner when one is named: one owner's bad inputs must not switch every tenant to
    the rules (without one, the provider's latest calls of all owners, for /healthz)."""
    calls = ModelCall.objects.filter(provider=provider_name)
    if owner is not None:
        calls = calls.filter(owner=owner)
    return circuit_reopens_at(
        list(calls.order_by("-created_at")
             .values_list("ok", "created_at")[:settings.ENGRAM_LLM_BREAKER_FAILURES]),
        failures=settings.ENGRAM_LLM_BREAKER_FAILURES,
        cooldown=timedelta(seconds=settings.ENGRAM_LLM_BREAKER_COOLDOWN), now=now)


def llm_status(*, now: datetime | None = None, owner=None) -> dict:
    """What /healthz and the dashboard say about the extraction model and its cost."""
    now = now or timezone.now()
    provider = get_llm_provider()
    reopens = None if isinstance(provider, RulesProvider) else circuit_reopens(
        provider.name, now, owner)
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    calls = ModelCall.objects.filter(created_at__gte=day_start)
    if owner is not None:
        calls = calls.filter(owner=owner)
    today = calls.aggregate(calls=Count("id"), tokens=Sum(F("input_tokens") + F("output_tokens")),
                            cost=Sum("cost_usd"), failed=Count("id", filter=Q(ok=False)))
    return {
        "provider": provider.name,
        "circuit": "open" if reopens else "closed",
        **({"circuit_reopens_at": reopens.isoformat(), "fallback": "rules"} if reopens else {}),
        "today": {"calls": today["calls"], "failed": today["failed"],
                  "tokens": today["tokens"] or 0,
                  "estimated_cost_usd": float(today["cost"] or 0)},
    }


def choose_provider(owner, project: str, now: datetime):
    """The configured model, unless the owner's breaker for it is open or the owner's
    daily token budget is spent; then the rules, and the reason why. The budget is the
    owner's across projects: a new project name per request must not buy a new budget."""
    provider = get_llm_provider()
    if isinstance(provider, RulesProvider):
        return provider, ""
    reopens = circuit_reopens(provider.name, now, owner)
    if reopens:
        return RulesProvider(), f"{provider.name} circuit open until {reopens.isoformat()}"
    if tokens_used_today(owner, now) >= settings.ENGRAM_LLM_DAILY_TOKENS:
        return RulesProvider(), "the daily token budget is spent"
    return provider, ""


def tokens_used_today(owner, now: datetime) -> int:
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    used = ModelCall.objects.filter(owner=owner, created_at__gte=day_start
                                    ).aggregate(total=Sum(F("input_tokens") + F("output_tokens")))
    return used["total"] or 0


def log_model_calls(owner, project: str, calls) -> None:
    ModelCall.objects.bulk_create([
        ModelCall(owner=owner, project=project,
                  provider=call.provider, model=call.model, purpose=call.purpose,
                  input_tokens=call.input_tokens, output_tokens=call.output_tokens,
                  cost_usd=None if call.estimated_cost_usd is None
                  else Decimal(str(round(call.estimated_cost_usd, 6))),
                  duration_ms=call.duration_ms, ok=call.ok, error=call.error or "")
        for call in calls if call.provider != RulesProvider.name])


def log_failed_call(owner, project: str, provider, exc: ProviderError, purpose: str) -> None:
    """A failed call counts towards the circuit breaker even when the provider could not
    say which calls it made."""
    calls = getattr(exc, "calls", None)
    if calls:
        log_model_calls(owner, project, calls)
    else:
        ModelCall.objects.create(owner=owner, project=project, provider=provider.name,
                                 purpose=purpose, ok=False, error=str(exc)[:2000])
