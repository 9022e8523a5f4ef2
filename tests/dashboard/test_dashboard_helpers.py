"""The dashboard's text helpers: highlights and diffs are escaped, whatever the text."""

from dashboard.text import highlight, query_stems, word_diff


def test_highlight_marks_words_sharing_a_stem_with_the_query():
    marked = highlight("Routers route; the ROUTER is routed", query_stems("router"))
    assert marked == "<mark>Routers</mark> route; the <mark>ROUTER</mark> is routed"


def test_highlight_escapes_everything_and_never_matches_inside_an_entity():
    marked = highlight('<b>amp</b> & "quot"', query_stems("amp quot lt"))
    assert marked == ("&lt;<mark>b</mark>&gt;<mark>amp</mark>&lt;/b&gt; &amp; "
                      "&quot;<mark>quot</mark>&quot;").replace("<mark>b</mark>", "b")


def test_stop_words_are_not_highlighted():
    assert highlight("the port of the db", query_stems("the port")) == (
        "the <mark>port</mark> of the db")


def test_word_diff_shows_removed_and_added_words_escaped():
    diff = word_diff("port 5433 <old>", "port 6543 <new>")
    assert diff == "port <del>5433</del><ins>6543</ins> <del>&lt;old&gt;</del><ins>&lt;new&gt;</ins>"
