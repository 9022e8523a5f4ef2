"""How much of a context is memory: the share of its tokens that are memory text, and its
tokens per memory, for contexts of ten memories at a 500-token budget; and how many
memories fit alone in a 60-token context. The budget should go to memories, not to the
wrapping around them (`manage.py bench_context_tokens`, figures in docs/BENCHMARKS.md)."""

import statistics
from collections.abc import Sequence

from memories.engine.context import FORMATS, ContextMemory, build_context, count_tokens

GROUP = 10
BUDGET = 500
SMALL_BUDGET = 60


def measure(notes: Sequence[str], *, group: int = GROUP, budget: int = BUDGET,
            small_budget: int = SMALL_BUDGET) -> dict:
    """Per format: the contexts of `group` consecutive notes at `budget` tokens (the share
    of memory text, tokens per memory in the context and in the text alone), and the
    share of notes that fit alone in `small_budget` tokens."""
    if len(notes) < group:
        raise ValueError(f"Need at least {group} notes, got {len(notes)}.")
    report = {"notes": len(notes), "group": group, "budget": budget,
              "small_budget": small_budget, "formats": {}}
    for fmt in FORMATS:
        shares, per_memory, text_per_memory = [], [], []
        for start in range(0, len(notes) - group + 1, group):
            memories = [ContextMemory(id=i, content=note)
                        for i, note in enumerate(notes[start:start + group])]
            built = build_context(memories, budget=budget, fmt=fmt)
            if not built.memories_used:
                shares.append(0.0)
                continue
            text = sum(count_tokens(memories[i].content) for i in built.memories_used)
            shares.append(text / built.tokens_used)
            per_memory.append(built.tokens_used / len(built.memories_used))
            text_per_memory.append(text / len(built.memories_used))
        alone = [build_context([ContextMemory(id=0, content=note)], budget=small_budget,
                               fmt=fmt).memories_used for note in notes]
        report["formats"][fmt] = {
            "contexts": len(shares),
            "memory_share_mean": round(statistics.mean(shares), 3),
            "memory_share_min": round(min(shares), 3),
            "context_tokens_per_memory": round(statistics.mean(per_memory or [0]), 1),
            "text_tokens_per_memory": round(statistics.mean(text_per_memory or [0]), 1),
            "fit_alone_in_small_budget": round(sum(map(bool, alone)) / len(notes), 3),
        }
    return report
