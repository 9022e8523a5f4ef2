"""Importance scoring (hybrid: heuristic base score plus feedback).

The heuristic table merges the general observation types with the code-specific table of
"Domain-Specific Importance Scoring"; content boosts follow the code-specific list, with
the general TODO/FIXME/HACK boost kept. Scores are clamped to 1..10.
"""

import re

MIN_IMPORTANCE = 1.0
MAX_IMPORTANCE = 10.0

OBSERVATION_IMPORTANCE = {
    # general observation types
    "instruction": 10,
    "error": 9,
    "decision": 8,
    "code_change": 7,
    "insight": 7,
    "test_result": 6,
    "general": 5,
    "tool_output": 3,
    # code-specific types
    "production_incident": 10,
    "security_issue": 10,
    "architectural_decision": 9,
    "test_failure": 8,
    "api_design": 8,
    "code_review_feedback": 8,
    "bug_fix": 7,
    "feature_implementation": 7,
    "configuration_change": 7,
    "refactoring": 6,
    "dependency_change": 6,
    "test_success": 5,
    "file_read": 2,
}

# A memory's kind says what sort of observation it came from when no type is given.
KIND_OBSERVATION = {
    "instruction": "instruction",
    "error": "error",
    "decision": "decision",
    "preference": "decision",
    "insight": "insight",
    "pattern": "insight",
    "workflow": "code_change",
}

_CRITICAL = re.compile(r"\b(BREAKING|CRITICAL|SECURITY|CVE)\b")
_UNFINISHED = re.compile(r"\b(TODO|FIXME|HACK)\b")
# A test and a failure named on one line. Searched for separately, line by line: one
# pattern spanning both (test.*fail) read the rest of the line again from every "test".
_TEST = re.compile(r"\btests?\b")
_FAILED = re.compile(r"\bfail(ed|s|ing|ure)?\b")
_PRODUCTION = re.compile(r"\b(prod|production|main branch)\b")


def base_importance(content: str, *, kind: str = "", observation_type: str = "") -> float:
    """Heuristic importance of new content, 1..10."""
    obs = observation_type or KIND_OBSERVATION.get(kind, "general")
    score = float(OBSERVATION_IMPORTANCE.get(obs, OBSERVATION_IMPORTANCE["general"]))
    upper, lower = content.upper(), content.lower()
    if _CRITICAL.search(upper):
        score += 3
    if any(_TEST.search(line) and _FAILED.search(line) for line in lower.split("\n")):
        score += 2
    if _PRODUCTION.search(lower):
        score += 1
    if _UNFINISHED.search(upper):
        score += 1
    return clamp_importance(score)


def clamp_importance(score: float) -> float:
    return max(MIN_IMPORTANCE, min(MAX_IMPORTANCE, score))


def effective_importance(importance: float, helpful: int, harmful: int) -> float:
    """Stage 2, feedback adjustment: base + (helpful - harmful) * 0.5, clamped to 0..10."""
    return max(0.0, min(MAX_IMPORTANCE, importance + (helpful - harmful) * 0.5))
