"""Contradictions raised by real chat: how noisy the queue a person must work through is.

Each LoCoMo conversation is stored one turn a memory with its session, through
`remember_many` (as `engram_eval locomo` stores it), then the on-demand scan judges every
memory against its neighbours with the rules judge. The figure is the open queue (the
contradictions `selectors.contradictions_for` lists by default: open and confident) per
1,000 turns. Small talk holds almost no real contradictions, so nearly every flag is
noise. Conversations 1-5 are the dev split, 6-10 held out.
"""

from collections.abc import Callable, Sequence

from memories.maintenance.contradictions import scan_contradictions
from memories.models import Contradiction, ContradictionStatus

from .locomo import Conversation
from .runner import load_conversation

SPLIT_OF = {**{n: "dev" for n in range(1, 6)}, **{n: "heldout" for n in range(6, 11)}}
SHOWN = 5  # flags quoted per conversation, to see what the noise is


def _per_thousand(count: int, turns: int) -> float | None:
    return round(1000 * count / turns, 2) if turns else None


def evaluate(conversations: Sequence[Conversation], numbers: Sequence[int], *,
             batch_size: int = 128,
             progress: Callable[[str], None] = lambda message: None) -> dict:
    """`numbers` are the conversations' 1-based positions in the file (which split each
    is in)."""
    rows = []
    for number, conversation in zip(numbers, conversations, strict=True):
        loaded = load_conversation(conversation, username=f"chat-{conversation.sample_id}",
                                   batch_size=batch_size)
        scan_contradictions(owner=loaded.owner)
        found = Contradiction.objects.filter(owner=loaded.owner).select_related(
            "memory_a", "memory_b")
        queue = [c for c in found if c.status == ContradictionStatus.OPEN and c.confident]
        rows.append({
            "conversation": number, "sample_id": conversation.sample_id,
            "split": SPLIT_OF.get(number, "other"), "turns": loaded.turns,
            "open": len(queue), "stored": len(found),
            "flags": [{"a": c.memory_a.content[:160], "b": c.memory_b.content[:160],
                       "reason": c.reason[:200], "confidence": c.confidence}
                      for c in queue[:SHOWN]],
        })
        progress(f"{conversation.sample_id}: {loaded.turns} turns, {len(queue)} open "
                 f"({len(found)} stored)")
    splits = {}
    for split in sorted({row["split"] for row in rows}):
        chosen = [row for row in rows if row["split"] == split]
        turns, open_ = sum(r["turns"] for r in chosen), sum(r["open"] for r in chosen)
        stored = sum(r["stored"] for r in chosen)
        splits[split] = {"conversations": len(chosen), "turns": turns, "open": open_,
                         "stored": stored, "open_per_1000_turns": _per_thousand(open_, turns),
                         "stored_per_1000_turns": _per_thousand(stored, turns)}
    return {"conversations": rows, "splits": splits}
