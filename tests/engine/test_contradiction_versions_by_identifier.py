"""A product's version, where both statements name one identifier of theirs, is one slot
(issue 12, 2026-11-28, late): "Go API gateway builds with Go 1.22; go.mod declares go
1.22" and "Gateway go.mod pins go 1.20" set one version twice."""

from tests.helpers import queued


def test_two_versions_of_a_product_beside_one_identifier_clash():
    assert queued("Go API gateway builds with Go 1.22; go.mod declares go 1.22.",
                  "Gateway go.mod pins go 1.20 — don't bump it, the vendored proxy lib breaks "
                  "on newer toolchains.")
    assert queued("Package.swift for the iOS core modules: swift-tools-version 5.9",
                  "// swift-tools-version:5.7 is the header of our iOS Package.swift")


def test_an_identifier_each_names_apart_or_two_environments_do_not():
    assert not queued("query-rewriter is written in Go 1.22.",
                      "ranking-api is written in Go 1.20.")
    assert not queued("In staging, terraform-modules pins Terraform 1.7.",
                      "In production, terraform-modules pins Terraform 1.5.")
