"""Recall embeds a query without the words most of the store says: in a transcript, the
speakers' names. A question naming a speaker then finds what was said on its topic, not
whatever that speaker said."""

import pytest

from memories.engine.dense_query import COMMON_MINIMUM, COMMON_SHARE
from memories.providers.embeddings import get_provider
from memories.selectors import Reader, common_terms
from memories.services.recall import recall
from memories.services.remembering import NewMemory, remember_many

MELANIE = [
    "Melanie: Thanks, Caroline! That means a lot to me.",
    "Melanie: Haha, yes Caroline, the kids loved the beach.",
    "Melanie: Caroline, I am so proud of you!",
    "Melanie: Wow Caroline, that sounds amazing.",
    "Melanie: I took the kids camping in the mountains last weekend.",
    "Melanie: Running in the morning clears my head, Caroline.",
    "Melanie: My husband and I celebrated our anniversary at a small bistro.",
    "Melanie: Caroline, I signed up for a pottery class.",
    "Melanie: Caroline, our dog chewed through the garden hose again.",
    "Melanie: I loved Charlotte's Web as a kid, friendship and compassion win.",
    "Melanie: That's so sweet, Caroline, give them a hug from me.",
    "Melanie: The sunrise over the lake was the prettiest thing I have painted.",
]
CAROLINE = [
    "Caroline: Hey Melanie! How have you been?",
    "Caroline: I went to an LGBTQ support group yesterday and it was powerful.",
    "Caroline: Melanie, you are such a great mom.",
    "Caroline: I am keen on counselling and working in mental health.",
    "Caroline: My friends threw me a surprise party, Melanie!",
    "Caroline: Thanks Melanie, I really appreciate it.",
    "Caroline: Melanie, I have been volunteering at the youth centre.",
    "Caroline: Melanie, the adoption agency called me back!",
    "Caroline: I bought new running shoes, they are so comfy.",
    "Caroline: Yes Melanie, that sounds like a plan.",
    "Caroline: Charlotte's Web was my favourite as a little girl too.",
    "Caroline: Haha, Melanie, the cat knocked over my painting.",
]
BOOK = "Melanie: I loved Charlotte's Web as a kid, friendship and compassion win."


@pytest.fixture
def transcript(alice):
    remember_many(owner=alice, items=[NewMemory(content=text, memory_type="episodic",
                                                kind="episode", importance=5)
                                      for pair in zip(MELANIE, CAROLINE) for text in pair])
    return alice


def _common(owner):
    return common_terms(Reader.of(owner), share=COMMON_SHARE, minimum=COMMON_MINIMUM)


def test_the_speakers_names_are_the_common_terms_of_a_transcript(transcript):
    assert _common(transcript) == {"melani", "carolin"}


def test_a_store_smaller_than_the_minimum_has_no_common_terms(alice):
    remember_many(owner=alice, items=[NewMemory(content=text) for text in MELANIE[:8]])
    assert _common(alice) == frozenset()


def test_one_owners_common_terms_are_not_anothers(transcript, bob):
    assert _common(transcript)
    remember_many(owner=bob, items=[NewMemory(content=f"Bob: note {n} on the build cache")
                                    for n in range(COMMON_MINIMUM)])
    assert _common(bob) == {"bob", "note", "build", "cach"}
    assert _common(transcript) == {"melani", "carolin"}


def _cosine(text, query):
    provider = get_provider()
    return float(provider.embed_documents([text])[0] @ provider.embed_query(query))


def test_meaning_is_measured_against_the_question_without_the_speakers_names(transcript):
    hits = recall(owner=transcript, query="What books has Melanie read?", limit=3)
    # Caroline loved the same book: the keyword list and the speaker feature still read
    # the name the embedded question no longer holds.
    assert hits[0].memory.content == BOOK
    assert hits[0].similarity == pytest.approx(_cosine(BOOK, "What books has read?"),
                                               abs=0.01)
    assert hits[0].similarity < _cosine(BOOK, "What books has Melanie read?") - 0.1


def test_in_a_small_store_meaning_is_measured_against_the_whole_question(alice):
    remember_many(owner=alice, items=[NewMemory(content=text) for text in MELANIE[4:]])
    hits = recall(owner=alice, query="What books has Melanie read?", limit=3)
    assert hits[0].memory.content == BOOK
    assert hits[0].similarity == pytest.approx(
        _cosine(BOOK, "What books has Melanie read?"), abs=0.01)


def test_a_project_members_common_terms_count_every_authors_memories(alice, bob, team):
    # Half the notes each: neither author alone holds the word in COMMON_MINIMUM notes.
    for owner in (alice, bob):
        remember_many(owner=owner, items=[NewMemory(content=f"Deploys go out from build {n}")
                                          for n in range(COMMON_MINIMUM // 2)])
    assert _common(alice) == {"deploy", "go", "build"}


def test_an_author_outside_the_project_counts_only_their_own(alice, charlie, team):
    remember_many(owner=alice, items=[NewMemory(content=f"Deploys go out from build {n}")
                                      for n in range(COMMON_MINIMUM // 2)])
    remember_many(owner=charlie, items=[NewMemory(content=f"Deploys go out from build {n}")
                                        for n in range(COMMON_MINIMUM // 2)])
    assert _common(charlie) == frozenset()
