"""The text a query is embedded as: the words most of the store says are left out."""

from memories.engine import dense_query as module
from memories.engine.dense_query import common_words, dense_query, term


def test_a_word_is_read_as_the_stem_text_search_keeps_of_it():
    assert [term(w) for w in ("Melanie's", "Melanie", "Caroline’s", "didn't", "books")] == [
        "melani", "melani", "carolin", "didn", "book"]


def test_a_word_joined_by_a_hyphen_is_never_one_term():
    assert term("self-care") is None


def test_a_word_too_long_to_be_a_name_is_neither_stemmed_nor_remembered():
    before = module._stem.cache_info().currsize
    assert common_words("melanie" * 2_000 + " read?", {"melani"}) == set()
    assert module._stem.cache_info().currsize == before


def test_the_common_words_of_a_query_are_those_whose_stem_the_store_says_everywhere():
    query = "What books has Melanie's friend Melanie read, Caroline?"
    assert common_words(query, {"melani", "carolin"}) == {"Melanie's", "Melanie", "Caroline"}
    assert common_words(query, {"2023"}) == set()
    assert common_words(query, frozenset()) == set()


def test_a_common_name_is_left_out_and_the_sentence_stays_tidy():
    assert dense_query("What books has Melanie read?", {"Melanie"}) == "What books has read?"
    assert dense_query("When did Caroline's group meet, Melanie?",
                       {"Caroline's", "Melanie"}) == "When did group meet?"


def test_nothing_common_leaves_the_query_as_it_is():
    query = "What  books has Melanie read?"
    assert dense_query(query, set()) is query
    assert dense_query(query, {"Caroline"}) == "What books has Melanie read?"


def test_a_word_is_left_out_only_where_it_is_the_whole_word():
    assert dense_query("Melanie and Melanies", {"Melanie"}) == "and Melanies"


def test_a_query_of_common_words_alone_is_embedded_whole():
    assert dense_query("Melanie?", {"Melanie"}) == "Melanie?"
    assert dense_query("Caroline, Melanie", {"Caroline", "Melanie"}) == "Caroline, Melanie"
