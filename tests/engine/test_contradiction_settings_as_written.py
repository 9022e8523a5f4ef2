"""Settings and versions as configuration writes them (issue 12, 2026-11-28, night): "key =
value" sets the key as "is" does; a tool's configuration file ("pgbouncer.ini") is the
tool; a product glued to its version as a cloud console writes it ("POSTGRES_13") and a
release series ("5.3.x") are versions."""

from tests.helpers import queued


def test_a_setting_in_a_tools_configuration_file_is_the_tools():
    assert queued("PgBouncer max_client_conn is 500.", "pgbouncer.ini: max_client_conn = 1000")
    assert not queued("PgBouncer max_client_conn is 500.",
                      "pgbouncer.ini: default_pool_size = 1000")


def test_a_version_glued_to_its_product_is_a_version():
    assert queued("The orders-db instance runs PostgreSQL 15.",
                  "orders-db instance version: POSTGRES_13")
    assert not queued("The orders-db instance runs PostgreSQL 15.",
                      "orders-db instance version: POSTGRES_15")


def test_a_release_series_is_a_version_its_releases_agree_with():
    assert queued("Celery workers run the 5.3.x series.",
                  "The worker image installs celery==4.4.7.")
    assert not queued("Celery workers run the 5.3.x series.",
                      "The worker image installs celery==5.3.6.")


def test_a_setting_named_for_a_version_is_the_products_version_as_written():
    assert queued("ripgrep-lite MSRV: Rust 1.70.", 'ripgrep-lite Cargo.toml: rust-version = "1.74"')
    # "1.70" stays "1.70": the same version in both is no clash
    assert not queued("ripgrep-lite MSRV: Rust 1.70.",
                      'ripgrep-lite Cargo.toml: rust-version = "1.70"')
    assert queued("The CLI's minimum supported Rust version is 1.78.", "CLI MSRV is 1.70.")


def test_a_setting_named_with_its_unit_is_an_amount_of_that_unit():
    assert queued("The orders.events topic keeps data for 7 days.",
                  "retention.ms on orders.events = 259200000")
    assert not queued("The orders.events topic keeps data for 7 days.",
                      "retention.ms on orders.events = 604800000")
    assert not queued("Plugin calls are killed after 30 seconds.", "plugin_timeout_ms = 30000")
