"""Contradictions to resolve, and the jobs that maintain the store."""

import uuid

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from memories import selectors
from memories.engine.consolidation import STRATEGIES
from memories.jobs import JobAlreadyActive, create_job, run_job, start_job
from memories.maintenance.contradictions import ResolutionError, resolve_contradiction
from memories.models import (
    MAX_NOTE_LENGTH,
    Contradiction,
    ContradictionStatus,
    Job,
    JobKind,
    Resolution,
)

from .errors import Conflict
from .views import (
    MemoryOutput,
    NewestFirstPages,
    ScopedView,
    if_readable,
    page_by_status,
)


class ContradictionOutput(serializers.ModelSerializer):
    """A contradiction, given the context `ContradictionView.shown_all` makes."""

    memory_a = MemoryOutput()
    memory_b = MemoryOutput()
    # Declared: the field ModelSerializer makes read-only drops the model's blank=True,
    # and the schema's enum the "" of an open contradiction.
    resolution = serializers.ChoiceField(Resolution.choices, allow_blank=True, read_only=True)
    resolved_by = serializers.CharField(source="resolved_by.username", allow_null=True,
                                        default=None)
    merged_into = serializers.SerializerMethodField(
        help_text="The memory a merge made, if the caller reads it")

    def get_merged_into(self, contradiction) -> uuid.UUID | None:
        return if_readable(self.context, contradiction.merged_into_id)

    class Meta:
        model = Contradiction
        fields = ["id", "status", "shared_with", "detected_at", "detected_by", "reason",
                  "confidence", "resolution", "note", "resolved_by", "resolved_at",
                  "merged_into", "memory_a", "memory_b"]
        read_only_fields = fields


class ContradictionView(ScopedView):
    """The contradictions the caller sees (between two memories they read): listed, only
    their queue (their own, and their projects' as an owner or editor); resolved, any
    they see, the service refusing a reader (403). Anything else is a 404."""
    throttle_scope = "memories"

    def get_queryset(self):
        return self.reach.contradictions(selectors.contradictions_of(self.request.user))

    def shown_all(self, contradictions) -> dict:
        return self.shown([m for c in contradictions for m in (c.memory_a, c.memory_b)],
                          *(c.merged_into_id for c in contradictions))


class ContradictionList(ContradictionView):
    pagination_class = NewestFirstPages

    class Filters(serializers.Serializer):
        status = serializers.ChoiceField(ContradictionStatus.choices, required=False)
        unsure = serializers.BooleanField(
            required=False, default=False,
            help_text="Also list the open verdicts below the confidence the queue asks "
                      "for (kept, never queued); resolved ones are always listed")

    @extend_schema(parameters=[Filters], responses=ContradictionOutput(many=True),
                   summary="Contradictions between memories, newest first; open ones "
                           "confident unless unsure=true, resolved ones all")
    def get(self, request):
        filters = self.Filters(data=request.query_params)
        filters.is_valid(raise_exception=True)
        found = self.reach.contradictions(selectors.with_memories(
            selectors.queued_contradictions(request.user)))
        if not filters.validated_data["unsure"]:
            found = found.listed()
        return page_by_status(self, found, self.Filters,
                              lambda page: ContradictionOutput(
                                  page, many=True, context=self.shown_all(page)).data)


class ContradictionResolve(ContradictionView):
    class ResolveInput(serializers.Serializer):
        resolution = serializers.ChoiceField(Resolution.choices)
        note = serializers.CharField(max_length=MAX_NOTE_LENGTH, required=False, default="",
                                     allow_blank=True)
        merged_content = serializers.CharField(
            required=False, default="", allow_blank=True, trim_whitespace=False,
            help_text="The merged memory's text; required when resolution is merged")

        def validate(self, attrs):
            if attrs["resolution"] == Resolution.MERGED and not attrs["merged_content"].strip():
                raise serializers.ValidationError(
                    {"merged_content": ["A merge needs the merged text."]})
            return attrs

    @extend_schema(request=ResolveInput, responses=ContradictionOutput,
                   summary="Resolve a contradiction; neither memory is deleted")
    def post(self, request, contradiction_id):
        contradiction = get_object_or_404(self.get_queryset(), pk=contradiction_id)
        data = self.ResolveInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            resolved = resolve_contradiction(contradiction, by=request.user,
                                                         **data.validated_data)
        except ResolutionError as exc:
            raise Conflict(str(exc)) from None
        resolved = self.get_queryset().get(pk=resolved.pk)
        return Response(ContradictionOutput(resolved, context=self.shown_all([resolved])).data)


class JobOutput(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = ["id", "kind", "status", "dry_run", "progress", "progress_done",
                  "progress_total", "result", "error", "created_at", "started_at",
                  "finished_at"]
        read_only_fields = fields

    def get_progress(self, job) -> float:
        return 1.0 if job.status == "done" else (
            job.progress_done / job.progress_total if job.progress_total else 0.0)


class JobDetail(ScopedView):
    throttle_scope = "memories"

    def get_queryset(self):
        jobs = Job.objects.for_owner(self.request.user)
        if self.reach.restricted:  # a job's result may name any project: only its imports
            jobs = jobs.filter(kind=JobKind.IMPORT, params__project=self.reach.project)
        return jobs.defer("params")

    @extend_schema(responses=JobOutput, summary="A maintenance job's status and progress")
    def get(self, request, job_id):
        return Response(JobOutput(get_object_or_404(self.get_queryset(), pk=job_id)).data)


class Consolidate(ScopedView):
    throttle_scope = "memories"

    class ConsolidateInput(serializers.Serializer):
        strategy = serializers.ChoiceField(list(STRATEGIES), default="age_based")
        dry_run = serializers.BooleanField(default=False)

    @extend_schema(request=ConsolidateInput, responses={200: JobOutput, 202: JobOutput},
                   summary="Consolidate memories: a dry run answers at once with what would "
                           "happen; a real run is queued as a job")
    def post(self, request):
        self.reach.refuse_unscoped("consolidation")
        data = self.ConsolidateInput(data=request.data)
        data.is_valid(raise_exception=True)
        dry_run, strategy = data.validated_data["dry_run"], data.validated_data["strategy"]
        if dry_run:
            job = create_job(JobKind.CONSOLIDATE, owner=request.user, dry_run=True,
                             strategy=strategy)
            return Response(JobOutput(run_job(job.pk)).data, status=200)
        try:
            job = start_job(JobKind.CONSOLIDATE, owner=request.user, strategy=strategy)
        except JobAlreadyActive as exc:
            raise Conflict(str(exc)) from None
        return Response(JobOutput(job).data, status=202)
