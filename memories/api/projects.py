"""Projects shared by their members: create and list them, add, change and remove
members (an owner manages members; any member may leave). A project is named in the
path by its name, which may hold slashes (`github.com/acme/shop`); `?creator=` picks one
of two projects of the same name."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from memories import selectors
from memories.models import Project, Role
from memories.services.projects import add_member, create_project, remove_member

from .views import ScopedView


class MemberOutput(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    role = serializers.CharField()
    joined_at = serializers.DateTimeField()


class ProjectOutput(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    creator = serializers.CharField(source="creator_name")
    created_at = serializers.DateTimeField()
    role = serializers.CharField(allow_null=True, help_text="Your role in it (none once you "
                                                           "have left)")
    members = MemberOutput(many=True, help_text="The current members, in the order they "
                                                "joined")


CREATOR = OpenApiParameter("creator", str, description=(
    "The project's creator's username, when you are a member of two projects of that name"))


class ProjectView(ScopedView):
    throttle_scope = "memories"

    def get_project(self, name: str):
        """The named project among the caller's (404 otherwise); a key restricted to a
        project reaches only that one."""
        self.reach.project_for(name)
        return selectors.project_named(self.request.user, name,
                                       creator=self.request.query_params.get("creator"))

    def answer(self, project: Project, status: int = 200) -> Response:
        """The project as it stands after a change, with the caller's role now."""
        shown = selectors.with_members(
            Project.objects.select_related("creator").filter(pk=project.pk)).get()
        shown.role = selectors.role_in(project, self.request.user)
        return Response(ProjectOutput(shown).data, status=status)


class ProjectListCreate(ProjectView):
    class ProjectInput(serializers.Serializer):
        name = serializers.CharField(max_length=200, trim_whitespace=True)

    @extend_schema(request=ProjectInput, responses={201: ProjectOutput},
                   summary="Create a project; you are its first owner")
    def post(self, request):
        data = self.ProjectInput(data=request.data)
        data.is_valid(raise_exception=True)
        self.reach.project_for(data.validated_data["name"])
        return self.answer(create_project(creator=request.user,
                                          name=data.validated_data["name"]), status=201)

    @extend_schema(responses=ProjectOutput(many=True),
                   summary="The projects you are a member of, with your role and the members")
    def get(self, request):
        projects = selectors.with_members(selectors.projects_of(request.user))
        if self.reach.restricted:
            projects = projects.filter(name=self.reach.project)
        return Response(ProjectOutput(projects, many=True).data)


class ProjectMembers(ProjectView):
    class MemberInput(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        role = serializers.ChoiceField(Role.choices)

    @extend_schema(request=MemberInput, parameters=[CREATOR],
                   responses={201: ProjectOutput, 200: ProjectOutput},
                   summary="Add a member with a role, or change a member's role (owners only)")
    def post(self, request, name):
        project = self.get_project(name)
        data = self.MemberInput(data=request.data)
        data.is_valid(raise_exception=True)
        _, added = add_member(project, by=request.user, **data.validated_data)
        return self.answer(project, status=201 if added else 200)


class ProjectMember(ProjectView):
    @extend_schema(parameters=[CREATOR],
                   responses={200: ProjectOutput},  # a DELETE is documented 204 otherwise
                   summary="Remove a member (owners), or leave (yourself): they lose sight "
                           "of the project's memories at once")
    def delete(self, request, name, username):
        project = self.get_project(name)
        remove_member(project, by=request.user, username=username)
        return self.answer(project)
