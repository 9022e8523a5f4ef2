import pytest

from memories.engine.importance import base_importance, effective_importance


@pytest.mark.parametrize(
    ("content", "kind", "observation_type", "expected"),
    [
        ("Use tabs in this repo", "fact", "", 5),
        ("Always run ruff before committing", "instruction", "", 10),
        ("TypeError in parse_config when the file is empty", "error", "", 9),
        ("We chose Postgres over Mongo for transactions", "decision", "", 8),
        ("Read README.md", "fact", "file_read", 2),
        ("SECURITY: token leaked in logs", "fact", "", 8),  # 5 + 3
        ("CVE-2024-1234 affects our TLS library", "fact", "dependency_change", 9),  # 6 + 3
        ("The login test failed after the refactor", "fact", "", 7),  # 5 + 2
        ("Deployed the hotfix to production", "fact", "", 6),  # 5 + 1
        ("TODO: remove the retry shim", "fact", "", 6),  # 5 + 1
        ("BREAKING: tests failed on the main branch in production", "error", "", 10),  # capped
    ],
)
def test_it_scores_importance_from_the_heuristic_tables(content, kind, observation_type,
                                                        expected):
    assert base_importance(content, kind=kind, observation_type=observation_type) == expected


def test_it_does_not_boost_words_that_merely_contain_a_keyword():
    assert base_importance("The product page uses a prodigy theme") == 5


@pytest.mark.parametrize(
    ("base", "helpful", "harmful", "expected"),
    [(5, 0, 0, 5.0), (5, 10, 0, 10.0), (5, 0, 10, 0.0), (7, 5, 2, 8.5), (8, 3, 5, 7.0)],
)
def test_feedback_moves_effective_importance_by_half_a_point_and_clamps(base, helpful,
                                                                          harmful, expected):
    assert effective_importance(base, helpful, harmful) == expected
