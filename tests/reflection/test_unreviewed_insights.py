"""Insights reflection wrote reach agents labelled as unreviewed until a person approves
them; with ENGRAM_INSIGHTS_NEED_APPROVAL they stay out of contexts until then."""

import pytest
from django.utils import timezone

from memories.mcp import operations
from memories.models import LinkRelation, MemoryLink
from memories.services.context import UNREVIEWED, assemble_context
from memories.services.remembering import remember
from reflection import services as reflection
from reflection.models import Insight
from work import prediction

INSIGHT = "Deploys of the billing service fail whenever the schema migration is skipped"
FACT = "The billing service deploys from the release branch"
QUERY = "why do billing deploys fail?"


@pytest.fixture
def insight(alice):
    cited = remember(owner=alice, content="Billing deploy failed: missing column").memory
    remember(owner=alice, content=FACT)
    memory = remember(owner=alice, content=INSIGHT, kind="insight").memory
    MemoryLink.objects.create(from_memory=memory, to_memory=cited, relation=LinkRelation.CITES)
    return Insight.objects.create(owner=alice, memory=memory, question="Why do deploys fail?",
                                  cited_ids=[cited.pk], text_hash="t", cited_key="c")


def context_lines(owner) -> list[str]:
    built = assemble_context(owner=owner, query=QUERY, max_tokens=500, min_score=0,
                             track=False)
    return built.context.splitlines()


def note_under(lines: list[str], text: str) -> str:
    """One memory of a markdown context: its [ref] line and its indented lines."""
    start = next(i for i, line in enumerate(lines) if line.endswith(text))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("  ")),
               len(lines))
    return "\n".join(lines[start:end])


def test_an_unapproved_insight_is_labelled_in_the_context(insight, alice):
    lines = context_lines(alice)
    assert f"({UNREVIEWED})" in note_under(lines, INSIGHT)
    assert UNREVIEWED not in note_under(lines, FACT)  # only the insight


def test_an_approved_insight_comes_without_the_label(insight, alice):
    reflection.review(insight, approve=True, by=alice)
    lines = context_lines(alice)
    assert any(line.endswith(INSIGHT) for line in lines)
    assert UNREVIEWED not in "\n".join(lines)


def test_a_flagged_insight_is_unreviewed_again(insight, alice):
    reflection.review(insight, approve=True, by=alice)
    reflection.flag_insights_citing(insight.cited_ids, "its evidence was edited")
    assert f"({UNREVIEWED})" in note_under(context_lines(alice), INSIGHT)


def test_with_approval_required_an_unapproved_insight_stays_out_of_contexts(
        insight, alice, settings):
    settings.ENGRAM_INSIGHTS_NEED_APPROVAL = True
    lines = context_lines(alice)
    assert any(line.endswith(FACT) for line in lines)  # the context is not empty
    assert not any(INSIGHT in line for line in lines)
    reflection.review(insight, approve=True, by=alice)
    assert any(line.endswith(INSIGHT) for line in context_lines(alice))


def test_search_over_the_api_says_which_hits_are_unreviewed(insight, alice, api_client_for):
    client = api_client_for(alice)
    results = client.post("/api/v1/memories/search", {"query": QUERY}, format="json").json()[
        "results"]
    flags = {hit["memory"]["content"]: hit["unreviewed"] for hit in results}
    assert flags[INSIGHT] is True and flags[FACT] is False
    reflection.review(insight, approve=True, by=alice)
    results = client.post("/api/v1/memories/search", {"query": QUERY}, format="json").json()[
        "results"]
    assert {hit["memory"]["content"]: hit["unreviewed"] for hit in results}[INSIGHT] is False


def test_mcp_search_and_related_label_an_unapproved_insight(insight, alice):
    found = operations.search(alice, {"query": QUERY})
    entry = next(block for block in found.split("\n") if INSIGHT[:40] in block)
    following = found.split(entry, 1)[1].split("\n")[1]
    assert UNREVIEWED in following
    fact_entry = next(block for block in found.split("\n") if FACT[:40] in block)
    assert UNREVIEWED not in found.split(fact_entry, 1)[1].split("\n")[1]
    linked = operations.related(alice, {"memory": str(insight.cited_ids[0])})
    assert INSIGHT[:40] in linked and UNREVIEWED in linked


def test_related_over_the_api_says_which_linked_memories_are_unreviewed(
        insight, alice, api_client_for):
    url = f"/api/v1/memories/{insight.cited_ids[0]}/related"
    client = api_client_for(alice)
    rows = client.get(url).json()
    assert {row["memory"]["content"]: row["unreviewed"] for row in rows}[INSIGHT] is True
    reflection.review(insight, approve=True, by=alice)
    assert {row["memory"]["content"]: row["unreviewed"] for row in client.get(url).json()}[
        INSIGHT] is False


def predicted_texts(owner) -> list[str]:
    found = prediction.predict(owner, prediction.Signals(project=None, error_text=QUERY),
                               now=timezone.now())
    return [item.text for item in found.items]


def test_a_predicted_insight_is_labelled_until_approved(insight, alice):
    assert f"{INSIGHT} ({UNREVIEWED})" in predicted_texts(alice)
    assert FACT in predicted_texts(alice)  # a fact comes unlabelled
    reflection.review(insight, approve=True, by=alice)
    assert INSIGHT in predicted_texts(alice)


def test_with_approval_required_an_unapproved_insight_is_not_predicted(
        insight, alice, settings):
    settings.ENGRAM_INSIGHTS_NEED_APPROVAL = True
    assert not any(INSIGHT in text for text in predicted_texts(alice))
    reflection.review(insight, approve=True, by=alice)
    assert INSIGHT in predicted_texts(alice)
