"""The rules extractor reading a conversation: proposals taken, answers to questions about
the project, tasks told from rules, and errors told from talk about errors. Each reading
has a look-alike that must not be kept, or not kept as it."""

from memories.engine.chunking import render_messages
from memories.engine.rules_extractor import extract


def _memories(*messages: tuple[str, str]):
    return extract(render_messages(list(messages))).memories


def _contents(*messages: tuple[str, str]) -> list[str]:
    return [m.content for m in _memories(*messages)]


def test_a_proposal_the_user_accepts_in_a_word_is_kept_as_a_decision():
    [memory] = _memories(
        ("assistant", ("I suggest we store uploaded files in S3 with presigned URLs instead "
                      "of streaming them through Django.")),
        ("user", "Agreed, do that."))
    assert memory.kind == "decision"
    assert memory.content == ("Store uploaded files in S3 with presigned URLs instead of "
                              "streaming them through Django.")


def test_a_bare_sounds_good_accepts_a_proposal_too():
    assert _contents(
        ("assistant", ("I'd recommend pinning the runner image to ubuntu-22.04 for the "
                      "release workflow.")),
        ("user", "Sounds good.")) == [
        "Pinning the runner image to ubuntu-22.04 for the release workflow."]


def test_a_proposal_the_user_turns_down_or_questions_is_not_a_decision():
    proposal = ("assistant", "We could expose a GraphQL endpoint alongside the REST API.")
    turned_down = _contents(proposal, ("user", "No, we keep the API REST only for now."))
    assert turned_down and not any("GraphQL" in content for content in turned_down)
    assert _contents(proposal, ("user", "What would that cost us in maintenance?")) == []


def test_the_answer_to_a_question_about_the_project_is_kept_alone():
    assert _contents(
        ("user", "where do the logs end up in prod?"),
        ("assistant", ("Logs go to stdout as JSON and Datadog collects them from the "
                      "container."))) == [
        "Logs go to stdout as JSON and Datadog collects them from the container."]


def test_the_answer_to_a_question_weighing_options_is_advice_not_a_fact():
    assert _contents(
        ("user", "Should we keep SQLite for the dev environment or move to Postgres?"),
        ("assistant", ("Postgres would match production and lets us test pgvector "
                      "locally."))) == []
    assert _contents(
        ("user", "where do the logs end up in prod?"),
        ("assistant", "I'm not sure, probably somewhere in CloudWatch by now.")) == []


def test_a_one_off_task_is_not_kept_but_a_standing_rule_is():
    assert _contents(("user", "Rename the variable tmp to pending_rows in sync.py.")) == []
    [rule] = _memories(("user", ("Always rename a migration file before merging it into "
                                "main.")))
    assert rule.kind == "instruction"


def test_a_prohibition_said_as_no_things_is_an_instruction():
    [memory] = _memories(("user", "No summaries at the end of every reply."))
    assert memory.kind == "instruction"
    assert _contents(("user", "No luck with the proxy settings either.")) == []
    assert _contents(("user", "No exceptions, even for admins.")) == []


def test_how_the_team_works_is_kept_as_a_fact_without_a_technical_name():
    [memory] = _memories(("user", ("We do trunk-based development with short-lived branches "
                                  "merged within a day.")))
    assert memory.kind == "fact"
    assert _contents(("user", "We did a lot of work on this last sprint, honestly.")) == []


def test_a_product_named_in_mixed_capitals_makes_a_statement_technical():
    assert _contents(("user", "For now it's two VMs behind an HAProxy load balancer.")) == [
        "For now it's two VMs behind an HAProxy load balancer."]
    assert _contents(("user", "For now it's two old boxes behind a load balancer.")) == []


def test_a_rule_about_errors_is_an_instruction_not_an_error():
    [memory] = _memories(("user", ("Prefer raising specific exceptions over returning None "
                                  "on failure.")))
    assert memory.kind == "instruction"
    [error] = _memories(("user", "The importer raises a KeyError on empty payloads."))
    assert error.kind == "error"


def test_a_fix_that_ran_without_a_failure_is_joined_to_its_error():
    [memory] = _memories(
        ("user", "test_export_csv fails about one run in five on CI, never locally."),
        ("assistant", ("I added order_by('id') to the export query and ran the test 50 "
                      "times without a failure.")))
    assert memory.kind == "error"
    assert "order_by('id')" in memory.content and memory.content.startswith("Test_export_csv")


def test_a_diagnosis_that_points_back_at_the_error_stays_with_it():
    [memory] = _memories(
        ("user", "mypy crashes with INTERNAL ERROR on the plugins module after the upgrade."),
        ("assistant", ("That's a known mypy 1.10 bug with the django-stubs plugin. Pinning "
                      "mypy to 1.9.0 until django-stubs ships a fix avoids it.")))
    assert "1.9.0" in memory.content and "INTERNAL ERROR" in memory.content
    # a new error, not pointing back, is a memory of its own
    assert len(_memories(
        ("user", "mypy crashes with INTERNAL ERROR on the plugins module after the upgrade."),
        ("user", "The docs build fails on the missing sphinx theme as well."))) == 2


def test_a_cause_found_is_kept_as_an_error_with_its_detail():
    [memory] = _memories(
        ("assistant", ("Found it: the feature flag cache is per-process, so the other "
                      "gunicorn workers keep the old value for up to 5 minutes.")))
    assert memory.kind == "error" and "5 minutes" in memory.content


def test_running_out_of_a_resource_is_an_error():
    [memory] = _memories(("user", ("Postgres ran out of connections during the load test "
                                  "last night.")))
    assert memory.kind == "error"


def test_a_proposal_the_assistant_set_aside_itself_is_not_what_the_user_took():
    decisions = [m.content for m in _memories(
        ("assistant", ("We could use Redis for the job queue. But advisory locks in Postgres "
                      "need no new service, so I'd go with those.")),
        ("user", "Agreed.")) if m.kind == "decision"]
    assert not any("Redis" in content for content in decisions)


def test_filler_before_an_answer_does_not_hide_it():
    assert _contents(("user", "Which Node version does the build use?"),
                     ("assistant", "Right. Node 20.")) == [
        "Which Node version does the build use? Node 20."]


def test_how_to_and_can_we_questions_are_general_knowledge():
    assert _contents(("user", "Can we use async views in Django?"),
                     ("assistant", ("Django supports async views since 3.1 under ASGI "
                                   "servers."))) == []
    assert _contents(("user", "How do I undo the last commit in our repo?"),
                     ("assistant", ("Run git reset --soft HEAD~1 to keep the changes "
                                   "staged."))) == []


def test_no_things_followed_by_a_verb_tells_what_happened_and_is_no_rule():
    for said in ("No data was lost during the outage last night.",
                 "No users have complained about the new checkout flow yet.",
                 "No migrations ran when I deployed the hotfix branch."):
        assert all(m.kind != "instruction" for m in _memories(("user", said))), said


def test_a_bug_report_said_as_an_order_or_a_boast_stays_a_report():
    [report] = _memories(("user", ("Check why the deploy fails on CI with ECONNREFUSED "
                                  "from Redis.")))
    assert report.kind == "error"
    assert all(m.kind != "instruction" for m in _memories(
        ("user", "Never had a single failure on this runner since the upgrade.")))


def test_another_error_told_after_the_first_is_a_memory_of_its_own():
    assert len(_memories(("user", ("The importer raises a KeyError on empty files. There is "
                                  "also a TimeoutError in the nightly sync job.")))) == 2
