"""The context spends its budget on memories: a reference and the text, a date only where
it helps."""

from datetime import timedelta

from django.utils import timezone

from memories.engine.context import count_tokens
from memories.evaluation import paraphrases
from memories.services.context import assemble_context
from memories.services.remembering import remember


def test_ten_relevant_memories_are_at_least_80_percent_of_a_500_token_context(alice):
    pairs, _ = paraphrases.load()
    for pair in pairs[:10]:
        remember(owner=alice, content=pair.memory)
    built = assemble_context(owner=alice, query="what do we know about our services?",
                             max_tokens=500, min_score=0, track=False)
    assert len(built.used) == 10
    text = sum(count_tokens(hit.memory.content) for hit in built.used)
    assert text / built.tokens_used >= 0.8, built.context


def test_an_episode_and_a_memory_bound_in_time_show_their_date_a_fact_does_not(alice):
    remember(owner=alice, content="The billing deploy was rolled back after a failed migration",
             kind="episode")
    remember(owner=alice, content="The billing freeze on deploys lasts until the audit ends",
             expires_at=timezone.now() + timedelta(days=30))
    remember(owner=alice, content="Billing runs on PostgreSQL 16")
    now = timezone.now()
    built = assemble_context(owner=alice, query="billing deploys", max_tokens=500,
                             min_score=0, track=False, now=now)
    lines = {line.split("] ", 1)[1]: line for line in built.context.splitlines()
             if line.startswith("[")}
    day = f"{now:%Y-%m-%d}"
    assert f", {day}]" in lines["The billing deploy was rolled back after a failed migration"]
    assert f", {day}]" in lines["The billing freeze on deploys lasts until the audit ends"]
    assert day not in lines["Billing runs on PostgreSQL 16"]
    assert f"today {day}" in built.context.splitlines()[0]
