"""Projects: the ones a person is a member of with their members, a new project, and (for
owners) adding members, changing their roles and removing them; any member may leave.

Routed by the project's id: names hold slashes (github.com/acme/shop) and are unique only
per creator. A project one is not a member of is a 404; an action one's role does not
allow is a 403 (`NotAllowed`).
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from memories.models import Role
from memories.selectors import NotAllowed
from memories.services.projects import add_member, create_project, remove_member

from ..forms import MemberForm, ProjectForm
from ..queries import project_for, projects_with_members


def _add_errors(form, exc: ValidationError) -> None:
    """The service's errors next to the fields they name, the rest above the form."""
    for name, errors in exc.message_dict.items():
        form.add_error(name if name in form.fields else None, errors)


def _member_form(project, data=None) -> MemberForm:
    # Each project's form on the page needs its own element ids.
    return MemberForm(data, auto_id=f"member-{project.pk}-%s")


def _projects_page(request, *, form=None, failed=None, member_form=None, errors=(),
                   failed_member="", failed_action="", notice=""):
    """The page, or for htmx its #projects partial. The project whose id is `failed` shows
    `member_form` (bound, with its errors) and `errors`: at the row of `failed_member`,
    beside the role (`failed_action` "role") or the removal ("remove", leaving too), or
    above the members when that member has no row (gone since the page was loaded)."""
    projects = projects_with_members(request.user)
    for project in projects:
        mine = project.pk == failed
        project.member_form = member_form if mine and member_form else _member_form(project)
        project.errors = errors if mine else ()
        for member in project.members:
            member.failed = failed_action if mine and \
                member.user.get_username() == failed_member else ""
        # Rows hold controls for owners alone: anyone else is told above the members.
        project.errors_at_row = project.role == Role.OWNER and any(
            member.failed for member in project.members)
    context = {"form": form or ProjectForm(), "projects": projects, "notice": notice,
               "member_roles": Role.choices}
    template = "dashboard/projects.html#projects" if request.htmx else "dashboard/projects.html"
    return render(request, template, context)


def _done(request, notice: str):
    if request.htmx:
        return _projects_page(request, notice=notice)
    messages.info(request, notice)
    return redirect("projects")


@login_required
@require_http_methods(["GET", "POST"])
def project_list(request):
    """The projects one is a member of, with their members; a new project by name."""
    form = ProjectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            project = create_project(creator=request.user, name=form.cleaned_data["name"])
        except ValidationError as exc:
            _add_errors(form, exc)
        else:
            # Redirected like every other action: reloading the page must not post again.
            return _done(request, f"Project “{project.name}” created: you are its owner.")
    return _projects_page(request, form=form)


@login_required
@require_POST
def project_member(request, project_id):
    """Add a member with a role, or change a member's role: owners only."""
    project = project_for(request.user, project_id)
    if project.role != Role.OWNER:
        raise NotAllowed(f"Only an owner of project {project.name!r} manages its members.")
    form = _member_form(project, request.POST)
    if form.is_valid():
        try:
            membership, new = add_member(project, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            _add_errors(form, exc)
        else:
            name = membership.user.get_username()
            return _done(request, f"{name} joined “{project.name}” as {membership.role}."
                         if new else f"{name} is now {membership.role} of “{project.name}”.")
    if request.POST.get("row") == "change":
        # A role changed in the members table: its error belongs to that row, and the
        # "Add a member" form stays empty rather than holding the row's values.
        return _projects_page(request, failed=project.pk,
                              failed_member=request.POST.get("username", ""),
                              failed_action="role",
                              errors=[e for errors in form.errors.values() for e in errors])
    return _projects_page(request, failed=project.pk, member_form=form)


@login_required
@require_POST
def project_member_remove(request, project_id):
    """Remove a member (owners), or leave (any member removing themselves). The one who
    leaves loses sight of the project's memories at once; their private ones stay."""
    project = project_for(request.user, project_id)
    username = request.POST.get("username", "")
    try:
        membership = remove_member(project, by=request.user, username=username)
    except ValidationError as exc:
        return _projects_page(request, failed=project.pk, errors=exc.messages,
                              failed_member=username, failed_action="remove")
    if membership.user_id == request.user.pk:
        return _done(request, f"You left “{project.name}”: its memories are no longer in "
                              "your sight; your private memories stay yours.")
    return _done(request, f"{membership.user.get_username()} is no longer a member of "
                          f"“{project.name}”.")
