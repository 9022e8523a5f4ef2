"""Readings of issue 12's tenth round: pairs a store of facts holds side by side that
agree, which the rules had queued (found on the dev stores), each beside a pair of the
same shape that does contradict. Each reading is general (a kind of wording)."""

from memories.engine.contradiction import CONFIDENT, asserted, rules_verdict


def queued(a: str, b: str) -> bool:
    verdict = rules_verdict(a, b)
    return verdict.contradicts and verdict.confidence >= CONFIDENT


def test_a_first_name_and_a_full_name_hold_one_role_as_one_person():
    assert not queued("Lena Fischer reviews the schema migrations.",
                      "Schema migrations are reviewed by Lena.")
    assert not queued("Okafor owns the billing worker.", "Ade Okafor owns the billing worker.")
    assert queued("Lena Fischer reviews the schema migrations.",
                  "Schema migrations are reviewed by Omar.")
    # teams are not people: a team's name inside another's is another team
    assert queued("The Platform team owns the CI pipeline.",
                  "The Data Platform team owns the CI pipeline.")


def test_who_holds_a_thing_and_what_the_thing_is_are_two_slots():
    assert not queued("Nadia Haddad owns search-api.",
                      "search-api listens on 9443 (TLS) in every environment.")
    assert not queued("search-api owner: Nadia.",
                      "search-api listens on 9443 (TLS) in every environment.")
    assert queued("Nadia Haddad owns search-api.", "search-api is owned by Tariq Aziz.")


def test_a_word_moved_beside_its_neighbour_is_no_direction_reversed():
    assert not queued("No new jQuery code, please.", "No jQuery in new code.")
    assert not queued("The default page size is 50; change it with --limit.",
                      "Listings show 50 rows by default; --limit changes it.")
    assert queued("Logs are shipped from Fluentd to Loki.", "Logs are shipped from Loki to Fluentd.")
    # side by side in both, the two are still ends that trade places
    assert queued("Promotion order: staging > prod", "Promotion order: prod > staging")


def test_versions_of_two_products_are_two_facts():
    assert not queued("Node 20 for the web app.", "The web app is built on Express v4.")
    assert not queued("Go 1.22 for the CLI.", "The CLI commands are built on urfave/cli v2.")
    assert queued("The web app runs on Node 20.", "The web app runs on Node 22.")
    # a bare number may be the value of the version's slot
    assert queued("The storefront runs Node 20.", "The storefront runtime is 18.")


def test_a_port_with_its_protocol_is_a_number_not_a_name():
    assert not queued("Voice chat is relayed with Coturn on AWS.", "voice chat port: 3478/udp")
    assert queued("voice chat port: 3478/udp", "voice chat port: 3479/udp")


def test_a_count_of_versions_is_judged_without_an_error():
    # "versions" is measured under "version"; looking up the word "version" raised
    # ValueError, so the background check of such a memory failed on every retry
    assert not queued("The SDK supports the last three versions of each major OS.",
                      "OS support: latest 3 versions of the major systems.")
    assert queued("The SDK supports the last three versions of each major OS.",
                  "The SDK supports the last five versions of each major OS.")


def test_a_note_written_as_a_label_and_its_value_says_the_label_is_the_value():
    assert queued("Hiro Tanaka owns the firmware.", "Firmware owner: Emeka Eze.")
    assert not queued("Hiro Tanaka owns the firmware.", "Firmware owner: Hiro Tanaka.")
    # a label of one word, when a value opens what follows
    assert queued("Our CDN is Cloudflare.", "CDN: Fastly (account shop-prod).")
    assert not queued("Our CDN is Fastly.", "CDN: Fastly (account shop-prod).")
    assert asserted("Port: 7777/udp") == "Port is 7777/udp"  # a number alone is a value


def test_a_role_written_as_a_one_word_label_names_who_holds_it():
    assert asserted("Owner: Priya") == "Owner is Priya"
    assert queued("Owner: Priya", "Owner: Tomás")
    assert queued("On-call: Priya Raman", "On-call: Tomás Silva")
    assert not queued("Owner: Priya", "Owner: Priya")
    assert not queued("Owner: Priya", "Reviewer: Tomás")  # two roles, two holders
    # what follows is a greeting or a sentence, not a name: the word is a speaker's
    assert asserted("Lead: Hello Team") == ""
    assert asserted("Owner: Priya is out today") == "Priya is out today"


def test_a_speakers_name_before_a_colon_is_no_label():
    assert asserted("Caroline: Thanks!") == ""
    assert asserted("[8 May 2023] Melanie: 2 dogs and a cat") == "2 dogs and a cat"
    assert asserted("Caroline: 3 kids now!") == "3 kids now!"
    assert asserted("Melanie: Postgres is great") == "Postgres is great"
    assert asserted("Dev: I'd rather keep Postgres.") == "I'd rather keep Postgres."


def test_an_address_is_the_same_with_or_without_its_https_scheme():
    assert not queued("The webhook endpoint is https://hooks.example.org/v2.",
                      "The webhook endpoint is hooks.example.org/v2.")
    assert queued("The webhook endpoint is https://hooks.example.org/v2.",
                  "The webhook endpoint is hooks.example.org/v3.")


def test_a_number_something_has_is_no_version_of_a_product():
    assert not queued("Training code targets PyTorch 2.2.",
                      "The debug queue has 2 slots; train has 32.")
    assert queued("Training code targets PyTorch 2.2.",
                  "The training code targets PyTorch 2.4.")
