"""Decision helpers for an agent (seed 000, Algorithms 10-12) with the configured model:
plan deviation (the fast rules first, the model only for what they cannot tell, at most
once per 5 minutes per session), recursive plan decomposition, and propose-evaluate-
select. With the `rules` provider, an open circuit or a spent budget, the seed's
heuristics answer instead; every model call is logged against the owner."""

from dataclasses import dataclass, field
from datetime import datetime

from django.core.cache import cache

from memories import llm_usage
from memories.engine import planning
from memories.providers.errors import ProviderError
from memories.providers.llm import RulesProvider

DEVIATION_DEBOUNCE_SECONDS = 300  # Algorithm 12: not more than once per 5 minutes
MAX_DECOMPOSE_CALLS = 12  # a depth-3 tree could ask 73 times; the rest split by rules
RULES = RulesProvider()


@dataclass
class _Asker:
    """The provider to ask, falling back to the rules for good after a failure."""
    owner: object
    project: str
    provider: object
    note: str = ""
    calls: int = 0
    used: set = field(default_factory=set)  # who answered: the provider's name, "rules"

    @classmethod
    def choose(cls, owner, project: str, now: datetime) -> "_Asker":
        provider, why = llm_usage.choose_provider(owner, project, now)
        return cls(owner, project, provider, why)

    @property
    def by_model(self) -> bool:
        return not isinstance(self.provider, RulesProvider)

    def ask(self, method: str, *args, purpose: str):
        if self.by_model:
            try:
                judged = getattr(self.provider, method)(*args)
            except ProviderError as exc:
                llm_usage.log_failed_call(self.owner, self.project, self.provider, exc,
                                          purpose)
                self.note = f"{self.provider.name} failed ({exc}); the rules answered"
                self.provider = RULES
            else:
                self.calls += 1
                self.used.add(self.provider.name)
                llm_usage.log_model_calls(self.owner, self.project, judged.calls)
                return judged.value
        self.used.add(RULES.name)
        return getattr(RULES, method)(*args).value

    @property
    def answered_by(self) -> str:
        return " and ".join(sorted(self.used)) or RULES.name


def should_deviate(owner, *, project: str, session_id: str, goal: str, observation: str,
                   context: str, now: datetime) -> dict:
    ruled = planning.deviation_rules(goal, observation)
    if ruled is not None:
        return {"deviate": ruled[0], "reason": ruled[1], "decided_by": "rules", "note": ""}
    asker = _Asker.choose(owner, project, now)
    if asker.by_model and not cache.add(f"work:deviation:{owner.pk}:{project}:{session_id}",
                                        now.isoformat(), DEVIATION_DEBOUNCE_SECONDS):
        return {"deviate": False, "reason": "continue_plan", "decided_by": "debounced",
                "note": "the model was asked for this session less than 5 minutes ago"}
    verdict = asker.ask("plan_deviation", goal, context, observation, purpose="plan_deviation")
    return {"deviate": verdict.deviate, "reason": verdict.reason,
            "decided_by": asker.answered_by, "note": asker.note}


def decompose_plan(owner, *, project: str, goal: str, minutes: int, chunk_minutes: int,
                   max_depth: int, now: datetime) -> dict:
    asker = _Asker.choose(owner, project, now)

    def ask(text: str, total: int, count: int) -> list[planning.Subgoal]:
        if asker.by_model and asker.calls >= MAX_DECOMPOSE_CALLS:
            asker.provider, asker.note = RULES, (f"after {MAX_DECOMPOSE_CALLS} model calls "
                                                 "the rules split the rest")
        found = asker.ask("plan_subgoals", text, total, count, purpose="plan_decompose")
        # A subgoal never outlasts its goal: the tree always gets smaller going down.
        return [s.model_copy(update={"minutes": min(s.minutes, total - 1)})
                for s in found.subgoals[:count] if total > 1]

    plan = planning.decompose(goal, minutes, ask, chunk_minutes=chunk_minutes,
                              max_depth=max_depth)
    return {"plan": plan.as_dict(), "model_calls": asker.calls,
            "decided_by": asker.answered_by, "note": asker.note}


def next_action(owner, *, project: str, goals: list[dict], context: str,
                recent_actions: list[str], coverage: float | None, limit: int,
                now: datetime) -> dict:
    open_goals = [g["text"] for g in goals if not g.get("done")]
    progress = (len(goals) - len(open_goals)) / len(goals) if goals else 0.0
    coverage = planning.estimate_coverage(context, open_goals) if coverage is None else coverage
    asker = _Asker.choose(owner, project, now)
    proposals = asker.ask("plan_proposals", context, open_goals, recent_actions, limit,
                          purpose="plan_propose").actions[:limit]
    if not proposals:  # a model that proposed nothing: the seed's four kinds stand in
        proposals = RULES.plan_proposals(context, open_goals, recent_actions, limit).value.actions
    candidates = [{"type": a.type, "description": a.description,
                   "value": round(planning.evaluate_action(
                       a.type, coverage=coverage, goal_progress=progress,
                       recent_actions=len(recent_actions)), 4)} for a in proposals]
    best = max(range(len(candidates)), key=lambda i: candidates[i]["value"])
    return {"selected": candidates[best], "candidates": candidates,
            "coverage": round(coverage, 4), "goal_progress": round(progress, 4),
            "proposed_by": asker.answered_by, "note": asker.note}
