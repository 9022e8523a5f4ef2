"""The REST API agents call: one view per operation, small input and output serializers.

Every query starts from the memories the caller reads (`get_queryset`: their private
ones, their projects', system ones), so another user's private memory is a 404, never a
leak; a change their role does not allow is a 403 (the services check it); and from the
key's reach (`ScopedView.reach`): a key restricted to a project reads only that project
and writes only into it.
"""

import logging
import uuid

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from engram_site.db.replicas import replica_reads
from memories import selectors
from memories.models import (
    MAX_TAG_LENGTH,
    MAX_TAGS,
    Kind,
    Memory,
    MemoryType,
    MemoryVersion,
    Scope,
    Status,
    UsageKind,
)
from memories.services.context import MAX_CONTEXT_TOKENS, assemble_context
from memories.services.editing import delete_memory, give_feedback, update_memory
from memories.services.erasing import erase_memory
from memories.services.recall import MAX_RECALL_LIMIT, recall, record_retrieval
from memories.services.remembering import DuplicateMemory, remember

from .errors import Conflict

log = logging.getLogger(__name__)


def scope_field():
    """An optional agent or session id: who is asking, or which session it is in."""
    return serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


def project_creator_field():
    return serializers.CharField(
        max_length=150, required=False,
        help_text="With scope project: the project's creator, when you are a member of two "
                  "projects of that name")


class NumberField(serializers.FloatField):
    """A JSON number. FloatField takes true and false as 1.0 and 0.0 (a bool is an int
    in Python); they are refused here as IntegerField refuses them."""

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        return super().to_internal_value(data)


def importance_field():
    return NumberField(min_value=1, max_value=10, required=False)


def tags_filter_field(**kwargs):
    """Tags a memory must all carry, at most as many as a memory may carry: a filter of
    a hundred thousand took seconds to match."""
    return serializers.ListField(
        child=serializers.CharField(max_length=MAX_TAG_LENGTH), max_length=MAX_TAGS,
        required=False,
        error_messages={"max_length": f"At most {MAX_TAGS} tags, as many as a memory "
                                      "carries."}, **kwargs)


def valid_at_field():
    return serializers.DateTimeField(
        required=False, help_text="What was true then (valid_from <= t < valid_to, not yet "
                                  "expired) instead of what is true now")


def include_superseded_field():
    return serializers.BooleanField(
        required=False, default=False,
        help_text="History too: memories superseded by a resolution, expired or not yet "
                  "valid (marked as such in a context). By default only what holds now.")


def if_readable(context: dict, memory_id: uuid.UUID | None) -> uuid.UUID | None:
    """`memory_id` when the caller reads that memory (`ScopedView.shown`), else None:
    a serializer given no such context names no other memory."""
    return memory_id if memory_id in context.get("readable", ()) else None


class MemoryOutput(serializers.ModelSerializer):
    """A memory, given the context `ScopedView.shown` makes for the memories shown."""

    author = serializers.SerializerMethodField(help_text="Who wrote it (its owner)")
    superseded_by = serializers.SerializerMethodField(
        help_text="The memory that replaced it, if the caller reads that one")

    def get_superseded_by(self, memory) -> uuid.UUID | None:
        return if_readable(self.context, memory.superseded_by_id)

    def get_author(self, memory) -> str:
        names = self.context.setdefault("authors", {})  # one lookup per author, not per memory
        if memory.owner_id not in names:
            names[memory.owner_id] = memory.owner.username
        return names[memory.owner_id]

    class Meta:
        model = Memory
        fields = [
            "id", "content", "summary", "compressed", "index_key", "memory_type", "kind",
            "scope", "project", "shared_with", "author",
            "agent_id", "session_id", "importance", "helpful_count",
            "harmful_count", "access_count", "last_accessed_at", "created_at", "updated_at",
            "valid_from", "valid_to", "expires_at", "status", "pinned", "is_synthetic",
            "tags", "metadata", "embedding_model", "superseded_by",
        ]
        read_only_fields = fields


class ScopedView(APIView):
    @property
    def reach(self) -> selectors.Reach:
        """What the caller's key may reach (a session reaches every project)."""
        return selectors.Reach.of_key(self.request.auth)

    def shown(self, memories, *named) -> dict:
        """The serializer context for showing `memories`: which of their successors (and
        of the `named` ids, such as a merge's result) the caller reads within reach, in
        one query. One made private or moved to another project since is not theirs to
        know of: it shows as null."""
        return {"readable": selectors.readable_ids(
            self.request.user, [*(m.superseded_by_id for m in memories), *named],
            reach=self.reach)}


def recorded_after_response(response: Response, request, hits, *, agent_id: str,
                            session_id: str) -> Response:
    """`response`, with the hits recorded as retrieved once it has been sent.

    The server calls a response's closers after writing it (Django's own FileResponse
    closes its file this way), so the client does not wait for the write; usage counts
    are statistics, and a failure is logged, not raised, once the answer is out."""
    owner, memories = request.user, [hit.memory for hit in hits]
    scores = [hit.score for hit in hits]

    def record():
        try:
            record_retrieval(owner=owner, memories=memories, agent_id=agent_id,
                             session_id=session_id, scores=scores)
        except Exception:
            log.exception("Could not record %d retrieved memories", len(memories))

    response._resource_closers.append(record)
    return response


def shared_with(user, scope: str, project: str, creator: str | None):
    """The project a new memory of `scope` is shared with (None unless scope is project),
    refusing, with the reason, what the user's role does not allow."""
    if scope == Scope.SYSTEM and not user.is_staff:
        raise selectors.NotAllowed("Only staff write system memories.")
    if scope != Scope.PROJECT:
        return None
    if not project:
        raise serializers.ValidationError({"project": ["A project memory names its project."]})
    try:
        return selectors.writable_project(user, project, creator=creator)
    except selectors.NoSuchProject as missing:
        raise serializers.ValidationError({"project": [str(missing)]}) from None


class OwnedMemoryView(ScopedView):
    def get_queryset(self):
        return self.reach.memories(
            Memory.objects.readable_by(self.request.user).defer("embedding", "search_vector"))

    def get_memory(self, memory_id) -> Memory:
        return get_object_or_404(self.get_queryset(), pk=memory_id)


class NewestFirstPages(CursorPagination):
    """The cursor page a list answers. A list view names it as its `pagination_class`,
    which an APIView does not apply (the view pages by hand), so that the schema
    documents the page and its `cursor` and `page_size` parameters."""

    ordering = "-id"  # UUIDv7: newest first, and unique, as a cursor needs
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    invalid_cursor_message = ("Not a cursor this list gave: follow its next or previous "
                              "link as it is.")

    def decode_cursor(self, request):
        # DRF answers a cursor it cannot read with a 404, as if the list were not there,
        # and one whose position is no id with the query's "... is not a valid UUID.":
        # either is a bad parameter, and the client is told which.
        try:
            cursor = super().decode_cursor(request)
            if cursor is not None and cursor.position is not None:
                uuid.UUID(cursor.position)
            return cursor
        except (exceptions.NotFound, ValueError):
            raise exceptions.ValidationError(
                {self.cursor_query_param: [self.invalid_cursor_message]}) from None


def page_by_status(view, queryset, filters_class, serialize):
    """One page (the view's `pagination_class`) of `queryset` narrowed to the `status`
    asked for, if any."""
    filters = filters_class(data=view.request.query_params)
    filters.is_valid(raise_exception=True)
    if "status" in filters.validated_data:
        queryset = queryset.filter(status=filters.validated_data["status"])
    paginator = view.pagination_class()
    page = paginator.paginate_queryset(queryset, view.request, view=view)
    return paginator.get_paginated_response(serialize(page))


class MemoryListCreate(OwnedMemoryView):
    throttle_scope = "memories"
    pagination_class = NewestFirstPages

    class CreateInput(serializers.Serializer):
        content = serializers.CharField(trim_whitespace=False)
        memory_type = serializers.ChoiceField(MemoryType.choices, default=MemoryType.SEMANTIC)
        kind = serializers.ChoiceField(Kind.choices, default=Kind.FACT)
        project = scope_field()
        scope = serializers.ChoiceField(
            Scope.choices, default=Scope.PRIVATE,
            help_text="private (you alone, the default), project (every member of the "
                      "project named by `project`; owners and editors write), system "
                      "(every user; staff only)")
        project_creator = project_creator_field()
        agent_id = scope_field()
        session_id = scope_field()
        importance = importance_field()
        observation_type = serializers.CharField(max_length=50, required=False, default="")
        tags = serializers.ListField(child=serializers.CharField(max_length=64),
                                     required=False, default=list)
        metadata = serializers.DictField(required=False, default=dict)
        valid_from = serializers.DateTimeField(required=False)
        expires_at = serializers.DateTimeField(required=False)
        on_duplicate = serializers.ChoiceField(["strengthen", "reject"], default="strengthen")

    class CreateOutput(serializers.Serializer):
        action = serializers.ChoiceField(["created", "strengthened"])
        similarity = serializers.FloatField(allow_null=True)
        memory = MemoryOutput()

    class ListFilters(serializers.Serializer):
        memory_type = serializers.MultipleChoiceField(choices=MemoryType.choices, required=False)
        kind = serializers.MultipleChoiceField(choices=Kind.choices, required=False)
        status = serializers.MultipleChoiceField(choices=Status.choices, required=False)
        tag = tags_filter_field()
        project = serializers.CharField(required=False, allow_blank=True)
        agent_id = serializers.CharField(required=False, allow_blank=True)
        session_id = serializers.CharField(required=False, allow_blank=True)
        pinned = serializers.BooleanField(required=False, allow_null=True, default=None)
        created_after = serializers.DateTimeField(required=False)
        created_before = serializers.DateTimeField(required=False)

    @extend_schema(request=CreateInput, responses={201: CreateOutput, 200: CreateOutput},
                   summary="Remember something (or strengthen its near-duplicate)")
    def post(self, request):
        data = self.CreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        reject = fields.pop("on_duplicate") == "reject"
        fields["project"] = self.reach.project_for(fields["project"]) or ""
        fields["shared_with"] = shared_with(request.user, fields["scope"], fields["project"],
                                            fields.pop("project_creator", None))
        try:
            result = remember(owner=request.user, reject_duplicates=reject, **fields)
        except DuplicateMemory as duplicate:
            raise Conflict(str(duplicate)) from None
        body = self.CreateOutput({"action": result.action, "similarity": result.similarity,
                                  "memory": result.memory},
                                 context=self.shown([result.memory])).data
        return Response(body, status=201 if result.created else 200)

    @extend_schema(parameters=[ListFilters], responses=MemoryOutput(many=True),
                   summary="List memories, newest first (cursor pagination)")
    def get(self, request):
        filters = self.ListFilters(data=request.query_params.dict() | {
            name: request.query_params.getlist(name)
            for name in ("memory_type", "kind", "status", "tag")
            if name in request.query_params
        })
        filters.is_valid(raise_exception=True)
        given = dict(filters.validated_data)
        if self.reach.restricted:
            given["project"] = self.reach.project_for(given.get("project"))
        memories = selectors.listed(self.get_queryset(), **given)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(memories, request, view=self)
        return paginator.get_paginated_response(
            MemoryOutput(page, many=True, context=self.shown(page)).data)


class MemoryDetail(OwnedMemoryView):
    throttle_scope = "memories"

    class UpdateInput(serializers.Serializer):
        content = serializers.CharField(trim_whitespace=False, allow_blank=True, required=False)
        importance = importance_field()
        tags = serializers.ListField(child=serializers.CharField(max_length=64), required=False)
        status = serializers.ChoiceField(Status.choices, required=False)
        pinned = serializers.BooleanField(required=False)
        scope = serializers.ChoiceField(
            Scope.choices, required=False,
            help_text="Move it: to project (with `project`), private (its author only), "
                      "system (staff); kept in its history")
        project = serializers.CharField(max_length=200, required=False,
                                        help_text="With scope project: the project's name")
        project_creator = project_creator_field()
        agent_id = scope_field()

        def validate(self, attrs):
            if not set(attrs) - {"agent_id", "project", "project_creator"}:
                raise serializers.ValidationError(
                    "Send at least one of content, importance, tags, status, pinned, scope.")
            if set(attrs) & {"project", "project_creator"} and "scope" not in attrs:
                raise serializers.ValidationError(
                    {"project": ["A project is named only to move a memory (with scope)."]})
            return attrs

    @extend_schema(responses=MemoryOutput, summary="One memory")
    def get(self, request, memory_id):
        memory = self.get_memory(memory_id)
        return Response(MemoryOutput(memory, context=self.shown([memory])).data)

    @extend_schema(request=UpdateInput, responses=MemoryOutput,
                   summary="Change a memory; every change is kept as a version")
    def patch(self, request, memory_id):
        memory = self.get_memory(memory_id)
        data = self.UpdateInput(data=request.data)
        data.is_valid(raise_exception=True)
        changes = dict(data.validated_data)
        agent_id = changes.pop("agent_id")
        project, creator = changes.pop("project", ""), changes.pop("project_creator", None)
        if "scope" in changes:
            changes["shared_with"] = shared_with(
                request.user, changes["scope"], self.reach.project_for(project) or "", creator)
        memory = update_memory(memory, by=request.user, agent_id=agent_id, **changes)
        return Response(MemoryOutput(memory, context=self.shown([memory])).data)

    @extend_schema(responses={200: MemoryOutput},  # a DELETE is documented 204 otherwise
                   summary="Delete a memory (soft: PATCH status=active restores it)")
    def delete(self, request, memory_id):
        memory = delete_memory(self.get_memory(memory_id), by=request.user)
        return Response(MemoryOutput(memory, context=self.shown([memory])).data)


class IdsOutput(serializers.Serializer):
    count = serializers.IntegerField()
    ids = serializers.ListField(child=serializers.CharField())


class ErasureOutput(serializers.Serializer):
    memory_id = serializers.UUIDField()
    erased_at = serializers.DateTimeField()
    record = serializers.IntegerField(help_text="The PurgeRecord kept (reason erase): ids "
                                                "and times only")
    removed = serializers.DictField(child=IdsOutput(), help_text=(
        "Rows deleted, per table: memories, versions, usage_events, links, entity_links, "
        "entities, relationships, contradictions, judged_pairs, pending_checks, "
        "observations, observation_chunks, learned_patterns (the work log's error fixes "
        "learned from the calls it came from)"))
    scrubbed = serializers.DictField(child=IdsOutput(), help_text=(
        "Rows kept whose copies of the text were replaced by [erased]: the source "
        "observation's raw text and chunks when it gave other memories too, quotes in "
        "other memories, versions, contradictions, job results; the work log's "
        "tool_executions, tasks, file_interactions, context_snapshots and learned_patterns"))
    flagged = serializers.DictField(child=IdsOutput(), help_text=(
        "What cites it and should be rewritten: insights, consolidation summaries; and "
        "emptied: memories that were nothing but its text, now [erased] and deleted "
        "(restorable, with a version)"))


class MemoryErase(OwnedMemoryView):
    throttle_scope = "memories"

    @extend_schema(request=None, responses=ErasureOutput, summary=(
        "Erase a memory for good, with every copy of its text (versions, the observation "
        "it came from, judged pairs, usage, links, embedding); answers a receipt of ids"))
    def post(self, request, memory_id):
        receipt = erase_memory(self.get_memory(memory_id), by=request.user)
        return Response(ErasureOutput(receipt).data)


class MemoryHistory(OwnedMemoryView):
    throttle_scope = "memories"

    class VersionOutput(serializers.ModelSerializer):
        changed_by = serializers.CharField(source="changed_by.username", allow_null=True,
                                           default=None)

        class Meta:
            model = MemoryVersion
            fields = ["id", "change", "changed_at", "changed_by", "agent_id", "before", "after"]

    @extend_schema(responses=VersionOutput(many=True),
                   summary="Every change to a memory, oldest first")
    def get(self, request, memory_id):
        memory = self.get_memory(memory_id)
        versions = selectors.versions_seen_by(memory, request.user).order_by("changed_at", "id")
        return Response(self.VersionOutput(selectors.successors_hidden(
            versions, request.user, reach=self.reach), many=True).data)


class MemoryRelated(OwnedMemoryView):
    throttle_scope = "memories"

    class RelatedInput(serializers.Serializer):
        depth = serializers.IntegerField(min_value=1, max_value=3, default=1,
                                         help_text="1 to 3 hops (default 1)")
        include_superseded = serializers.BooleanField(
            default=False, help_text="also superseded, expired and not yet valid memories "
                                     "(default false)")

    class RelatedOutput(serializers.Serializer):
        hop = serializers.IntegerField()
        relation = serializers.CharField()
        memory = MemoryOutput()
        unreviewed = serializers.BooleanField(
            help_text="An insight reflection wrote that no person has approved yet")

    @extend_schema(parameters=[RelatedInput], responses=RelatedOutput(many=True),
                   summary="Memories linked to this one, walking the graph up to 3 hops")
    def get(self, request, memory_id):
        memory = self.get_memory(memory_id)
        data = self.RelatedInput(data=request.query_params)
        data.is_valid(raise_exception=True)
        rows = selectors.related_memories(memory, reader=request.user, reach=self.reach,
                                          **data.validated_data)
        unreviewed = selectors.unreviewed_insights(m for m, _, _ in rows)
        return Response(self.RelatedOutput(
            [{"memory": m, "hop": hop, "relation": relation, "unreviewed": m.pk in unreviewed}
             for m, hop, relation in rows], many=True,
            context=self.shown(m for m, _, _ in rows)).data)


class MemoryFeedback(OwnedMemoryView):
    throttle_scope = "feedback"

    class FeedbackInput(serializers.Serializer):
        signal = serializers.ChoiceField([UsageKind.CITED, UsageKind.IGNORED, UsageKind.HELPFUL,
                                          UsageKind.HARMFUL])
        agent_id = scope_field()
        session_id = scope_field()

    @extend_schema(
        request=FeedbackInput,
        responses={200: inline_serializer("FeedbackOutput", {
            "helpful_count": serializers.IntegerField(),
            "harmful_count": serializers.IntegerField()})},
        summary="Report a memory as cited, ignored, helpful or harmful",
    )
    def post(self, request, memory_id):
        data = self.FeedbackInput(data=request.data)
        data.is_valid(raise_exception=True)
        memory = give_feedback(self.get_memory(memory_id), by=request.user,
                               **data.validated_data)
        return Response({"helpful_count": memory.helpful_count,
                         "harmful_count": memory.harmful_count}, status=status.HTTP_200_OK)


class RecallFiltersInput(serializers.Serializer):
    memory_types = serializers.ListField(child=serializers.ChoiceField(MemoryType.choices),
                                         required=False, default=list)
    kinds = serializers.ListField(child=serializers.ChoiceField(Kind.choices), required=False,
                                  default=list)
    tags = tags_filter_field(default=list)
    project = serializers.CharField(max_length=200, required=False, allow_blank=True)
    agent_id = serializers.CharField(max_length=200, required=False, allow_blank=True)
    session_id = serializers.CharField(max_length=200, required=False, allow_blank=True)
    created_after = serializers.DateTimeField(required=False)
    created_before = serializers.DateTimeField(required=False)
    valid_at = valid_at_field()
    include_superseded = include_superseded_field()
    min_importance = NumberField(min_value=0, max_value=10, required=False)
    include_archived = serializers.BooleanField(required=False, default=False)

    @staticmethod
    def to_filters(validated: dict) -> selectors.RecallFilters:
        data = dict(validated)
        for name in ("memory_types", "kinds", "tags"):
            data[name] = tuple(data.get(name, ()))
        return selectors.RecallFilters(**data)


class ScoreOutput(serializers.Serializer):
    final = serializers.FloatField()
    match = serializers.FloatField(help_text="Relevance before normalisation, 0..1")
    relevance = serializers.FloatField()
    recency = serializers.FloatField()
    importance = serializers.FloatField()
    similarity = serializers.FloatField(allow_null=True)
    keyword_score = serializers.FloatField(allow_null=True)
    dense_rank = serializers.IntegerField(allow_null=True)
    keyword_rank = serializers.IntegerField(allow_null=True)
    graph_hop = serializers.IntegerField(allow_null=True)


class MemorySearch(ScopedView):
    throttle_scope = "search"

    class SearchInput(serializers.Serializer):
        query = serializers.CharField(max_length=10_000)
        limit = serializers.IntegerField(min_value=1, max_value=MAX_RECALL_LIMIT,
                                         default=10)
        filters = RecallFiltersInput(required=False)
        agent_id = scope_field()
        session_id = scope_field()

    class HitOutput(serializers.Serializer):
        memory = MemoryOutput()
        score = ScoreOutput(source="breakdown")
        unreviewed = serializers.SerializerMethodField(
            help_text="An insight reflection wrote that no person has approved yet")

        def get_unreviewed(self, hit) -> bool:
            return hit.memory.pk in self.context["unreviewed"]

    @extend_schema(request=SearchInput, responses=inline_serializer(
        "SearchOutput", {"results": HitOutput(many=True)}),
        summary="Hybrid search (meaning, keywords, links) with each hit's score breakdown")
    @replica_reads()  # a streaming replica may answer (docs/SCALING.md)
    def post(self, request):
        data = self.SearchInput(data=request.data)
        data.is_valid(raise_exception=True)
        filters = self.reach.recall(
            RecallFiltersInput.to_filters(data.validated_data.get("filters", {})))
        hits = recall(owner=request.user, query=data.validated_data["query"],
                      limit=data.validated_data["limit"], filters=filters)
        return recorded_after_response(
            Response({"results": self.HitOutput(hits, many=True, context={
                "unreviewed": selectors.unreviewed_insights(hit.memory for hit in hits),
                **self.shown(hit.memory for hit in hits)}).data}),
            request, hits, agent_id=data.validated_data["agent_id"],
            session_id=data.validated_data["session_id"])


class MemoryContext(ScopedView):
    throttle_scope = "context"

    class ContextInput(serializers.Serializer):
        query = serializers.CharField(max_length=10_000)
        max_tokens = serializers.IntegerField(min_value=1, max_value=MAX_CONTEXT_TOKENS,
                                              default=500)
        format = serializers.ChoiceField(["markdown", "xml", "json"], default="markdown")
        session_id = scope_field()
        agent_id = scope_field()
        project = serializers.CharField(max_length=200, required=False)
        with_general = serializers.BooleanField(
            required=False, default=False,
            help_text="With project: also memories of no project (general preferences)")
        min_score = NumberField(min_value=0, max_value=1, required=False)
        valid_at = valid_at_field()
        include_superseded = include_superseded_field()

    class ContextOutput(serializers.Serializer):
        context = serializers.CharField()
        memories_used = serializers.IntegerField()
        tokens_used = serializers.IntegerField()
        truncated = serializers.BooleanField()
        tiers = serializers.DictField(child=serializers.IntegerField())
        memories = inline_serializer("ContextMemory", {
            "ref": serializers.IntegerField(help_text="The memory's [ref] in the context text"),
            "id": serializers.UUIDField(), "kind": serializers.CharField(),
            "content": serializers.CharField(),
            "score": serializers.FloatField(), "match": serializers.FloatField()}, many=True)

    @extend_schema(request=ContextInput, responses=ContextOutput,
                   summary="What an agent should know now, fenced as data, within max_tokens")
    @replica_reads()  # a streaming replica may answer (docs/SCALING.md)
    def post(self, request):
        data = self.ContextInput(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        built = assemble_context(
            owner=request.user, query=given["query"], max_tokens=given["max_tokens"],
            fmt=given["format"], session_id=given["session_id"], agent_id=given["agent_id"],
            filters=self.reach.recall(selectors.RecallFilters(
                project=given.get("project"), with_general=given["with_general"],
                valid_at=given.get("valid_at"),
                include_superseded=given["include_superseded"])),
            min_score=given.get("min_score"), track=False, reach=self.reach,
        )
        return recorded_after_response(Response(self.ContextOutput({
            "context": built.context, "memories_used": len(built.used),
            "tokens_used": built.tokens_used, "truncated": built.truncated,
            "tiers": built.tiers,
            "memories": [{"ref": ref, "id": hit.memory.pk, "kind": hit.memory.kind,
                          "content": hit.memory.content,
                          "score": round(hit.score, 4), "match": round(hit.breakdown.match, 4)}
                         for ref, hit in enumerate(built.used, 1)],
        }).data), request, built.used, agent_id=given["agent_id"],
            session_id=given["session_id"])
