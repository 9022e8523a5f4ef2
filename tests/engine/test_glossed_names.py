"""A memory is embedded with the kinds of the things it names written after it ("... Vite.
(bundler)"), so a question that asks by the kind lies near it. Words of everyday English
that are also product names are left alone where nothing says they name one."""

from memories.engine.value_categories import glossed


def test_the_kind_of_a_named_product_follows_the_text():
    assert glossed("The web app is built with Vite.") == \
        "The web app is built with Vite. (bundler)"


def test_a_name_of_several_words_is_one_name():
    assert glossed("All pipelines run on GitHub Actions.") == \
        "All pipelines run on GitHub Actions. (ci service)"


def test_a_name_of_two_kinds_gives_both_and_each_kind_is_said_once():
    assert glossed("Switching from webpack to esbuild; sessions live in Redis 7.") == \
        "Switching from webpack to esbuild; sessions live in Redis 7. (bundler, cache, " \
        "message broker)"


def test_a_text_naming_no_product_is_unchanged():
    text = "Refunds over 500 dollars need a second approval from finance."
    assert glossed(text) == text
    assert glossed("") == ""


def test_a_capitalised_everyday_name_that_opens_a_sentence_before_a_noun_is_a_name():
    assert glossed("Stripe webhooks are verified. Sentry alerts go to the channel.") == \
        "Stripe webhooks are verified. Sentry alerts go to the channel. (payment " \
        "provider, error tracker)"


def test_an_everyday_name_in_lower_case_is_the_word():
    text = "those moments with the kids, I will go to the lake and react calmly"
    assert glossed(text) == text


def test_an_everyday_name_that_opens_a_sentence_before_a_function_word_is_the_word():
    for text in ("Got it! Thanks so much.", "Moments like these are rare.",
                 "[8 May 2023] Melanie: Go to bed, it is late!"):
        assert glossed(text) == text


def test_an_everyday_name_with_a_capital_inside_a_sentence_is_a_name():
    assert glossed("We use Moment for dates and Go for the CLI.") == \
        "We use Moment for dates and Go for the CLI. (date library, programming language)"


def test_a_convention_or_a_value_is_not_glossed():
    text = "The settlement batch runs daily at 02:00 UTC and writes JSON with UUID keys."
    assert glossed(text) == text
