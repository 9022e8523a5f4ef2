"""Working memory (seed 004 "Dynamic Pruning Algorithm"): above 80 % of the limit, the
least relevant items go first until 30 % of the tokens held are freed; sticky never.
Relevance = exp(-age_min / 60) x 2 (current task) x (1 + 0.2 x dependents) x type weight
x explicit relevance. Every expected figure below is computed by hand."""

import math
from datetime import datetime, timedelta, timezone

import pytest

from work.engine import ContextItem, prune, relevance

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def item(id, type, tokens, minutes_ago, **kw):
    return ContextItem(id=id, type=type, tokens=tokens,
                       timestamp=NOW - timedelta(minutes=minutes_ago), **kw)


def test_each_factor_multiplies_the_score():
    snippet = item("s", "code_snippet", 10, 60, task_id="t1", relevance=0.5)
    # exp(-1) x 2 (current task) x 1.4 (two dependents) x 0.7 (snippet) x 0.5
    assert relevance(snippet, now=NOW, current_task="t1", dependents=2) == pytest.approx(
        math.exp(-1) * 2 * 1.4 * 0.7 * 0.5)
    assert relevance(snippet, now=NOW, current_task="t2", dependents=0) == pytest.approx(
        math.exp(-1) * 0.7 * 0.5)


def test_an_assistant_response_that_called_tools_weighs_more_than_one_that_did_not():
    talk = item("a", "assistant_response", 10, 0)
    acted = item("b", "assistant_response", 10, 0, has_tool_calls=True)
    assert relevance(talk, now=NOW, current_task="", dependents=0) == pytest.approx(0.9)
    assert relevance(acted, now=NOW, current_task="", dependents=0) == pytest.approx(1.2)


def test_at_or_below_80_percent_nothing_is_pruned():
    window = [item("a", "tool_result", 400, 10), item("b", "user_message", 400, 0)]
    result = prune(window, limit=1000, now=NOW)
    assert (result.needed, result.total_tokens, result.threshold, result.pruned) == (
        False, 800, 800, ())


def test_the_least_relevant_go_first_until_30_percent_of_the_tokens_are_freed():
    window = [
        item("system", "system_prompt", 100, 120, sticky=True),
        item("old-graph", "knowledge_graph_query", 200, 120),  # e^-2 x 0.6 = 0.0812
        item("old-tool", "tool_result", 300, 60),  # e^-1 x 0.8 = 0.2943
        item("snippet", "code_snippet", 150, 30),  # e^-0.5 x 0.7 = 0.4246
        item("task", "task_state", 100, 60, task_id="t"),  # e^-1 x 2 x 2 = 1.4715
        item("ask", "user_message", 50, 0),  # 1.5
    ]
    result = prune(window, limit=1000, now=NOW)
    # 900 tokens > 800: free int(900 x 0.3) = 270. old-graph frees 200, old-tool 300 more.
    assert result.needed and result.total_tokens == 900 and result.target == 270
    assert [i.id for i in result.pruned] == ["old-graph", "old-tool"]
    assert result.freed == 500
    assert result.scores["old-graph"] == pytest.approx(math.exp(-2) * 0.6)
    assert "system" not in result.scores


def test_dependents_and_the_current_task_keep_an_item_that_would_otherwise_go():
    window = [
        item("read", "tool_result", 300, 60, task_id="t"),  # e^-1 x 2 x 0.8 x 1.2 = 0.7063
        item("grep", "tool_result", 300, 30),  # e^-0.5 x 0.8 = 0.4852
        item("reply", "assistant_response", 300, 0, dependencies=("read",)),  # 0.9
    ]
    result = prune(window, limit=1000, now=NOW, current_task="t")
    assert [i.id for i in result.pruned] == ["grep"]
    assert result.scores["read"] == pytest.approx(math.exp(-1) * 2 * 0.8 * 1.2)


def test_sticky_items_stay_even_when_nothing_else_can_go():
    window = [item("a", "system_prompt", 900, 600, sticky=True),
              item("b", "code_snippet", 50, 600, sticky=True)]
    result = prune(window, limit=1000, now=NOW)
    assert result.needed and result.pruned == () and result.freed == 0
