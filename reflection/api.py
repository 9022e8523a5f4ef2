"""Reflection over the API: run it, read the insights with their evidence, review them."""

import logging
import uuid

from django.db.models import Count
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response

from memories.api.errors import Conflict
from memories.api.maintenance import JobOutput
from memories.api.views import NewestFirstPages, ScopedView, if_readable, page_by_status
from memories.jobs import JobAlreadyActive, start_job
from memories.models import JobKind, Memory

from . import services
from .models import Insight, InsightStatus

log = logging.getLogger(__name__)


class CitationOutput(serializers.Serializer):
    id = serializers.UUIDField()
    content = serializers.CharField()
    status = serializers.CharField()
    superseded_by = serializers.SerializerMethodField(
        help_text="The memory that replaced it, if the reader reads that one")

    def get_superseded_by(self, memory) -> uuid.UUID | None:
        return if_readable(self.context, memory.superseded_by_id)


class InsightOutput(serializers.ModelSerializer):
    text = serializers.CharField(source="memory.content")
    memory_id = serializers.UUIDField(source="memory.pk")
    reviewed_by = serializers.CharField(source="reviewed_by.username", allow_null=True,
                                        default=None)
    citations = serializers.SerializerMethodField()
    cited_ids = serializers.SerializerMethodField(
        help_text="Every memory it cites, for its author (one purged, or of a project they "
                  "left, included); for another reader, those they read")
    superseded_by = serializers.SerializerMethodField(
        help_text="The newer insight that replaced it, if the reader reads that one")

    class Meta:
        model = Insight
        fields = ["id", "text", "memory_id", "question", "status", "flagged_reason",
                  "topic", "importance", "round", "reflected_by", "created_at",
                  "reviewed_by", "reviewed_at", "superseded_by", "cited_ids", "citations"]
        read_only_fields = fields

    @extend_schema_field(CitationOutput(many=True))
    def get_citations(self, insight) -> list[dict]:
        """The cited memories still stored that the reader still reads (a purged one, or
        one of a project they left, is only in cited_ids)."""
        cited = self.context["cited"]
        return CitationOutput([cited[i] for i in insight.cited_ids if i in cited],
                              many=True, context=self.context).data

    def get_cited_ids(self, insight) -> list[uuid.UUID]:
        # Another member must not learn the ids (and, UUIDv7, the creation times) of the
        # author's private memories behind a shared insight.
        if insight.owner_id == self.context["reader"]:
            return list(insight.cited_ids)
        return [i for i in insight.cited_ids if i in self.context["cited"]]

    def get_superseded_by(self, insight) -> uuid.UUID | None:
        successor = insight.superseded_by_id
        return successor if successor in self.context["readable_insights"] else None


def _cited_memories(insights, reader, reach) -> dict:
    """Every memory the insights cite that `reader` reads, in one query, within the
    key's reach. An insight may cite a project's memories: after leaving the project
    its author keeps the insight but no longer sees them."""
    ids = {i for insight in insights for i in insight.cited_ids}
    return reach.memories(Memory.objects.readable_by(reader).only(
        "id", "content", "status", "superseded_by", "project")).in_bulk(ids)


class OwnedInsightView(ScopedView):
    throttle_scope = "memories"

    def get_queryset(self):
        insights = Insight.objects.readable_by(self.request.user)
        if self.reach.restricted:
            insights = insights.filter(memory__project=self.reach.project)
        return (insights.select_related("memory", "reviewed_by")
                .defer("memory__embedding", "memory__search_vector"))

    def output(self, insights, **kwargs):
        shown = insights if kwargs.get("many") else [insights]
        cited = _cited_memories(shown, self.request.user, self.reach)
        # An insight, or a memory it cites, may have been superseded by one the reader
        # does not read (private to its author, in another project): its id stays theirs.
        successors = {i.superseded_by_id for i in shown} - {None}
        readable = set(self.get_queryset().filter(pk__in=successors)
                       .values_list("pk", flat=True)) if successors else set()
        return InsightOutput(insights, context={
            "cited": cited, **self.shown(cited.values()), "readable_insights": readable,
            "reader": self.request.user.pk}, **kwargs).data


class InsightList(OwnedInsightView):
    pagination_class = NewestFirstPages

    class Filters(serializers.Serializer):
        status = serializers.ChoiceField(InsightStatus.choices, required=False)

    @extend_schema(parameters=[Filters], responses=InsightOutput(many=True),
                   summary="Insights reflection drew from memories, with what they cite")
    def get(self, request):
        return page_by_status(self, self.get_queryset(), self.Filters,
                              lambda page: self.output(page, many=True))


class InsightReview(OwnedInsightView):
    class ReviewInput(serializers.Serializer):
        approve = serializers.BooleanField(help_text="true approves, false rejects (the "
                                                     "insight's memory is then archived)")

    @extend_schema(request=ReviewInput, responses=InsightOutput,
                   summary="Approve or reject an insight")
    def post(self, request, insight_id):
        insight = get_object_or_404(self.get_queryset(), pk=insight_id)
        data = self.ReviewInput(data=request.data)
        data.is_valid(raise_exception=True)
        services.review(insight, approve=data.validated_data["approve"], by=request.user)
        return Response(self.output(self.get_queryset().get(pk=insight.pk)))


class Reflect(ScopedView):
    throttle_scope = "memories"

    class ReflectInput(serializers.Serializer):
        dry_run = serializers.BooleanField(default=False)

    @extend_schema(request=ReflectInput, responses={202: JobOutput},
                   summary="Reflect on your memories now; returns the job to follow")
    def post(self, request):
        self.reach.refuse_unscoped("reflection")
        data = self.ReflectInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            job = start_job(JobKind.REFLECT, owner=request.user,
                            dry_run=data.validated_data["dry_run"])
        except JobAlreadyActive as exc:
            raise Conflict(str(exc)) from None
        return Response(JobOutput(job).data, status=202)


class ReflectionStateOutput(serializers.Serializer):
    recommended = serializers.BooleanField()
    reason = serializers.CharField()
    message = serializers.CharField()
    accumulated_importance = serializers.FloatField()
    observations_since = serializers.IntegerField()
    last_reflected_at = serializers.DateTimeField(allow_null=True)
    last_reason = serializers.CharField()
    thresholds = serializers.DictField(child=serializers.FloatField())
    insights = serializers.DictField(child=serializers.IntegerField(),
                                     help_text="your insights by status")


class ReflectionStatus(ScopedView):
    throttle_scope = "memories"

    @extend_schema(responses=ReflectionStateOutput,
                   summary="Whether reflection is recommended now, why, and the counts behind it")
    def get(self, request):
        # Its counts are of every project's memories and insights, as reflection is.
        self.reach.refuse_unscoped("reflection")
        state = services.recommendation(request.user)
        counts = dict.fromkeys(InsightStatus.values, 0) | dict(
            Insight.objects.readable_by(request.user).order_by().values("status")
            .annotate(n=Count("id")).values_list("status", "n"))
        return Response(ReflectionStateOutput({**state, "insights": counts}).data)
