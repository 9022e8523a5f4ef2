"""Projects shared by their members: creating one, adding, changing and removing members,
leaving. Every membership change is kept (a member who leaves keeps a row with left_at),
so who could have written a project's memories stays known."""

import unicodedata
from datetime import datetime

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..models import MAX_PROJECT_NAME, Membership, Project, Role
from ..selectors import NotAllowed, forget_readers
from .validation import unstorable_error


def project_name_error(name) -> str | None:
    if not isinstance(name, str) or not name.strip():
        return "Give the project a name."
    if len(name.strip()) > MAX_PROJECT_NAME:
        return f"A project name has at most {MAX_PROJECT_NAME} characters."
    if unstorable := unstorable_error(name):
        return unstorable
    # C0, DEL and C1 alike ("\x9b" is ESC [ in one byte): a name is printed in terminals
    if any(unicodedata.category(c) == "Cc" for c in name):
        return "A project name cannot hold control characters (a new line, a tab)."
    return None


def create_project(*, creator, name: str, now: datetime | None = None) -> Project:
    """A new project named `name` (unique among the creator's), with its creator as its
    first owner."""
    if error := project_name_error(name):
        raise ValidationError({"name": [error]})
    name = name.strip()
    now = now or timezone.now()
    try:
        with transaction.atomic():
            project = Project.objects.create(name=name, creator=creator, created_at=now)
    except IntegrityError:
        raise ValidationError({"name": [f"You already have a project named {name!r}."]}) \
            from None
    Membership.objects.create(project=project, user=creator, role=Role.OWNER,
                              added_by=creator, joined_at=now)
    forget_readers()
    return project


def _lock(project: Project) -> None:
    """Serialise the changes of one project's members: two owners removing each other at
    once must not leave it without an owner, two adds of one user must not collide."""
    Project.objects.select_for_update().filter(pk=project.pk).first()


def _storable(username) -> bool:
    """A username that can be looked up: text PostgreSQL could hold (no NUL)."""
    return isinstance(username, str) and unstorable_error(username) is None


def _require_owner(project: Project, by) -> None:
    if not project.memberships.current().filter(user=by, role=Role.OWNER).exists():
        raise NotAllowed(f"Only an owner of project {project.name!r} manages its members.")


def _keep_an_owner(project: Project, leaving, *, field: str | None = None) -> None:
    """Refuse to let the last owner go: under `field` when the request sent one (the new
    role), else as a whole (a removal sends none)."""
    others = project.memberships.current().filter(role=Role.OWNER).exclude(user=leaving)
    if not others.exists():
        message = (f"Project {project.name!r} would have no owner left: make another "
                   "member an owner first.")
        raise ValidationError({field: [message]} if field else message)


def add_member(project: Project, *, by, username: str, role: str,
               now: datetime | None = None) -> tuple[Membership, bool]:
    """Add `username` to the project with `role`, or change the role of a member (a
    former member rejoins). Returns the membership and whether it is new. Owners only."""
    if role not in Role.values:
        raise ValidationError({"role": [(f"Unknown role {role!r}: use one of "
                                         f"{', '.join(Role.values)}.")]})
    user = get_user_model().objects.filter(username=username, is_active=True).first() \
        if _storable(username) else None
    if user is None:
        raise ValidationError({"username": [f"No active user is named {username!r}."]})
    now = now or timezone.now()
    with transaction.atomic():
        _lock(project)
        _require_owner(project, by)
        membership = Membership.objects.filter(project=project, user=user).first()
        forget_readers()
        if membership is None:
            return Membership.objects.create(project=project, user=user, role=role,
                                             added_by=by, joined_at=now), True
        rejoined = membership.left_at is not None
        if not rejoined and membership.role == Role.OWNER and role != Role.OWNER:
            _keep_an_owner(project, user, field="role")
        membership.role, membership.added_by = role, by
        if rejoined:
            membership.left_at, membership.joined_at = None, now
        membership.save(update_fields=["role", "added_by", "left_at", "joined_at"])
        return membership, rejoined


def remove_member(project: Project, *, by, username: str,
                  now: datetime | None = None) -> Membership:
    """End a membership: an owner removes anyone, any member removes themselves (leaves).
    The member loses sight of the project's memories at once; the memories they wrote
    stay the project's, and their private memories stay theirs."""
    with transaction.atomic():
        _lock(project)
        membership = project.memberships.current().select_related("user").filter(
            user__username=username).first() if _storable(username) else None
        if membership is None:
            raise ValidationError({"username": [
                f"{username!r} is not a member of project {project.name!r}."]})
        if membership.user_id != by.pk:
            _require_owner(project, by)
        if membership.role == Role.OWNER:
            _keep_an_owner(project, membership.user)
        membership.left_at = now or timezone.now()
        membership.save(update_fields=["left_at"])
    forget_readers()
    return membership
