"""Replaying recorded sessions against predictive context (seed 001's success metric:
more than 70 % of the context later needed is prefetched).

A set is JSONL, one session a line:
    {"id", "split": "dev" | "heldout", "project",
     "memories": [{"content", "kind"?, "memory_type"?}],
     "tasks": [{"prompt", "days_ago", "reply"?,
                "events": [["edit" | "write" | "read", PATH] |
                           ["bash", COMMAND, SUCCESS?, ERROR?]]}],
     "probe": {"file_opened"?, "prompt"?, "branch"?, "error_text"?, "activity"?},
     "needed": {"memories": [TEXT IN A MEMORY], "files": [PATH]}}
`memories` and `tasks` are what the owner's store held before; the probe is what the
agent saw at the start of the step; `needed` is what a later step of the session used (a
memory, cited by a phrase of it, or a file it opened). Each session is replayed for a
fresh owner inside a transaction that is rolled back.
"""

import json
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from memories.models import Observation
from memories.selectors import RecallFilters
from memories.services.context import assemble_context
from memories.services.remembering import NewMemory, remember_many

from . import prediction, services

SPLITS = ("dev", "heldout")
PROMPT_TOKENS = 500  # what the hook asks /memories/context for with each prompt


class _Rollback(Exception):
    pass


def load(path: Path) -> list[dict]:
    sessions = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            session = json.loads(line)
            if session.get("split") not in SPLITS:
                raise ValueError(f"split must be one of {SPLITS}")
            if not isinstance(session["probe"], dict) or not isinstance(session["needed"], dict):
                raise TypeError("probe and needed must be objects")
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from exc
        sessions.append(session)
    return sessions


def _tool_event(event: list) -> dict:
    kind, value, *rest = event
    if kind == "bash":
        success = rest[0] if rest else True
        return {"tool_name": "Bash", "input": json.dumps({"command": value}),
                "response": json.dumps({"error": rest[1]} if not success and len(rest) > 1
                                       else {"stdout": ""}), "success": success}
    tool = {"edit": "Edit", "write": "Write", "read": "Read"}[kind]
    return {"tool_name": tool, "input": json.dumps({"file_path": value, "content": "x"}),
            "response": "{}", "success": True}


def _replay_history(owner, session: dict, now) -> None:
    project = session["project"]
    if session.get("memories"):
        remember_many(owner=owner, items=[
            NewMemory(content=m["content"], kind=m.get("kind", "fact"),
                      memory_type=m.get("memory_type", "semantic"), project=project)
            for m in session["memories"]], now=now)
    for number, task in enumerate(session.get("tasks", [])):
        start = now - timedelta(days=task.get("days_ago", 1), minutes=number)
        for step, event in enumerate(task["events"]):
            observation = Observation.objects.create(
                owner=owner, project=project, session_id=f"past-{number}",
                tool_events=[_tool_event(event)], payload_hash=f"{number}-{step}-t",
                created_at=start + timedelta(seconds=20 * step))
            services.record_observation(owner, observation)
        ended = Observation.objects.create(
            owner=owner, project=project, session_id=f"past-{number}",
            messages=[{"role": "user", "text": task["prompt"]},
                      {"role": "assistant", "text": task.get("reply", "Done.")}],
            payload_hash=f"{number}-end", created_at=start + timedelta(minutes=10))
        finished = services.record_observation(owner, ended)
        services.learn_from_task(finished.pk, now=now)


def _found(needed: dict, texts: list[str], refs: set[str]) -> dict:
    memories = [m for m in needed.get("memories", []) if any(m.lower() in t.lower()
                                                             for t in texts)]
    files = [f for f in needed.get("files", []) if f in refs or any(f in t for t in texts)]
    return {"memories": memories, "files": files}


@dataclass
class _Tally:
    sessions: int = 0
    needed: int = 0
    prefetched: int = 0  # by the prediction alone
    with_prompt: int = 0  # by the prediction and the prompt's memories, as the hook sends
    tokens: int = 0
    prompt_tokens: int = 0
    seconds: float = 0.0

    def report(self) -> dict:
        def share(count):
            return round(count / self.needed, 3) if self.needed else None

        def mean(total, scale=1):
            return round(scale * total / self.sessions) if self.sessions else None

        return {"sessions": self.sessions, "needed": self.needed,
                "prefetched": self.prefetched, "share_prefetched": share(self.prefetched),
                "prefetched_with_prompt_context": self.with_prompt,
                "share_with_prompt_context": share(self.with_prompt),
                "mean_tokens": mean(self.tokens),
                "mean_tokens_with_prompt_context": mean(self.tokens + self.prompt_tokens),
                "mean_ms": mean(self.seconds, 1000)}


def evaluate(path: Path, *, budget: int = prediction.DEFAULT_BUDGET,
             username: str = "prediction-eval") -> dict:
    """The share of needed items prefetched, and the tokens spent, per split."""
    tallies = {split: _Tally() for split in SPLITS}
    misses = []
    owner_model = get_user_model()
    for session in load(path):
        now = timezone.now()
        try:
            with transaction.atomic():
                owner = owner_model.objects.create_user(f"{username}-{session['id']}"[:150])
                _replay_history(owner, session, now)
                probe = session["probe"]
                signals = prediction.Signals(
                    project=session["project"], file_opened=probe.get("file_opened", ""),
                    branch=probe.get("branch", ""), error_text=probe.get("error_text", ""),
                    activity=probe.get("activity", ""), prompt=probe.get("prompt", ""))
                started = time.perf_counter()
                found = prediction.predict(owner, signals, budget=budget, now=now)
                elapsed = time.perf_counter() - started
                prompted = assemble_context(
                    owner=owner, query=probe["prompt"], max_tokens=PROMPT_TOKENS, now=now,
                    filters=RecallFilters(project=session["project"], with_general=True),
                    track=False) if probe.get("prompt") else None
                raise _Rollback(found, elapsed, prompted)
        except _Rollback as done:
            found, elapsed, prompted = done.args
        texts, refs = [i.text for i in found.items], {i.ref for i in found.items}
        hits = _found(session["needed"], texts, refs)
        both = _found(session["needed"], texts + ([prompted.context] if prompted else []), refs)
        tally = tallies[session["split"]]
        tally.sessions += 1
        tally.needed += len(session["needed"].get("memories", [])) + len(
            session["needed"].get("files", []))
        tally.prefetched += len(hits["memories"]) + len(hits["files"])
        tally.with_prompt += len(both["memories"]) + len(both["files"])
        tally.tokens += found.tokens
        tally.prompt_tokens += prompted.tokens_used if prompted else 0
        tally.seconds += elapsed
        missed = {kind: [x for x in session["needed"].get(kind, []) if x not in hits[kind]]
                  for kind in ("memories", "files")}
        if any(missed.values()):
            misses.append({"id": session["id"], "split": session["split"], **missed})
    return {"path": str(path), "budget": budget,
            "splits": {split: tally.report() for split, tally in tallies.items()},
            "misses": misses}
