"""What is stored whole (a memory's content and metadata) or sent to a model is redacted
without being cut, and Engram's own API keys are secrets too."""

from memories.engine.redaction import redact, redact_value

GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
ENGRAM_KEY = "engram_" + "Qm3v_Xk9-pL2rT8sWq4Zy7nB1cD5eF6gH0jK3mN9pR2"


def test_redact_cuts_nothing_however_long_the_text():
    text = "x" * 150_000 + f" token {GITHUB_TOKEN}"
    result = redact(text)
    assert result.text == "x" * 150_000 + " token [REDACTED:github_token]"
    assert not result.truncated and result.redactions == {"github_token": 1}


def test_an_engram_api_key_is_redacted_as_its_own_kind():
    result = redact(f"ENGRAM_API_KEY={ENGRAM_KEY}")
    assert result.text == "ENGRAM_API_KEY=[REDACTED:engram_key]"


def test_names_that_merely_start_like_an_engram_key_are_left_alone():
    name = "engram_" + "client_settings_for_the_staging_servers_xyz"  # a key's length
    text = f"engram_site.settings and {name}"
    assert redact(text).text == text


def test_every_text_of_a_json_value_is_redacted_and_tallied():
    value = {"note": f"pushed with {GITHUB_TOKEN}", "hosts": ["db", f"key {ENGRAM_KEY}"],
             "port": 5432, "nested": {"private": "a <private>home address</private> b"}}
    redacted, found = redact_value(value)
    assert redacted == {"note": "pushed with [REDACTED:github_token]",
                        "hosts": ["db", "key [REDACTED:engram_key]"], "port": 5432,
                        "nested": {"private": "a  b"}}
    assert found == {"github_token": 1, "engram_key": 1, "private_section": 1}


def test_a_text_under_a_key_named_like_a_secret_is_a_secret_whole():
    redacted, found = redact_value({"db_password": "hunter2", "api_key": "${API_KEY}",
                                    "max_tokens": "4096", "token_type": "bearer"})
    assert redacted == {"db_password": "[REDACTED:secret_assignment]",
                        "api_key": "${API_KEY}", "max_tokens": "4096",
                        "token_type": "bearer"}
    assert found == {"secret_assignment": 1}
