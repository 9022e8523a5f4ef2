"""Decision helpers' rules (seed 000, Algorithms 10-12), without a model."""

import pytest

from memories.engine.planning import (
    Subgoal,
    decompose,
    deviation_rules,
    estimate_coverage,
    evaluate_action,
    rules_proposals,
    rules_subgoals,
)


@pytest.mark.parametrize("observation, expected", [  # the seed's example scenarios
    ("Tests passed", None),
    ("Error: Module not found", (True, "error_detected")),
    ("User: Actually, do this instead", (True, "user_instruction")),
    ("Already implemented in branch X", (True, "goal_satisfied")),
    ("Warning: Deprecated API", None),
    ("Build failed: syntax error", (True, "error_detected")),
    ("The migration is blocked on review", (True, "blocked")),
])
def test_the_fast_rules_decide_the_seeds_examples_or_leave_them_to_the_model(observation,
                                                                             expected):
    assert deviation_rules("Fix the auth bug", observation) == expected


def test_a_goal_is_split_until_each_part_fits_a_chunk_or_the_depth_runs_out():
    asked = []

    def ask(goal, minutes, count):
        asked.append((goal, minutes, count))
        return [Subgoal(text=f"{goal}.{i}", minutes=minutes // 2) for i in (1, 2)]

    plan = decompose("auth", 60, ask, chunk_minutes=15)
    # 60 -> two of 30 -> each two of 15 (a chunk: atomic).
    assert asked == [("auth", 60, 4), ("auth.1", 30, 2), ("auth.2", 30, 2)]
    assert [p.goal for p in plan.subplans[0].subplans] == ["auth.1.1", "auth.1.2"]
    assert plan.subplans[0].subplans[0].subplans == []
    shallow = decompose("auth", 600, ask, chunk_minutes=15, max_depth=1)
    assert [p.subplans for p in shallow.subplans] == [[], []]


def test_a_goal_the_asker_cannot_split_stays_atomic():
    plan = decompose("one thing", 120, lambda g, m, c: [], chunk_minutes=15)
    assert (plan.goal, plan.minutes, plan.subplans) == ("one thing", 120, [])


def test_without_a_model_the_steps_a_goal_names_are_its_subgoals():
    found = rules_subgoals("write the migration; then add the endpoint, then test it", 60, 4)
    assert [(s.text, s.minutes) for s in found.subgoals] == [
        ("write the migration", 20), ("add the endpoint", 20), ("test it", 20)]
    assert rules_subgoals("Implement user authentication", 240, 8).subgoals == []


def test_actions_are_valued_by_the_seeds_heuristic():
    values = {kind: evaluate_action(kind, coverage=0.2, goal_progress=0.1, recent_actions=30)
              for kind in ("retrieval", "grounding", "learning", "reasoning")}
    assert values == pytest.approx({"retrieval": 0.8, "grounding": 0.9, "learning": 0.3,
                                    "reasoning": 0.5})
    assert evaluate_action("learning", coverage=0, goal_progress=0, recent_actions=500) == 1.0


def test_coverage_is_the_share_of_the_goals_words_the_context_holds():
    # goal words of four letters or more: {find, root, cause, login, failure} -> 2 held
    goal = "Find the root cause of the login failure"
    assert estimate_coverage("the login failure log", [goal]) == pytest.approx(2 / 5)
    assert estimate_coverage("", []) == 1.0


def test_without_a_model_one_action_of_each_kind_is_proposed():
    assert [a.type for a in rules_proposals(["Fix bug"], 5).actions] == [
        "retrieval", "grounding", "reasoning", "learning"]


def test_a_long_goal_still_makes_valid_proposals():
    assert all(len(a.description) <= 300 for a in rules_proposals(["x" * 500], 5).actions)
