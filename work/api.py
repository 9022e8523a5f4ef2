"""The work log over the REST API: seed 004's queries, predictive context and working
memory. One view per operation; every query starts from the caller's own rows and the
key's reach (a key restricted to a project reads only that project)."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from memories.api.views import ScopedView

from . import decisions, engine, prediction, selectors, services
from .models import FileInteraction, Intent, LearnedPattern, PatternKind, Task

MAX_ITEMS = 2000  # context-window items in one pruning request


def project_field():
    return serializers.CharField(
        max_length=200, required=False, allow_blank=True,
        help_text="A project's name (blank: no project); left out, every project the key "
                  "may reach")


class WorkView(ScopedView):
    throttle_scope = "memories"

    def query(self, serializer_class):
        data = serializer_class(data=self.request.query_params)
        data.is_valid(raise_exception=True)
        return data.validated_data

    def project(self, given: dict) -> str | None:
        """The project asked for, narrowed by the key's reach (None: every project)."""
        return self.reach.project_for(given.get("project"))


# -- outputs -------------------------------------------------------------------------------

class TaskOutput(serializers.ModelSerializer):
    # Declared: the field ModelSerializer makes read-only drops the model's blank=True,
    # and the schema's enum the "" of a task whose intent is not told yet.
    intent = serializers.ChoiceField(Intent.choices, allow_blank=True, read_only=True)

    class Meta:
        model = Task
        fields = ["id", "project", "session_id", "description", "intent", "status",
                  "started_at", "last_activity_at", "completed_at", "files_touched",
                  "tools_used", "outcome"]
        read_only_fields = fields


class FileInteractionOutput(serializers.ModelSerializer):
    task_description = serializers.CharField(source="task.description", default="",
                                             allow_null=True)

    class Meta:
        model = FileInteraction
        fields = ["id", "project", "session_id", "task", "task_description", "path",
                  "operation", "line_start", "line_end", "success", "context", "created_at"]
        read_only_fields = fields


class PatternOutput(serializers.ModelSerializer):
    text = serializers.SerializerMethodField()
    memory_id = serializers.UUIDField(allow_null=True, read_only=True)

    class Meta:
        model = LearnedPattern
        fields = ["id", "project", "kind", "text", "data", "confidence", "observed_count",
                  "first_seen", "last_seen", "memory_id"]
        read_only_fields = fields

    def get_text(self, pattern) -> str:
        return services.pattern_text(pattern)


class ErrorFixOutput(PatternOutput):
    similarity = serializers.FloatField(allow_null=True, default=None)

    class Meta(PatternOutput.Meta):
        fields = [*PatternOutput.Meta.fields, "similarity"]
        read_only_fields = fields


class CoEditOutput(serializers.Serializer):
    file_a = serializers.CharField()
    file_b = serializers.CharField()
    count = serializers.IntegerField(help_text="tasks in which both were edited within "
                                               "the window")


class ToolRateOutput(serializers.Serializer):
    tool_name = serializers.CharField()
    total = serializers.IntegerField()
    successes = serializers.IntegerField()
    success_rate = serializers.FloatField()
    avg_duration_ms = serializers.FloatField(allow_null=True)


# -- seed 004's queries ----------------------------------------------------------------

class FileHistory(WorkView):
    class Filters(serializers.Serializer):
        project = project_field()
        path = serializers.CharField(max_length=1000)
        limit = serializers.IntegerField(min_value=1, max_value=100, default=5)

    @extend_schema(parameters=[Filters], responses=FileInteractionOutput(many=True),
                   summary="Have I worked on this file before? Its latest interactions")
    def get(self, request):
        given = self.query(self.Filters)
        found = selectors.file_history(request.user, self.project(given), given["path"],
                                       given["limit"])
        return Response(FileInteractionOutput(found, many=True).data)


class CoEdits(WorkView):
    class Filters(serializers.Serializer):
        project = project_field()
        path = serializers.CharField(max_length=1000, required=False,
                                     help_text="only the pairs holding this file")
        min_count = serializers.IntegerField(min_value=1, max_value=1000,
                                             default=selectors.CO_EDIT_MIN_COUNT)
        window_seconds = serializers.IntegerField(min_value=1, max_value=86_400,
                                                  default=selectors.CO_EDIT_SECONDS)

    @extend_schema(parameters=[Filters], responses=CoEditOutput(many=True),
                   summary="Files edited together: same task, within 5 minutes, at least "
                           "3 tasks (by default)")
    def get(self, request):
        given = self.query(self.Filters)
        pairs = selectors.co_edits(request.user, self.project(given), path=given.get("path"),
                                   min_count=given["min_count"],
                                   window_seconds=given["window_seconds"])
        return Response(CoEditOutput(pairs, many=True).data)


class ToolSuccessRates(WorkView):
    class Filters(serializers.Serializer):
        project = project_field()
        days = serializers.IntegerField(min_value=1, max_value=365,
                                        default=selectors.SUCCESS_RATE_DAYS)

    @extend_schema(parameters=[Filters], responses=ToolRateOutput(many=True),
                   summary="Each tool's success rate and mean duration over the last days")
    def get(self, request):
        given = self.query(self.Filters)
        rates = selectors.tool_success_rates(request.user, self.project(given),
                                             now=timezone.now(), days=given["days"])
        return Response(ToolRateOutput(rates, many=True).data)


class OpenTasks(WorkView):
    class Filters(serializers.Serializer):
        project = project_field()
        session_id = serializers.CharField(max_length=200, required=False)

    @extend_schema(parameters=[Filters], responses=TaskOutput(many=True),
                   summary="What was I working on? Active and paused tasks, newest first")
    def get(self, request):
        given = self.query(self.Filters)
        tasks = selectors.open_tasks(request.user, self.project(given),
                                     session_id=given.get("session_id"))
        return Response(TaskOutput(tasks, many=True).data)


class ErrorFixes(WorkView):
    class Filters(serializers.Serializer):
        project = project_field()
        error_text = serializers.CharField(max_length=20_000, required=False,
                                           help_text="rank by how alike the errors read")

    @extend_schema(parameters=[Filters], responses=ErrorFixOutput(many=True),
                   summary="Error -> fix patterns: a command failed, files were edited, it "
                           "passed")
    def get(self, request):
        given = self.query(self.Filters)
        found = selectors.error_fix_patterns(request.user, self.project(given),
                                             error_text=given.get("error_text", ""))
        return Response(ErrorFixOutput(found, many=True).data)


class Patterns(WorkView):
    class Filters(serializers.Serializer):
        project = project_field()
        kind = serializers.ChoiceField(PatternKind.choices, required=False)

    @extend_schema(parameters=[Filters], responses=PatternOutput(many=True),
                   summary="Learned patterns with their confidence and observed count")
    def get(self, request):
        given = self.query(self.Filters)
        found = selectors.patterns(request.user, self.project(given), kind=given.get("kind"))
        return Response(PatternOutput(found, many=True).data)


# -- predictive context ------------------------------------------------------------------

class PredictedOutput(serializers.Serializer):
    key = serializers.CharField(help_text="send it back in `exclude` not to get it again")
    section = serializers.CharField()
    text = serializers.CharField()
    tokens = serializers.IntegerField()
    ref = serializers.CharField()
    memory_id = serializers.CharField()
    score = serializers.FloatField()


class PredictionOutput(serializers.Serializer):
    context = serializers.CharField(help_text="the items fenced as data, for an agent")
    items = PredictedOutput(many=True)
    tokens = serializers.IntegerField()
    budget = serializers.IntegerField()
    left_out = serializers.IntegerField(help_text="candidates that did not fit the budget")


class PredictContext(WorkView):
    throttle_scope = "context"

    class PredictInput(serializers.Serializer):
        project = serializers.CharField(max_length=200, allow_blank=True, default="")
        file_opened = serializers.CharField(max_length=1000, required=False, default="",
                                            allow_blank=True)
        files = serializers.ListField(child=serializers.CharField(max_length=1000),
                                      max_length=prediction.MAX_FILES, default=list,
                                      help_text="files named in the prompt")
        branch = serializers.CharField(max_length=300, default="", allow_blank=True)
        error_text = serializers.CharField(max_length=20_000, default="", allow_blank=True,
                                           trim_whitespace=False)
        activity = serializers.CharField(max_length=200, default="", allow_blank=True)
        session_id = serializers.CharField(max_length=200, default="", allow_blank=True)
        prompt = serializers.CharField(max_length=10_000, default="", allow_blank=True,
                                       help_text="the files it names count as opened; it "
                                                 "stands in for a missing activity")
        exclude = serializers.ListField(child=serializers.CharField(max_length=400),
                                        max_length=500, default=list,
                                        help_text="keys of items the agent already has")
        max_tokens = serializers.IntegerField(min_value=50, max_value=prediction.MAX_BUDGET,
                                              default=prediction.DEFAULT_BUDGET)

    @staticmethod
    def predict(owner, given: dict, reach) -> prediction.Prediction:
        """The prediction for validated PredictInput, within the key's reach (the MCP tool
        shares it)."""
        signals = prediction.Signals(
            project=reach.project_for(given["project"]), file_opened=given["file_opened"],
            files=tuple(given["files"]), branch=given["branch"],
            error_text=given["error_text"], activity=given["activity"],
            session_id=given["session_id"], prompt=given["prompt"],
            exclude=frozenset(given["exclude"]))
        return prediction.predict(owner, signals, budget=given["max_tokens"],
                                  now=timezone.now(), reach=reach)

    @extend_schema(request=PredictInput, responses=PredictionOutput,
                   summary="What the agent will likely need next, from what it sees now, "
                           "within a token budget")
    def post(self, request):
        data = self.PredictInput(data=request.data)
        data.is_valid(raise_exception=True)
        found = self.predict(request.user, data.validated_data, self.reach)
        return Response(PredictionOutput({
            "context": found.context,
            "items": [{**item.__dict__, "key": item.key} for item in found.items],
            "tokens": found.tokens, "budget": found.budget, "left_out": found.left_out}).data)


# -- working memory -------------------------------------------------------------------------

class ContextItemInput(serializers.Serializer):
    id = serializers.CharField(max_length=200)
    type = serializers.ChoiceField(list(engine.TYPE_WEIGHTS))
    tokens = serializers.IntegerField(min_value=0, max_value=10_000_000)
    timestamp = serializers.DateTimeField()
    task_id = serializers.CharField(max_length=200, default="", allow_blank=True)
    dependencies = serializers.ListField(child=serializers.CharField(max_length=200),
                                         max_length=1000, default=list)
    sticky = serializers.BooleanField(default=False)
    relevance = serializers.FloatField(min_value=0.0, max_value=1.0, default=1.0)
    has_tool_calls = serializers.BooleanField(default=False,
                                              help_text="an assistant response that called tools")
    file_path = serializers.CharField(max_length=1000, default="", allow_blank=True)
    line_range = serializers.ListField(child=serializers.IntegerField(min_value=0,
                                                                      max_value=engine.MAX_INT),
                                       min_length=2, max_length=2, required=False)
    summary = serializers.CharField(max_length=2000, default="", allow_blank=True)

    def validate_line_range(self, value):
        # Logged as a read of those lines when the snippet is pruned: lines 60 to 10
        # would read as no lines at all.
        if value[0] > value[1]:
            raise serializers.ValidationError("The first line comes after the last.")
        return value


class PrunedOutput(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.CharField()
    tokens = serializers.IntegerField()
    relevance = serializers.FloatField()


class PruningOutput(serializers.Serializer):
    needed = serializers.BooleanField(help_text="the window is above 80 % of its limit")
    total_tokens = serializers.IntegerField()
    threshold = serializers.IntegerField()
    target = serializers.IntegerField(help_text="tokens to free: 30 % of those held")
    freed = serializers.IntegerField()
    prune = PrunedOutput(many=True, help_text="least relevant first")
    snapshot_id = serializers.IntegerField(allow_null=True)


class PruneContextWindow(WorkView):
    class PruneInput(serializers.Serializer):
        project = serializers.CharField(max_length=200, allow_blank=True, default="")
        session_id = serializers.CharField(max_length=200, default="", allow_blank=True)
        current_task = serializers.CharField(max_length=200, default="", allow_blank=True)
        limit = serializers.IntegerField(min_value=1, max_value=100_000_000)
        items = ContextItemInput(many=True, max_length=MAX_ITEMS)

        def validate_items(self, items):
            ids = [item["id"] for item in items]
            if len(set(ids)) != len(ids):
                raise serializers.ValidationError("Item ids must be unique.")
            return items

    @extend_schema(request=PruneInput, responses=PruningOutput,
                   summary="What to prune from an agent's context window (seed 004's "
                           "working memory); pruned items are summarised into the work log")
    def post(self, request):
        data = self.PruneInput(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        now = timezone.now()
        items = [engine.ContextItem(
            id=i["id"], type=i["type"], tokens=i["tokens"], timestamp=i["timestamp"],
            task_id=i["task_id"], dependencies=tuple(i["dependencies"]), sticky=i["sticky"],
            relevance=i["relevance"], has_tool_calls=i["has_tool_calls"],
            file_path=i["file_path"],
            line_range=tuple(i["line_range"]) if i.get("line_range") else None,
            summary=i["summary"]) for i in given["items"]]
        pruning = engine.prune(items, limit=given["limit"], now=now,
                               current_task=given["current_task"])
        snapshot = services.record_pruning(
            request.user, project=self.reach.project_for(given["project"]),
            session_id=given["session_id"], items=items, pruning=pruning,
            now=now) if pruning.needed else None
        return Response(PruningOutput({
            **{k: getattr(pruning, k) for k in ("needed", "total_tokens", "threshold",
                                                "target", "freed")},
            "prune": [{"id": i.id, "type": i.type, "tokens": i.tokens,
                       "relevance": round(pruning.scores[i.id], 6)} for i in pruning.pruned],
            "snapshot_id": snapshot.pk if snapshot else None}).data)


# -- decision helpers (seed 000, Algorithms 10-12) ------------------------------------------

class DeviationOutput(serializers.Serializer):
    deviate = serializers.BooleanField()
    reason = serializers.CharField()
    decided_by = serializers.CharField(help_text="rules, debounced, or the model's provider")
    note = serializers.CharField()


class PlanDeviation(WorkView):
    class DeviationInput(serializers.Serializer):
        project = serializers.CharField(max_length=200, allow_blank=True, default="")
        session_id = serializers.CharField(max_length=200, default="", allow_blank=True)
        goal = serializers.CharField(max_length=2000)
        observation = serializers.CharField(max_length=10_000)
        context = serializers.CharField(max_length=10_000, default="", allow_blank=True)

    @staticmethod
    def decide(owner, given: dict, reach) -> dict:
        return decisions.should_deviate(
            owner, project=reach.project_for(given["project"]), session_id=given["session_id"],
            goal=given["goal"], observation=given["observation"], context=given["context"],
            now=timezone.now())

    @extend_schema(request=DeviationInput, responses=DeviationOutput,
                   summary="Should the agent abandon its plan? Rules first, the model for "
                           "uncertain cases at most once per 5 minutes per session")
    def post(self, request):
        data = self.DeviationInput(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(DeviationOutput(self.decide(request.user, data.validated_data,
                                                    self.reach)).data)


class PlanNodeOutput(serializers.Serializer):
    goal = serializers.CharField()
    minutes = serializers.IntegerField()
    subplans = serializers.ListField(child=serializers.DictField(),
                                     help_text="plans of the same shape")


class DecompositionOutput(serializers.Serializer):
    plan = PlanNodeOutput()
    model_calls = serializers.IntegerField()
    decided_by = serializers.CharField()
    note = serializers.CharField()


class PlanDecompose(WorkView):
    class DecomposeInput(serializers.Serializer):
        project = serializers.CharField(max_length=200, allow_blank=True, default="")
        goal = serializers.CharField(max_length=2000)
        minutes = serializers.IntegerField(min_value=1, max_value=10_000)
        chunk_minutes = serializers.IntegerField(min_value=1, max_value=1440, default=15,
                                                 help_text="an atomic action's length")
        max_depth = serializers.IntegerField(min_value=0, max_value=3, default=2)

    @staticmethod
    def decompose(owner, given: dict, reach) -> dict:
        return decisions.decompose_plan(
            owner, project=reach.project_for(given["project"]), goal=given["goal"],
            minutes=given["minutes"], chunk_minutes=given["chunk_minutes"],
            max_depth=given["max_depth"], now=timezone.now())

    @extend_schema(request=DecomposeInput, responses=DecompositionOutput,
                   summary="Break a goal into sequential subgoals, recursively, down to "
                           "chunk-sized actions")
    def post(self, request):
        data = self.DecomposeInput(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(DecompositionOutput(self.decompose(request.user, data.validated_data,
                                                           self.reach)).data)


class CandidateOutput(serializers.Serializer):
    type = serializers.CharField()
    description = serializers.CharField()
    value = serializers.FloatField()


class NextActionOutput(serializers.Serializer):
    selected = CandidateOutput()
    candidates = CandidateOutput(many=True)
    coverage = serializers.FloatField()
    goal_progress = serializers.FloatField()
    proposed_by = serializers.CharField()
    note = serializers.CharField()


class GoalInput(serializers.Serializer):
    text = serializers.CharField(max_length=500)
    done = serializers.BooleanField(default=False)


class PlanNextAction(WorkView):
    class NextActionInput(serializers.Serializer):
        project = serializers.CharField(max_length=200, allow_blank=True, default="")
        goals = GoalInput(many=True, max_length=50)
        context = serializers.CharField(max_length=20_000, default="", allow_blank=True)
        recent_actions = serializers.ListField(
            child=serializers.ChoiceField(["retrieval", "reasoning", "learning", "grounding"]),
            max_length=1000, default=list)
        coverage = serializers.FloatField(min_value=0.0, max_value=1.0, required=False,
                                          help_text="how much the context already holds; "
                                                    "estimated from it when left out")
        limit = serializers.IntegerField(min_value=1, max_value=5, default=5)

        def validate_goals(self, goals):
            if not goals:
                raise serializers.ValidationError("Send at least one goal.")
            return goals

    @staticmethod
    def choose(owner, given: dict, reach) -> dict:
        return decisions.next_action(
            owner, project=reach.project_for(given["project"]), goals=given["goals"],
            context=given["context"], recent_actions=given["recent_actions"],
            coverage=given.get("coverage"), limit=given["limit"], now=timezone.now())

    @extend_schema(request=NextActionInput, responses=NextActionOutput,
                   summary="Propose next actions, value each, select the best")
    def post(self, request):
        data = self.NextActionInput(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(NextActionOutput(self.choose(request.user, data.validated_data,
                                                     self.reach)).data)
