import json
from pathlib import Path

import pytest

from memories.engine.redaction import matches_skip_list, scrub

CORPUS = [json.loads(line) for line in
          (Path(__file__).parent.parent / "fixtures" / "secrets_corpus.jsonl").read_text().splitlines()
          if line.strip()]
SECRET_SAMPLES = [s for s in CORPUS if s["secrets"]]
BENIGN_SAMPLES = [s for s in CORPUS if not s["secrets"]]


def test_the_corpus_is_large_enough_to_mean_something():
    assert len(SECRET_SAMPLES) >= 30
    assert len(BENIGN_SAMPLES) >= 10


@pytest.mark.parametrize("sample", SECRET_SAMPLES, ids=lambda s: s["text"][:40])
def test_every_secret_of_the_corpus_disappears_behind_a_typed_placeholder(sample):
    result = scrub(sample["text"], max_chars=10_000)
    for secret in sample["secrets"]:
        assert secret not in result.text
    for kind in sample["kinds"]:
        assert f"[REDACTED:{kind}]" in result.text
        assert result.redactions[kind] >= 1


@pytest.mark.parametrize("sample", BENIGN_SAMPLES, ids=lambda s: s["text"][:40])
def test_benign_text_of_the_corpus_comes_through_unchanged(sample):
    result = scrub(sample["text"], max_chars=10_000)
    assert result.text == sample["text"]
    assert result.redactions == {}


def test_it_keeps_the_scheme_user_and_host_of_a_url_and_redacts_only_its_password():
    result = scrub("postgres://engram:Xk2pQ9zz81@db.internal:5432/engram", max_chars=1000)
    assert result.text == "postgres://engram:[REDACTED:url_password]@db.internal:5432/engram"


def test_it_keeps_the_key_of_an_assignment_and_redacts_its_value():
    result = scrub('{"password": "hunter2-abc"}\nDB_PASSWORD=S3cr3t!x', max_chars=1000)
    assert result.text == ('{"password": "[REDACTED:secret_assignment]"}\n'
                           "DB_PASSWORD=[REDACTED:secret_assignment]")
    assert result.redactions == {"secret_assignment": 2}


def test_it_counts_each_secret_once_even_when_two_rules_could_match():
    jwt = ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
           "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
    result = scrub(f"Authorization: Bearer {jwt}", max_chars=1000)
    assert result.text == "Authorization: Bearer [REDACTED:jwt]"
    assert result.redactions == {"jwt": 1}


def test_it_drops_private_sections_whatever_their_case_and_across_lines():
    text = "keep this <PRIVATE>my home\naddress</Private> and this <private>x</private>."
    result = scrub(text, max_chars=1000)
    assert result.text == "keep this  and this ."
    assert result.private_dropped == 2


def test_an_unclosed_private_tag_drops_everything_after_it():
    result = scrub("visible <private>the rest\nof the session", max_chars=1000)
    assert result.text == "visible "
    assert result.private_dropped == 1


def test_a_stray_closing_private_tag_is_removed_and_the_text_kept():
    assert scrub("a </private> b", max_chars=1000).text == "a  b"


def test_it_caps_oversized_input_and_says_how_much_was_left_out():
    result = scrub("x" * 12_345 + "y" * 100, max_chars=100)
    assert result.truncated
    assert result.text == "x" * 100 + "\n[truncated: 12,345 characters omitted]"


def test_it_leaves_text_within_the_cap_untouched():
    result = scrub("short", max_chars=5)
    assert (result.text, result.truncated) == ("short", False)


def test_it_redacts_a_secret_that_straddles_the_cap_before_cutting():
    key = "AKIAIOSFODNN7EXAMPLE"
    result = scrub("a" * 90 + key, max_chars=100)
    assert "AKIAIOSFOD" not in result.text
    assert result.text.startswith("a" * 90 + "[REDACTED")


def test_it_refuses_a_cap_below_one_character():
    with pytest.raises(ValueError):
        scrub("text", max_chars=0)


@pytest.mark.parametrize(
    ("value", "patterns", "expected"),
    [
        ("Read", ["Read", "Glob"], True),
        ("mcp__github__get_file", ["mcp__*"], True),
        ("Bash", ["mcp__*"], False),
        ("/srv/app/.env", [".env"], True),
        ("certs/server.pem", ["*.pem"], True),
        ("secrets/prod/db.yaml", ["secrets/*"], True),
        ("src/secrets.py", ["secrets/*"], False),
        ("README.md", [], False),
    ],
)
def test_the_skip_list_matches_tool_names_and_paths_with_shell_patterns(value, patterns,
                                                                        expected):
    assert matches_skip_list(value, patterns) is expected
