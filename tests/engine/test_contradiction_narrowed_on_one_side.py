"""A measure of one setting, narrowed by a word on one side only ("Session cache TTL in
Redis" / "Redis session keys expire"), is one slot with two values; a rival word on each
side, a qualifier on one, an earlier thing or two holders keep two slots (issue 12,
2026-11-28, night)."""

from tests.helpers import queued


def test_a_word_on_one_side_narrows_no_other_thing():
    assert queued("The session cache TTL in Memcached is 10 minutes.",
                  "Memcached session entries expire after 2 hours.")


def test_a_rival_word_on_each_side_names_two_things():
    assert not queued("The thumbnail queue has a visibility timeout of 2 minutes.",
                      "The billing queue's visibility timeout is 45 seconds.")
    assert not queued("The image-resize queue has a visibility timeout of 2 minutes.",
                      "The email queue's visibility timeout is 45 seconds.")


def test_a_qualifier_on_one_side_may_name_another_deployment():
    assert not queued("Staging API pods get 512 MB of memory.", "API pods get 2 GB of memory.")


def test_an_earlier_thing_is_history():
    assert not queued("The old backup policy kept snapshots for 10 days.",
                      "Backup snapshots are kept for 60 days.")


def test_two_holders_want_two_things():
    assert not queued("infra-platform team wants PRs kept under 500 changed lines; split "
                      "bigger ones.",
                      "The user likes PRs kept under ~200 lines; split bigger changes into "
                      "stacked PRs.")
