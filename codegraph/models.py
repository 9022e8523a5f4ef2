"""The code graph's tables. Every row carries its owner and project, like memories.

Links between the graph's own rows are foreign keys without database constraints
(`GRAPH_LINK`): the graph is derived data, rebuilt from the source at any time, and
`services` keeps it whole by deleting a file's rows in a fixed order
(`services._drop_files`), one statement per table. Checking five constraints per edge at
commit tripled the time of a full build of Django's source (docs/BENCHMARKS.md), and
Django's cascade collector would turn each delete into a query per related row.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from memories.models import OwnedQuerySet, new_id

GRAPH_LINK = {"on_delete": models.DO_NOTHING, "db_constraint": False}


class SymbolKind(models.TextChoices):
    FUNCTION = "function"
    CLASS = "class"
    IMPORT = "import"


class EdgeKind(models.TextChoices):
    CONTAINS = "contains"
    CALLS = "calls"
    IMPORTS = "imports"
    INHERITS = "inherits"
    REFERENCES = "references"


class CodeFile(models.Model):
    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, db_index=False)
    project = models.CharField(max_length=200)
    path = models.CharField(max_length=1000)  # relative to the project root, with "/"
    language = models.CharField(max_length=16)
    content_hash = models.CharField(max_length=64)  # sha256: unchanged files are not re-parsed
    size = models.PositiveIntegerField()
    lines = models.PositiveIntegerField()
    indexed_at = models.DateTimeField(default=timezone.now)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "project", "path"],
                                               name="codefile_one_per_path")]


class CodeSymbol(models.Model):
    """A node inside a file: a function (methods too), a class (struct, trait,
    interface) or an import statement."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, db_index=False)
    project = models.CharField(max_length=200)
    file = models.ForeignKey(CodeFile, related_name="symbols", **GRAPH_LINK)
    kind = models.CharField(max_length=16, choices=SymbolKind.choices)
    name = models.CharField(max_length=200)
    qualified_name = models.CharField(max_length=400)
    signature = models.CharField(max_length=400, blank=True, default="")
    line = models.PositiveIntegerField()
    end_line = models.PositiveIntegerField()
    parent = models.ForeignKey("self", null=True, blank=True, related_name="+",
                               db_index=False, **GRAPH_LINK)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["owner", "project", "name"]),
                   models.Index(fields=["owner", "project", "qualified_name"])]


class CodeEdge(models.Model):
    """A link made in `file`: from the file itself (source empty) or one of its symbols,
    to a file or a symbol when it could be resolved, else only to `target_text`."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, db_index=False)
    project = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=EdgeKind.choices)
    file = models.ForeignKey(CodeFile, related_name="edges", **GRAPH_LINK)
    source = models.ForeignKey(CodeSymbol, null=True, blank=True, related_name="outgoing",
                               db_index=False, **GRAPH_LINK)
    target_text = models.CharField(max_length=200)  # as written: models.Model, ./util
    target_name = models.CharField(max_length=200)  # its last name: Model, util
    target_file = models.ForeignKey(CodeFile, null=True, blank=True, related_name="incoming",
                                    **GRAPH_LINK)
    target = models.ForeignKey(CodeSymbol, null=True, blank=True, related_name="incoming",
                               **GRAPH_LINK)
    line = models.PositiveIntegerField()

    objects = OwnedQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["owner", "project", "kind", "target_name"])]

    @property
    def resolved(self) -> bool:
        return self.target_file_id is not None or self.target_id is not None
