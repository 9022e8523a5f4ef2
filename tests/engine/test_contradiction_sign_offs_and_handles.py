"""Approval said as a sign-off ("signed off by Lena", "Lena signs off on every tag") is
approving, and a handle ("@rpatel", "@acme/ops") holds a role as a name does."""

from tests.helpers import queued


def test_a_sign_off_is_an_approval_held_by_one_person():
    assert queued("Release tags are signed off by Lena.", "Omar approves every release tag.")
    assert queued("Only the core team can approve releases; Lena signs off on every tag.",
                  "Omar is the sole approver for release tags.")
    assert queued("Release tags must be signed off by Lena.",
                  "Release tags must be approved by Omar.")


def test_one_person_signing_off_and_approving_is_no_clash():
    assert not queued("Release tags are signed off by Lena.", "Lena approves every release tag.")
    assert not queued("Release tags must be signed off by Lena.",
                      "Lena is the approver for release tags.")


def test_a_handle_holds_a_role():
    assert queued("The Windows builds are maintained by @jkowalski.",
                  "The Windows builds are looked after by @rpatel.")
    assert queued("The infra/ folder is owned by @acme/ops.",
                  "@acme/backend owns the infra/ folder.")


def test_one_handle_said_twice_is_no_clash():
    assert not queued("@jkowalski maintains the Windows builds.",
                      "The Windows builds are maintained by @jkowalski.")
    assert not queued("The infra/ folder is owned by @acme/ops.", "@acme/ops owns infra/.")
