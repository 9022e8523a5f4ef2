"""The code graph over the API, under /api/v1/code/: one view per question, and the
re-index an agent asks for after an edit.

Re-indexing takes the files' contents in the request, not paths on Engram's disk:
Engram often runs on another machine than the agent's checkout (a server, a container),
where no registered root would hold the file the agent just wrote; the hook and the MCP
tool have the contents at hand.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.response import Response

from memories.api.views import ScopedView

from . import engine, selectors, services

MAX_RESULTS = 500
TOTAL_HEADER = "X-Total-Count"
# The count a listing's page was taken from, declared in the schema.
TOTAL = OpenApiParameter(TOTAL_HEADER, int, OpenApiParameter.HEADER, response=True,
                         description="how many there are in all, whatever the page shows")
MAX_REINDEX_FILES = 100


def _clean_path(value: str) -> str:
    try:
        return engine.clean_path(value)
    except ValueError as exc:
        raise serializers.ValidationError(str(exc)) from None


class ProjectInput(serializers.Serializer):
    project = serializers.CharField(max_length=200, required=False, help_text=(
        "The project (required unless the API key is restricted to one)"))


class PathInput(ProjectInput):
    path = serializers.CharField(max_length=1000, help_text="The file's path relative to "
                                                            "the project root")

    def validate_path(self, value):
        return _clean_path(value)


class PageInput(serializers.Serializer):
    """A page of a listing: the whole count is in the X-Total-Count header, so a long one
    is never cut short without saying so."""
    limit = serializers.IntegerField(min_value=1, max_value=MAX_RESULTS, default=MAX_RESULTS,
                                     help_text="items in one page")
    offset = serializers.IntegerField(min_value=0, max_value=engine.MAX_FILE_BYTES, default=0,
                                      help_text="items skipped: the next page starts at "
                                                "offset + limit")


class SymbolInput(ProjectInput, PageInput):
    symbol = serializers.CharField(max_length=400, help_text="A name (save) or a qualified "
                                                              "name (Cart.save)")
    limit = serializers.IntegerField(min_value=1, max_value=MAX_RESULTS, default=100,
                                     help_text="items in one page")


class ListedPathInput(PathInput, PageInput):
    pass


class SymbolOutput(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    qualified_name = serializers.CharField()
    signature = serializers.CharField()
    line = serializers.IntegerField()
    end_line = serializers.IntegerField()


class DefinitionOutput(SymbolOutput):
    path = serializers.CharField(source="file.path")


class CallerOutput(serializers.Serializer):
    path = serializers.CharField(source="file.path", help_text="the file the call is in")
    line = serializers.IntegerField()
    caller = serializers.CharField(source="source.qualified_name", allow_null=True,
                                   default=None, help_text="the calling function; null: "
                                                           "the file's top level")
    call = serializers.CharField(source="target_text", help_text="the call as written")
    resolved = serializers.BooleanField(help_text="linked to a definition; false: "
                                                  "matched by name only")
    definition_path = serializers.CharField(source="target.file.path", allow_null=True,
                                            default=None)
    definition = serializers.CharField(source="target.qualified_name", allow_null=True,
                                       default=None)


class ImportOutput(serializers.Serializer):
    line = serializers.IntegerField()
    target = serializers.CharField(source="target_text", help_text="the import as written")
    path = serializers.CharField(source="target_file.path", allow_null=True, default=None,
                                 help_text="the project's file it resolves to; null: "
                                           "outside the project or not found")


class DependentOutput(serializers.Serializer):
    path = serializers.CharField(source="file.path")
    line = serializers.IntegerField()
    target = serializers.CharField(source="target_text")


class FileContentsInput(ListedPathInput):
    """A page of a file's symbols, in source order."""


class FileContentsOutput(serializers.Serializer):
    path = serializers.CharField()
    language = serializers.CharField()
    content_hash = serializers.CharField()
    lines = serializers.IntegerField()
    indexed_at = serializers.DateTimeField()
    symbols = SymbolOutput(many=True)
    symbols_total = serializers.IntegerField(help_text="the file's symbols in all, over "
                                                       "every page")


class CodeView(ScopedView):
    throttle_scope = "memories"

    def validated(self, serializer_class, data) -> dict:
        given = serializer_class(data=data)
        given.is_valid(raise_exception=True)
        given = dict(given.validated_data)
        given["project"] = self.project_of(given.get("project"))
        return given

    def project_of(self, asked: str | None) -> str:
        """The project asked for, within the key's reach (403 for another one)."""
        project = self.reach.project_for(asked)
        if not project:
            raise exceptions.ValidationError({"project": ["Name the project."]})
        return project

    def listed(self, found, given: dict, output) -> Response:
        """One page of `found`, with how many there are in all (X-Total-Count)."""
        page = found[given["offset"]:given["offset"] + given["limit"]]
        response = Response(output(page, many=True).data)
        response[TOTAL_HEADER] = str(found.count())
        return response

    def code_file(self, given: dict):
        found = selectors.file_at(self.request.user, given["project"], given["path"])
        if found is None:
            raise exceptions.NotFound(f"{given['path']!r} is not indexed in project "
                                      f"{given['project']!r}.")
        return found


class CodeFileContents(CodeView):
    @extend_schema(parameters=[FileContentsInput], responses=FileContentsOutput,
                   summary="A file's functions, classes and imports, in source order")
    def get(self, request):
        given = self.validated(FileContentsInput, request.query_params)
        found = self.code_file(given)
        symbols = selectors.file_contents(found)
        # Every symbol of a generated file was 6.5 MB and 1.5 s (50,000 functions).
        return Response(FileContentsOutput({
            **{name: getattr(found, name) for name in
               ("path", "language", "content_hash", "lines", "indexed_at")},
            "symbols": symbols[given["offset"]:given["offset"] + given["limit"]],
            "symbols_total": symbols.count()}).data)


class CodeDefinitions(CodeView):
    @extend_schema(parameters=[SymbolInput, TOTAL], responses=DefinitionOutput(many=True),
                   summary="Where a function or class is defined")
    def get(self, request):
        given = self.validated(SymbolInput, request.query_params)
        found = selectors.definitions(request.user, given["project"], given["symbol"])
        return self.listed(found, given, DefinitionOutput)


class CodeCallers(CodeView):
    @extend_schema(parameters=[SymbolInput, TOTAL], responses=CallerOutput(many=True),
                   summary="The calls to a function (linked ones, and unresolved calls "
                           "written with its name)")
    def get(self, request):
        given = self.validated(SymbolInput, request.query_params)
        found = selectors.callers(request.user, given["project"], given["symbol"])
        return self.listed(found, given, CallerOutput)


class CodeDependencies(CodeView):
    @extend_schema(parameters=[ListedPathInput, TOTAL], responses=ImportOutput(many=True),
                   summary="What a file imports: files of the project, or targets outside it")
    def get(self, request):
        given = self.validated(ListedPathInput, request.query_params)
        found = selectors.dependencies(request.user, given["project"], self.code_file(given))
        return self.listed(found, given, ImportOutput)


class CodeDependents(CodeView):
    @extend_schema(parameters=[ListedPathInput, TOTAL], responses=DependentOutput(many=True),
                   summary="The project's files that import this file")
    def get(self, request):
        given = self.validated(ListedPathInput, request.query_params)
        found = selectors.dependents(request.user, given["project"], self.code_file(given))
        return self.listed(found, given, DependentOutput)


class ReindexFileInput(serializers.Serializer):
    path = serializers.CharField(max_length=1000)
    content = serializers.CharField(required=False, trim_whitespace=False, allow_blank=True,
                                    max_length=engine.MAX_FILE_BYTES, help_text=(
                                        "The file's whole text after the edit"))
    deleted = serializers.BooleanField(default=False, help_text="true: the file is gone")

    def validate_path(self, value):
        cleaned = _clean_path(value)
        if not engine.language_of(cleaned):
            raise serializers.ValidationError(
                f"{value!r} is not a file of a supported language (extensions: "
                f"{', '.join(sorted(engine.EXTENSIONS))}).")
        return cleaned

    def validate(self, data):
        if data["deleted"] == ("content" in data):
            raise serializers.ValidationError("Send either the file's content or "
                                              "deleted: true.")
        return data


class ReindexInput(ProjectInput):
    files = ReindexFileInput(many=True, allow_empty=False, max_length=MAX_REINDEX_FILES)

    def validate_files(self, files):
        paths = [f["path"] for f in files]
        if len(set(paths)) != len(paths):
            raise serializers.ValidationError("A path is named twice.")
        return files


class ReindexOutput(serializers.Serializer):
    parsed = serializers.IntegerField(help_text="files whose content changed, parsed again")
    unchanged = serializers.IntegerField()
    deleted = serializers.IntegerField()
    files = serializers.IntegerField(help_text="the project's files after the re-index")
    functions = serializers.IntegerField()
    classes = serializers.IntegerField()
    edges = serializers.IntegerField()
    skipped = serializers.DictField(child=serializers.CharField(),
                                    help_text="files not indexed, and why (binary, too large)")


class CodeReindex(CodeView):
    @extend_schema(request=ReindexInput, responses=ReindexOutput,
                   summary="Re-index files after an edit: send their new contents (or "
                           "deleted: true); unchanged ones are not parsed again")
    def post(self, request):
        given = self.validated(ReindexInput, request.data)
        sources = [services.SourceFile(f["path"], None if f["deleted"]
                                       else f["content"].encode("utf-8", "surrogatepass"))
                   for f in given["files"]]
        report = services.index_sources(request.user, given["project"], sources,
                                        complete=False)
        return Response(ReindexOutput(report).data)
