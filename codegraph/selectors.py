"""Reading the code graph, always for one owner and one project."""

from django.db.models import Q

from . import engine
from .models import CodeEdge, CodeFile, CodeSymbol, EdgeKind, SymbolKind

RELATED_DEPTH = 3


def files(owner, project: str):
    return CodeFile.objects.for_owner(owner).filter(project=project)


def file_at(owner, project: str, path: str) -> CodeFile | None:
    return files(owner, project).filter(path=path).first()


def file_contents(code_file: CodeFile):
    """The file's functions, classes and imports, in source order."""
    return code_file.symbols.order_by("line", "kind", "qualified_name")


def definitions(owner, project: str, symbol: str):
    """Functions and classes named `symbol`, or whose qualified name it is (Cart.add)."""
    return (CodeSymbol.objects.for_owner(owner)
            .filter(project=project, kind__in=[SymbolKind.FUNCTION, SymbolKind.CLASS])
            .filter(Q(name=symbol) | Q(qualified_name=symbol))
            .select_related("file").order_by("file__path", "line"))


def callers(owner, project: str, symbol: str):
    """Calls to `symbol`: those linked to one of its definitions, and those left
    unresolved that are written with its name (`obj.save()` for `save`) in a language
    it is defined in (any, when the project defines no such symbol); each edge says
    which by its target."""
    parts = engine.target_parts(symbol)
    defined = definitions(owner, project, symbol)
    unresolved = Q(target__isnull=True, target_name=parts[-1] if parts else symbol)
    languages = {language for found in defined.values_list("file__language", flat=True)
                 for language in engine.LANGUAGE_FAMILIES[found]}
    if languages:
        unresolved &= Q(file__language__in=languages)
    calls = CodeEdge.objects.for_owner(owner).filter(project=project, kind=EdgeKind.CALLS)
    return (calls.filter(Q(target__in=defined.values("id")) | unresolved)
            .select_related("file", "source", "target__file")
            .order_by("file__path", "line"))


def dependencies(owner, project: str, code_file: CodeFile):
    """What the file imports: files of the project, or targets left as written."""
    return (CodeEdge.objects.for_owner(owner)
            .filter(project=project, kind=EdgeKind.IMPORTS, file=code_file)
            .select_related("target_file").order_by("line", "target_text"))


def dependents(owner, project: str, code_file: CodeFile):
    """The project's files that import this one."""
    return (CodeEdge.objects.for_owner(owner)
            .filter(project=project, kind=EdgeKind.IMPORTS, target_file=code_file)
            .select_related("file").order_by("file__path", "line"))


def related_files(owner, project: str, path: str, limit: int = 10) -> list[str]:
    """Paths of the files `path` imports or is imported by, nearest first: the files one
    import away (what it imports, then what imports it, each by path), then two away,
    up to RELATED_DEPTH. Empty when the file is not indexed."""
    start = file_at(owner, project, path)
    if start is None or limit <= 0:
        return []
    imports = CodeEdge.objects.for_owner(owner).filter(
        project=project, kind=EdgeKind.IMPORTS, target_file__isnull=False)
    reached, found, frontier = {start.id}, [], [start.id]
    for _ in range(RELATED_DEPTH):
        out = dict(imports.filter(file_id__in=frontier)
                   .values_list("target_file_id", "target_file__path"))
        into = dict(imports.filter(target_file_id__in=frontier).values_list("file_id", "file__path"))
        frontier = []
        for neighbours in (out, into):
            for file_id, file_path in sorted(neighbours.items(), key=lambda item: item[1]):
                if file_id not in reached:
                    reached.add(file_id)
                    frontier.append(file_id)
                    found.append(file_path)
        if len(found) >= limit or not frontier:
            break
    return found[:limit]
