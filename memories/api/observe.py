"""Ingest for automatic capture: agents hand over what happened; extraction runs later."""

from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response

from memories.capture.extraction import NothingToRetry, retry_failed_chunks
from memories.capture.observe import observe
from memories.models import ChunkStatus, Observation, ObservationChunk, Scope

from .errors import Conflict
from .views import ScopedView, project_creator_field, scope_field

_TURN_ID_ALONE = ("A turn_id names the turn an observation ends: send it with turn_ended "
                  "true.")


class MessageInput(serializers.Serializer):
    role = serializers.ChoiceField(["user", "assistant", "system", "tool"])
    text = serializers.CharField(trim_whitespace=False, allow_blank=True)
    timestamp = serializers.DateTimeField(required=False, allow_null=True, default=None)


class ToolEventInput(serializers.Serializer):
    tool_name = serializers.CharField(max_length=200)
    # null is what leaving one out means: a tool with no input, or that answered nothing
    input = serializers.JSONField(required=False, allow_null=True, default=None)
    response = serializers.JSONField(required=False, allow_null=True, default=None)
    success = serializers.BooleanField(default=True)
    duration_ms = serializers.IntegerField(min_value=0, required=False, allow_null=True,
                                           default=None)
    file_paths = serializers.ListField(child=serializers.CharField(max_length=1000),
                                       max_length=100, required=False, default=list)
    tool_use_id = serializers.CharField(
        max_length=200, required=False, help_text=(
            "The agent's id of this call: two calls alike (git status twice) are both "
            "logged, the same call sent again is one"))


class FailedChunkOutput(serializers.ModelSerializer):
    error = serializers.CharField(source="last_error")

    class Meta:
        model = ObservationChunk
        fields = ["position", "attempts", "error"]
        read_only_fields = fields


class ObservationOutput(serializers.ModelSerializer):
    job_id = serializers.UUIDField(source="pk")
    scope = serializers.SerializerMethodField(
        help_text="project: its memories are shared with the project's members (personal "
                  "ones, preferences, stay private); private: they are the author's alone")
    chunks = serializers.SerializerMethodField()
    failed_chunks = serializers.SerializerMethodField(
        help_text="Chunks that failed past their retries, with the error each last met; "
                  "POST .../retry extracts them again")

    class Meta:
        model = Observation
        fields = ["job_id", "status", "project", "scope", "agent_id", "session_id",
                  "created_at", "processed_at", "memories_created", "memories_strengthened",
                  "notes", "chunks", "failed_chunks"]
        read_only_fields = fields

    def get_scope(self, observation) -> str:
        return Scope.PROJECT if observation.shared_with_id else Scope.PRIVATE

    def get_chunks(self, observation) -> dict[str, int]:
        counts = dict.fromkeys(ChunkStatus.values, 0)
        for status in observation.chunks.values_list("status", flat=True):
            counts[status] += 1
        return counts

    @extend_schema_field(FailedChunkOutput(many=True))
    def get_failed_chunks(self, observation) -> list:
        failed = observation.chunks.filter(status=ChunkStatus.FAILED).order_by("position")
        return FailedChunkOutput(failed, many=True).data


class ObservedOutput(ObservationOutput):
    duplicate = serializers.BooleanField()

    class Meta(ObservationOutput.Meta):
        fields = [*ObservationOutput.Meta.fields, "duplicate"]
        read_only_fields = fields


class Observe(ScopedView):
    throttle_scope = "observe"

    class ObserveInput(serializers.Serializer):
        project = scope_field()
        scope = serializers.ChoiceField(
            [Scope.PRIVATE, Scope.PROJECT], required=False,
            help_text="Where its memories go. Left out: to the project named `project` when "
                      "you own or edit it, else private. private: yours alone. project: "
                      "to that project (an error if there is none you may write).")
        project_creator = project_creator_field()
        agent_id = scope_field()
        session_id = scope_field()
        messages = MessageInput(many=True, required=False, default=list)
        tool_events = ToolEventInput(many=True, required=False, default=list)
        turn_ended = serializers.BooleanField(
            required=False, default=False, help_text=(
                "The agent's turn ended with this observation (the hook's Stop): the work "
                "log ends the session's task even without a reply in it, since a reply "
                "said alike in an earlier turn is not sent again. Left out, a reply alone "
                "ends the task."))
        turn_id = serializers.CharField(
            max_length=200, required=False, help_text=(
                "The agent's id of the turn that ended (with turn_ended): two turns ended "
                "alike (the same prompt, or nothing new to send) are two ends, the same "
                "end sent again is one"))

        def validate(self, attrs):
            if "turn_id" in attrs and not attrs["turn_ended"]:
                raise serializers.ValidationError({"turn_id": [_TURN_ID_ALONE]})
            count = len(attrs["messages"]) + len(attrs["tool_events"])
            if count == 0 and not attrs["turn_ended"]:
                raise serializers.ValidationError("Send at least one message or tool event.")
            if count > settings.ENGRAM_CAPTURE_MAX_ITEMS:
                raise serializers.ValidationError(
                    f"{count} messages and tool events in one request; the limit is "
                    f"{settings.ENGRAM_CAPTURE_MAX_ITEMS}. Send them in smaller batches.")
            return attrs

    @extend_schema(request=ObserveInput, responses={202: ObservedOutput},
                   summary="Hand over conversation messages or tool events for capture")
    def post(self, request):
        data = self.ObserveInput(data=request.data)
        data.is_valid(raise_exception=True)
        given = dict(data.validated_data)
        given["project"] = self.reach.project_for(given["project"]) or ""
        observed = observe(owner=request.user, **given)
        observation = observed.observation
        observation.duplicate = not observed.created
        return Response(ObservedOutput(observation).data, status=202)


class ObservationView(ScopedView):
    throttle_scope = "observe"

    def get_queryset(self):
        observations = Observation.objects.for_owner(self.request.user)
        if self.reach.restricted:
            observations = observations.filter(project=self.reach.project)
        return observations


class ObservationDetail(ObservationView):
    @extend_schema(responses=ObservationOutput,
                   summary="The state of an observation's extraction job")
    def get(self, request, job_id):
        return Response(ObservationOutput(get_object_or_404(self.get_queryset(),
                                                            pk=job_id)).data)


class ObservationRetry(ObservationView):
    @extend_schema(request=None,
                   responses={202: ObservationOutput, 409: OpenApiResponse(
                       description="None of its chunks failed: nothing to retry")},
                   summary="Extract an observation's failed chunks again",
                   description="Chunks that failed past their retries (`chunks.failed`) are "
                               "kept raw; this queues them again with every attempt back.")
    def post(self, request, job_id):
        observation = get_object_or_404(self.get_queryset(), pk=job_id)
        try:
            observation = retry_failed_chunks(request.user, observation.pk)
        except NothingToRetry as exc:
            raise Conflict(str(exc)) from None
        if observation is None:  # deleted since it was read
            raise Http404("No such observation for this owner.")
        return Response(ObservationOutput(observation).data, status=202)

