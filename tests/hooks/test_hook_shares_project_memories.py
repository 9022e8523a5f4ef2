"""A conversation the hooks capture in a shared repository becomes the project's memory:
another member's hooks hand it over, a non-member's never do, and a preference stays
its author's."""
import json

import pytest

from memories.models import Memory, Scope
from memories.services.api_keys import create_api_key
from tests.helpers import SHOP

pytestmark = pytest.mark.django_db(transaction=True)

DECISION = ("We decided to use PostgreSQL 16 for the orders service instead of MySQL, "
            "because we need transactional DDL.")
PREFERENCE = "I prefer pytest over unittest for every new test file."
QUESTION = "Which database does the orders service use, and which test runner?"


@pytest.fixture
def bobs_transcript(tmp_path):
    path = tmp_path / "bob.jsonl"
    path.write_text("".join(json.dumps({"type": "user", "message": {
        "role": "user", "content": text}}) + "\n" for text in (DECISION, PREFERENCE)))
    return path


def _key(user) -> str:
    return create_api_key(owner=user, name="hooks")[1]


def _context_given(run_hook, hook_event, user, checkout, url) -> str:
    result = run_hook(hook_event("user_prompt_submit", cwd=str(checkout), prompt=QUESTION,
                                 session_id=f"session-of-{user.username}"),
                      url=url, key=_key(user))
    assert result.returncode == 0, result.stderr
    if not result.stdout:
        return ""
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_an_editors_captured_decision_reaches_another_members_hooks(
        team, alice, bob, charlie, hook_event, run_hook, live_server, checkout,
        bobs_transcript):
    stop = hook_event("stop", cwd=str(checkout), transcript_path=str(bobs_transcript),
                      session_id="session-of-bob", last_assistant_message="Noted.")
    assert run_hook(stop, url=live_server.url, key=_key(bob)).returncode == 0

    decision = Memory.objects.get(content__icontains="PostgreSQL 16")
    assert (decision.owner, decision.scope, decision.shared_with, decision.project) == (
        bob, Scope.PROJECT, team, SHOP)
    preference = Memory.objects.get(content__icontains="pytest")
    assert (preference.owner, preference.scope) == (bob, Scope.PRIVATE)

    given = _context_given(run_hook, hook_event, alice, checkout, live_server.url)
    assert "PostgreSQL 16" in given and "pytest" not in given
    assert "PostgreSQL 16" not in _context_given(run_hook, hook_event, charlie, checkout,
                                                 live_server.url)
