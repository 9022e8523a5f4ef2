import hashlib

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import F, Func, Q, Value
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThanOrEqual, LessThanOrEqual
from django.utils import timezone
from pgvector.django import VectorField

from memories.engine.ids import uuid7
from memories.engine.contradiction import CONFIDENT

MAX_CONTENT_LENGTH = 100_000
MAX_NOTE_LENGTH = 2000  # a contradiction's reason, and the note of who resolved it
MAX_TAGS = 50
MAX_TAG_LENGTH = 64


def new_id():
    return uuid7(timezone.now())


class MemoryType(models.TextChoices):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"


class Kind(models.TextChoices):
    FACT = "fact"
    EPISODE = "episode"
    PATTERN = "pattern"
    WORKFLOW = "workflow"
    DECISION = "decision"
    PREFERENCE = "preference"
    ERROR = "error"
    INSIGHT = "insight"
    INSTRUCTION = "instruction"


class Status(models.TextChoices):
    ACTIVE = "active"
    ARCHIVED = "archived"
    DELETED = "deleted"


class Scope(models.TextChoices):
    """Who sees a memory (seed 001's scopes): its author alone, every member of its
    project, or every user (written by staff)."""
    PRIVATE = "private"
    PROJECT = "project"
    SYSTEM = "system"


class Role(models.TextChoices):
    """A member's role in a project: an owner manages members, an editor writes and
    resolves, a reader reads."""
    OWNER = "owner"
    EDITOR = "editor"
    READER = "reader"


WRITING_ROLES = (Role.OWNER, Role.EDITOR)
MAX_PROJECT_NAME = 200


class Project(models.Model):
    """A project shared by its members: its memories (scope "project") are read by every
    member and written by its owners and editors. The name is unique per creator; the
    hooks name a project by its git remote (`github.com/acme/shop`)."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    name = models.CharField(max_length=MAX_PROJECT_NAME)
    # A project outlives its creator's account: its memories are its members' too.
    creator = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                related_name="created_projects", db_index=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "created_at"]
        constraints = [models.UniqueConstraint(fields=["creator", "name"],
                                               name="project_name_unique_per_creator")]

    def __str__(self):
        return self.name

    @property
    def creator_name(self) -> str:
        return self.creator.username if self.creator else "(a deleted user)"


class MembershipQuerySet(models.QuerySet):
    def current(self):
        return self.filter(left_at__isnull=True)

    def writers(self):
        """Current owners and editors: who may write a project's memories."""
        return self.current().filter(role__in=WRITING_ROLES)


class Membership(models.Model):
    """A user's place in a project. Leaving keeps the row (left_at): who was a member,
    and so who may have written its memories, stays known."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships",
                                db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="+")
    joined_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)

    objects = MembershipQuerySet.as_manager()

    class Meta:
        ordering = ["joined_at"]
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="membership_once"),
            models.CheckConstraint(condition=Q(role__in=Role.values),
                                   name="membership_role_known"),
        ]
        indexes = [models.Index(fields=["user", "project"], name="membership_current",
                                condition=Q(left_at__isnull=True))]


class OwnedQuerySet(models.QuerySet):
    def for_owner(self, owner):
        return self.filter(owner=owner)


class OwnerFromParentQuerySet(OwnedQuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        fill_owners(self.model, objs)
        return super().bulk_create(objs, *args, **kwargs)


def fill_owners(model, objs) -> None:
    """Set owner_id, where a caller left it out, to that of the row each hangs off
    (`model.owner_from`): one query for the parents not already loaded."""
    parent = model._meta.get_field(model.owner_from)
    missing = [obj for obj in objs if obj.owner_id is None]
    unloaded = {getattr(obj, parent.attname) for obj in missing if not parent.is_cached(obj)}
    owners = dict(parent.related_model.objects.filter(pk__in=unloaded)
                  .values_list("pk", "owner_id")) if unloaded else {}
    for obj in missing:
        obj.owner_id = (getattr(obj, parent.name).owner_id if parent.is_cached(obj)
                        else owners.get(getattr(obj, parent.attname)))


class OwnedThroughParent(models.Model):
    """A row that hangs off an owned row (a memory, an observation) and carries its
    owner too: the key that keeps every row of one owner on one shard when the tables
    are distributed by owner (docs/SCALING.md), and lets per-owner queries skip the join.
    Filled from the parent by save() and bulk_create(), so callers need not pass it."""

    # Derived from the parent, never chosen: no form (the admin's) offers it.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="+", editable=False)

    objects = OwnerFromParentQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.owner_id is None:
            fill_owners(type(self), [self])
        super().save(*args, **kwargs)


class Validity(models.TextChoices):
    CURRENT = "current"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    PENDING = "pending", "not yet valid"


def not_ended_at(now) -> Q:
    """Not superseded, and neither its valid_to nor its expires_at has passed."""
    return (Q(superseded_by__isnull=True)
            & (Q(valid_to__isnull=True) | Q(valid_to__gt=now))
            & (Q(expires_at__isnull=True) | Q(expires_at__gt=now)))


def current_at(now) -> Q:
    """The condition a memory meets while it holds at `now`."""
    return Q(valid_from__lte=now) & not_ended_at(now)


def readable_by(user, path: str = "") -> Q:
    """The memories `user` reads: their private ones, those of the projects they are a
    member of now (a member who leaves loses sight at once), and system ones. `path`
    reaches the memory from another model ("memory_a__")."""
    return (Q(**{f"{path}owner": user, f"{path}scope": Scope.PRIVATE})
            | Q(**{f"{path}shared_with__in":
                   Membership.objects.current().filter(user=user).values("project")})
            | Q(**{f"{path}scope": Scope.SYSTEM}))


def writable_by(user, path: str = "") -> Q:
    """The memories `user` may change: their private ones, those of projects where they
    are an owner or editor, and system ones for staff."""
    writable = (Q(**{f"{path}owner": user, f"{path}scope": Scope.PRIVATE})
                | Q(**{f"{path}shared_with__in": Membership.objects.writers().filter(
                    user=user).values("project")}))
    if user.is_staff:
        writable |= Q(**{f"{path}scope": Scope.SYSTEM})
    return writable


class MemoryQuerySet(OwnedQuerySet):

    def readable_by(self, user):
        return self.filter(readable_by(user))

    def private_to(self, user):
        """The user's private memories: what an import matches, since it writes only
        those (a shared memory is not the importer's to restore or supersede)."""
        return self.filter(owner=user, scope=Scope.PRIVATE)

    def writable_by(self, user):
        return self.filter(writable_by(user))

    def visible(self):
        """What a person or agent may see: everything not deleted."""
        return self.exclude(status=Status.DELETED)

    def active(self):
        return self.filter(status=Status.ACTIVE)

    def undisputed(self):
        """Not a side of an open contradiction a person is asked about (a confident one):
        machine work that merges, summarises or forgets would settle it in their place."""
        disputed = (Contradiction.objects.confident().not_moot()
                    .filter(status=ContradictionStatus.OPEN))
        return (self.exclude(pk__in=disputed.values("memory_a"))
                .exclude(pk__in=disputed.values("memory_b")))

    # Validity: what holds now. A memory is current from valid_from until valid_to or
    # expires_at, and only while nothing supersedes it (a resolved contradiction's loser).
    def current(self, now):
        return self.filter(current_at(now))

    def not_ended(self, now):
        """Current, or not yet valid: what dedup may strengthen."""
        return self.filter(not_ended_at(now))

    def superseded(self, now):
        return self.filter(self._superseded(now))

    @staticmethod
    def _superseded(now) -> Q:
        return Q(superseded_by__isnull=False) | Q(valid_to__lte=now)

    def expired(self, now):
        return self.filter(expires_at__lte=now, superseded_by__isnull=True) \
            .exclude(valid_to__lte=now)

    def pending(self, now):
        return self.filter(valid_from__gt=now).exclude(self._superseded(now)) \
            .exclude(expires_at__lte=now)

    def awaiting_embedding(self):
        return self.filter(embedding__isnull=True).exclude(status=Status.DELETED)


# A run of text search reads in pieces, a space after each: PostgreSQL's text search
# parser takes time in the square of a run of joined tokens ("a-b.c_d" 10,000 times:
# 17 s; in pieces, 0.06 s), and no word is that long. The same in Python's and
# PostgreSQL's regular expressions: the stored vector and the query are read alike.
TEXT_SEARCH_RUN = r"\S{100}"


def _in_pieces(column: str) -> Func:
    """The column's text with a space after every TEXT_SEARCH_RUN."""
    return Func(F(column), Value(TEXT_SEARCH_RUN), Value(r"\& "), Value("g"),
                function="regexp_replace", output_field=models.TextField())


def tag_form(tag: str) -> str:
    """A tag as it is stored and as a filter asks for it: "Infra " and "infra" are one."""
    return tag.strip().lower()


class Memory(models.Model):
    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories"
    )
    project = models.CharField(max_length=200, blank=True, default="")
    agent_id = models.CharField(max_length=200, blank=True, default="")
    session_id = models.CharField(max_length=200, blank=True, default="")
    # Who reads it. `owner` is its author; a project memory is read by every member of
    # `shared_with` (its `project` is that project's name), a system one by every user.
    scope = models.CharField(max_length=16, choices=Scope.choices, default=Scope.PRIVATE)
    shared_with = models.ForeignKey(Project, null=True, blank=True,
                                    on_delete=models.PROTECT, related_name="memories")

    memory_type = models.CharField(
        max_length=16, choices=MemoryType.choices, default=MemoryType.SEMANTIC
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.FACT)

    # Content at every compression level: full, summary, one compressed line, index key.
    content = models.TextField()
    content_hash = models.CharField(max_length=64, editable=False)
    summary = models.TextField(blank=True, default="")
    compressed = models.TextField(blank=True, default="")
    index_key = models.CharField(max_length=100, blank=True, default="")

    # Untyped `vector`, so memories embedded by models of different sizes can live side
    # by side during a re-embed; each model gets its own partial HNSW index, and queries
    # always filter on embedding_model so vectors of two models are never compared.
    embedding = VectorField(null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True, default="")

    importance = models.FloatField(default=5.0)
    helpful_count = models.PositiveIntegerField(default=0)
    harmful_count = models.PositiveIntegerField(default=0)
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(default=timezone.now)

    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    valid_from = models.DateTimeField(default=timezone.now)
    valid_to = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    pinned = models.BooleanField(default=False)
    is_synthetic = models.BooleanField(default=False)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    tags = ArrayField(models.CharField(max_length=MAX_TAG_LENGTH), default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    search_vector = models.GeneratedField(
        expression=SearchVector(_in_pieces("content"), _in_pieces("summary"), config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    objects = MemoryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["owner", "status", "-created_at"]),
            models.Index(fields=["owner", "project", "content_hash"]),
            GinIndex(fields=["search_vector"], name="memory_search_vector_gin"),
            GinIndex(fields=["tags"], name="memory_tags_gin"),
            models.Index(
                fields=["owner"], name="memory_awaiting_embedding",
                condition=Q(embedding__isnull=True),
            ),
            # The shared part of a reader's union: few rows, found without the owner.
            models.Index(fields=["shared_with", "status"], name="memory_shared",
                         condition=Q(shared_with__isnull=False)),
            models.Index(fields=["owner", "status"], name="memory_system",
                         condition=Q(scope="system")),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(importance__gte=1) & Q(importance__lte=10),
                name="memory_importance_1_to_10",
            ),
            models.CheckConstraint(
                condition=Q(GreaterThanOrEqual(Length("content"), 1))
                & Q(LessThanOrEqual(Length("content"), MAX_CONTENT_LENGTH)),
                name="memory_content_length",
            ),
            models.CheckConstraint(
                condition=Q(status__in=Status.values), name="memory_status_known"
            ),
            models.CheckConstraint(
                condition=Q(memory_type__in=MemoryType.values), name="memory_type_known"
            ),
            models.CheckConstraint(
                condition=(Q(scope=Scope.PROJECT, shared_with__isnull=False)
                           | Q(scope__in=[Scope.PRIVATE, Scope.SYSTEM], shared_with__isnull=True)),
                name="memory_scope_matches_project",
            ),
        ]

    def __str__(self):
        return self.content[:80]

    def validity_at(self, now) -> str:
        """Whether it holds at `now`: "current", "superseded" (by a resolution, or
        valid_to passed), "expired", or "pending" (valid_from still ahead)."""
        if self.superseded_by_id is not None or (self.valid_to and self.valid_to <= now):
            return Validity.SUPERSEDED
        if self.expires_at and self.expires_at <= now:
            return Validity.EXPIRED
        if self.valid_from and self.valid_from > now:
            return Validity.PENDING
        return Validity.CURRENT

    @property
    def validity(self) -> str:
        return self.validity_at(timezone.now())

    def writable_by(self, user) -> bool:
        """Whether `user` may change it (edit, pin, delete, erase, resolve)."""
        if self.scope == Scope.PRIVATE:
            return self.owner_id == user.pk
        if self.scope == Scope.SYSTEM:
            return user.is_staff
        return Membership.objects.writers().filter(
            project_id=self.shared_with_id, user=user).exists()


class LinkRelation(models.TextChoices):
    RELATED = "related"
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    ELABORATES = "elaborates"
    CITES = "cites"
    CONSOLIDATED_INTO = "consolidated_into"


class MemoryLink(OwnedThroughParent):
    owner_from = "from_memory"
    from_memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="links_out",
                                    db_index=False)
    to_memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="links_in")
    relation = models.CharField(max_length=20, choices=LinkRelation.choices)
    strength = models.FloatField(default=1.0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["from_memory", "to_memory", "relation"], name="memory_link_unique"
            ),
            models.CheckConstraint(
                condition=~Q(from_memory=models.F("to_memory")), name="memory_link_not_self"
            ),
        ]


class VersionChange(models.TextChoices):
    CREATED = "created"
    UPDATED = "updated"
    STATUS = "status"
    REINFORCED = "reinforced"


class MemoryVersion(OwnedThroughParent):
    """Every change to a memory's content or status, so nothing is ever silently lost.

    `before` and `after` hold the changed fields. A duplicate that strengthened this
    memory instead of being stored is kept here too (change "reinforced"), with its text.
    """

    owner_from = "memory"
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="versions",
                               db_index=False)
    change = models.CharField(max_length=16, choices=VersionChange.choices)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    agent_id = models.CharField(max_length=200, blank=True, default="")
    changed_at = models.DateTimeField(default=timezone.now)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["memory", "changed_at", "id"]
        indexes = [models.Index(fields=["memory", "changed_at"])]


class UsageKind(models.TextChoices):
    RETRIEVED = "retrieved"  # handed to an agent or a person by recall / context
    CITED = "cited"  # the agent reports it shaped an action
    IGNORED = "ignored"  # the agent reports it was not used
    HELPFUL = "helpful"
    HARMFUL = "harmful"


class UsageEvent(models.Model):
    """What happened to a memory after it was stored: the usage tracker's raw log."""

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="usage",
                               db_index=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, db_index=False)
    kind = models.CharField(max_length=16, choices=UsageKind.choices)
    # Who rated the memory (helpful / harmful): the memory's owner is `owner`, and in a
    # project it is not always the one rating it.
    given_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                 null=True, blank=True, db_index=False, related_name="+")
    agent_id = models.CharField(max_length=200, blank=True, default="")
    session_id = models.CharField(max_length=200, blank=True, default="")
    score = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["owner", "session_id", "kind"]),
            models.Index(fields=["memory", "kind", "agent_id", "-created_at"]),
            # Only ratings name who gave them: a user's deletion finds theirs without
            # reading every retrieval.
            models.Index(fields=["given_by"], name="usage_given_by",
                         condition=Q(given_by__isnull=False)),
        ]


class ApiKeyQuerySet(models.QuerySet):
    def usable(self, now=None):
        """Not revoked, not expired, and its owner still active."""
        return self.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now or timezone.now()),
                           revoked_at__isnull=True, owner__is_active=True)

    def matching(self, raw_key: str):
        """The usable key that `raw_key` is, or None."""
        return self.usable().select_related("owner").filter(
            key_hash=ApiKey.digest(raw_key)).first()

    def expired_matching(self, raw_key: str):
        """The key that `raw_key` is if it would be usable but for its expiry, or None:
        so a refusal can say "expired" rather than "unknown"."""
        return self.filter(key_hash=ApiKey.digest(raw_key), revoked_at__isnull=True,
                           owner__is_active=True, expires_at__lte=timezone.now()).first()


class ApiKey(models.Model):
    """A per-user key for agents. Only its SHA-256 is stored; the key is shown once."""

    PREFIX = "engram_"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="api_keys")
    name = models.CharField(max_length=100)
    key_prefix = models.CharField(max_length=16, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Refused from this moment on, like a revoked key; none: it never expires.
    expires_at = models.DateTimeField(null=True, blank=True)
    # Blank: every project of the owner. Otherwise the key reads only this project's
    # memories and every write lands in it (memories/selectors.py, `Scope`).
    project = models.CharField(max_length=200, blank=True, default="")

    objects = ApiKeyQuerySet.as_manager()

    def is_expired(self, now=None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or timezone.now())

    def __str__(self):
        return f"{self.name} ({self.key_prefix}…)"

    @staticmethod
    def digest(raw_key: str) -> str:
        # Keys are 256 random bits, so a fast unsalted hash is enough to make a leaked
        # table useless, and it lets a request find its key with one indexed lookup.
        return hashlib.sha256(raw_key.encode()).hexdigest()


class MemoryTerm(models.Model):
    """BM25 postings: one row per (memory, stemmed term), kept by database triggers.

    `impact` is the term's BM25 weight in that memory (tf saturation and length
    normalisation, k1 = 1.2, b = 0.75, against the owner's average length when it was
    written), so a query can read each term's strongest postings first.
    """

    memory = models.ForeignKey(Memory, on_delete=models.DO_NOTHING, db_constraint=False,
                               related_name="+")
    owner_id = models.BigIntegerField()
    term = models.TextField()
    tf = models.IntegerField()
    impact = models.FloatField()

    class Meta:
        indexes = [
            models.Index(fields=["owner_id", "term", "-impact"], include=["memory"],
                         name="memory_term_impact"),
            models.Index(fields=["memory"], name="memory_term_memory"),
        ]


class TermDocuments(models.Model):
    """How many of an owner's memories contain a term (BM25's document frequency)."""

    owner_id = models.BigIntegerField()
    term = models.TextField()
    documents = models.IntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner_id", "term"],
                                               name="term_documents_unique")]


class KeywordStats(models.Model):
    """Per owner: memories indexed and their total length in terms (for BM25's avgdl)."""

    owner_id = models.BigIntegerField(primary_key=True)
    documents = models.IntegerField()
    terms = models.BigIntegerField()


# --- Automatic capture: observations, the chunks cut from them, entities, model calls ---


class ObservationStatus(models.TextChoices):
    PENDING = "pending"  # stored, waiting for the worker
    DONE = "done"  # every chunk extracted or skipped by the gate
    # Done but for chunks that failed past their retries (or it could not be cut into
    # chunks, notes["cutting_failed"]): kept raw with the error until a person retries it
    # (dashboard, API), so nothing is lost and nothing spins for ever.
    FAILED = "failed"


class Observation(models.Model):
    """What an agent handed to `/observe`, stored (already scrubbed) before any work.

    The worker may be down; the row is the queue of last resort, swept periodically.
    """

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="observations",
        db_index=False
    )
    project = models.CharField(max_length=200, blank=True, default="")
    # The project its memories are shared with (personal ones aside), chosen when it
    # arrives: none keeps them private. Extraction checks the author still writes it.
    shared_with = models.ForeignKey(Project, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="observations")
    agent_id = models.CharField(max_length=200, blank=True, default="")
    session_id = models.CharField(max_length=200, blank=True, default="")
    messages = models.JSONField(default=list, blank=True)
    tool_events = models.JSONField(default=list, blank=True)
    # The agent's turn ended with it (the hook's Stop): the work log ends its task even
    # when the reply, said alike before, was not sent again. turn_id tells two ends apart.
    turn_ended = models.BooleanField(default=False)
    turn_id = models.CharField(max_length=200, blank=True, default="")
    # sha256 of the scrubbed payload: the same observation sent twice is stored once.
    payload_hash = models.CharField(max_length=64, editable=False)
    notes = models.JSONField(default=dict, blank=True)  # redactions, caps, skipped events
    status = models.CharField(max_length=16, choices=ObservationStatus.choices,
                              default=ObservationStatus.PENDING)
    memories_created = models.IntegerField(default=0)
    memories_strengthened = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    processed_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "payload_hash"],
                                    name="observation_once_per_owner"),
        ]
        indexes = [models.Index(fields=["status", "created_at"])]


class ChunkStatus(models.TextChoices):
    PENDING = "pending"
    SKIPPED = "skipped"  # the gate found nothing worth keeping
    EXTRACTED = "extracted"
    RETRY = "retry"  # the model failed or misbehaved; kept raw for a later attempt
    # A failure no model fallback mends (a bug, the database) met on every attempt up to
    # ENGRAM_CAPTURE_MAX_FAILURES: kept raw, retried only when a person asks.
    FAILED = "failed"


class ObservationChunk(OwnedThroughParent):
    owner_from = "observation"
    observation = models.ForeignKey(Observation, on_delete=models.CASCADE,
                                    related_name="chunks", db_index=False)
    position = models.IntegerField()
    text = models.TextField()
    tokens = models.IntegerField()
    status = models.CharField(max_length=16, choices=ChunkStatus.choices,
                              default=ChunkStatus.PENDING)
    attempts = models.IntegerField(default=0)
    extracted_by = models.CharField(max_length=100, blank=True, default="")
    last_error = models.TextField(blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    memory_ids = ArrayField(models.UUIDField(), default=list, blank=True)

    class Meta:
        ordering = ["observation", "position"]
        constraints = [
            models.UniqueConstraint(fields=["observation", "position"],
                                    name="observation_chunk_position"),
        ]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]


class EntityType(models.TextChoices):
    PERSON = "person"
    PLACE = "place"
    ORGANIZATION = "organization"
    CONCEPT = "concept"
    OBJECT = "object"
    EVENT = "event"
    PREFERENCE = "preference"
    # Engram's domain is code: tools, libraries and files are the entities agents name most.
    TECHNOLOGY = "technology"
    FILE = "file"
    PROJECT = "project"


class Entity(models.Model):
    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="entities", db_index=False
    )
    entity_type = models.CharField(max_length=16, choices=EntityType.choices,
                                   default=EntityType.CONCEPT)
    name = models.CharField(max_length=200)
    canonical_name = models.CharField(max_length=200)
    properties = models.JSONField(default=dict, blank=True)  # incl. "aliases" merged in
    embedding = VectorField(null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    mention_count = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    memories = models.ManyToManyField(Memory, through="MemoryEntity", related_name="entities")

    objects = OwnedQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(fields=["owner", "canonical_name"],
                                    name="entity_canonical_per_owner"),
        ]

    def __str__(self):
        return self.name


class MemoryEntity(OwnedThroughParent):
    owner_from = "memory"
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, db_index=False)
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory", "entity"], name="memory_entity_once"),
        ]


class Relationship(models.Model):
    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    source = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="edges_out",
                               db_index=False)
    target = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="edges_in")
    relationship_type = models.CharField(max_length=50)
    strength = models.FloatField(default=0.8)
    valid_from = models.DateTimeField(default=timezone.now)
    valid_to = models.DateTimeField(null=True, blank=True)
    source_memories = ArrayField(models.UUIDField(), default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "target", "relationship_type"],
                                    name="relationship_once"),
            models.CheckConstraint(condition=Q(strength__gte=0) & Q(strength__lte=1),
                                   name="relationship_strength_0_1"),
        ]


class ModelCall(models.Model):
    """Every call to a language model, with tokens and estimated cost: the cost meter."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, db_index=False)
    project = models.CharField(max_length=200, blank=True, default="")
    provider = models.CharField(max_length=30)
    model = models.CharField(max_length=100, blank=True, default="")
    purpose = models.CharField(max_length=30)
    input_tokens = models.IntegerField(default=0)
    output_tokens = models.IntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    duration_ms = models.IntegerField(default=0)
    ok = models.BooleanField(default=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["owner", "project", "created_at"]),
            models.Index(fields=["provider", "-created_at"]),
        ]


# --- Maintenance: contradictions, and the jobs that maintain the store ------------------


class ContradictionStatus(models.TextChoices):
    OPEN = "open"
    RESOLVED = "resolved"


class Resolution(models.TextChoices):
    A_WINS = "a_wins", "A wins"
    B_WINS = "b_wins", "B wins"
    BOTH_VALID = "both_valid", "Both valid"
    MERGED = "merged", "Merged"


class ContradictionQuerySet(OwnedQuerySet):
    def queued_for(self, user):
        """The contradictions `user` works through: their own, and those of the projects
        where they are an owner or editor (a reader cannot resolve, so has no queue)."""
        return self.filter(
            Q(owner=user, shared_with__isnull=True)
            | Q(shared_with__in=Membership.objects.writers().filter(
                user=user).values("project")))

    def confident(self):
        """The verdicts sure enough to ask a person about: the queue shows only these
        unless the unsure ones are asked for."""
        return self.filter(confidence__gte=CONFIDENT)

    def listed(self):
        """What a list shows unless unsure verdicts are asked for: the confident ones, and
        every resolved one, since a decision stands whatever the judge's confidence."""
        return self.filter(Q(confidence__gte=CONFIDENT) | Q(status=ContradictionStatus.RESOLVED))

    def not_moot(self):
        """Less the open ones with a deleted side: nothing is left to dispute, so neither
        the queue nor a context shows them, and they are back if the deletion is undone."""
        return self.exclude(Q(status=ContradictionStatus.OPEN)
                            & (Q(memory_a__status=Status.DELETED)
                               | Q(memory_b__status=Status.DELETED)))


class Contradiction(models.Model):
    """Two memories that cannot both be true ("Contradiction Scanner"); a person or an
    agent resolves it, and resolving never deletes either memory. Every verdict is kept
    with its confidence; only confident ones (CONFIDENT) are in the open queue."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="contradictions", db_index=False)
    memory_a = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+",
                                 db_index=False)
    memory_b = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+")
    # Between two memories of one project: the project's queue, which its owners and
    # editors work through; otherwise the owner's own.
    shared_with = models.ForeignKey(Project, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="contradictions")
    detected_at = models.DateTimeField(default=timezone.now)
    detected_by = models.CharField(max_length=100, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    # The judge's; one recorded without a verdict (by hand) is taken as sure.
    confidence = models.FloatField(default=1.0)
    status = models.CharField(max_length=16, choices=ContradictionStatus.choices,
                              default=ContradictionStatus.OPEN)
    resolution = models.CharField(max_length=16, choices=Resolution.choices, blank=True,
                                  default="")
    note = models.TextField(blank=True, default="")
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="+")
    resolved_at = models.DateTimeField(null=True, blank=True)
    merged_into = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")

    objects = ContradictionQuerySet.as_manager()

    @property
    def confident(self) -> bool:
        return self.confidence >= CONFIDENT

    class Meta:
        ordering = ["-detected_at"]
        constraints = [
            models.UniqueConstraint(fields=["memory_a", "memory_b"], name="contradiction_once"),
            models.CheckConstraint(condition=~Q(memory_a=models.F("memory_b")),
                                   name="contradiction_not_self"),
        ]
        indexes = [models.Index(fields=["owner", "status", "-detected_at"])]


class JudgedPair(models.Model):
    """The judge's verdict on a pair of texts, cached so no pair is paid for twice."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, db_index=False)
    pair_key = models.CharField(max_length=64)
    contradicts = models.BooleanField()
    reason = models.TextField(blank=True, default="")
    confidence = models.FloatField(default=0.5)
    judged_by = models.CharField(max_length=100)
    judged_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "pair_key", "judged_by"],
                                    name="judged_pair_once"),
        ]


class JobKind(models.TextChoices):
    CONTRADICTIONS = "contradictions"
    CONSOLIDATE = "consolidate"
    FORGET = "forget"
    PURGE = "purge"
    REFLECT = "reflect"
    REEMBED = "reembed"
    IMPORT = "import"


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class Job(models.Model):
    """One run of a maintenance task, with its progress, so a person can watch it."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.CASCADE, related_name="jobs", db_index=False)
    kind = models.CharField(max_length=20, choices=JobKind.choices)
    dry_run = models.BooleanField(default=False)
    params = models.JSONField(default=dict, blank=True)  # e.g. a consolidation's strategy
    status = models.CharField(max_length=16, choices=JobStatus.choices,
                              default=JobStatus.QUEUED)
    progress_done = models.IntegerField(default=0)
    progress_total = models.IntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "kind", "-created_at"])]


class PendingCheck(models.Model):
    """A memory waiting for its contradiction check.

    Rows, not queue messages: however many memories an owner writes, at most one task per
    owner waits in the queue (memories/queue.py), and it checks a batch, interactive
    writes first, then queues itself again behind everyone else's work. One owner's bulk
    import thus never holds another owner's check for longer than one batch, and nothing
    is lost while the queue is down: the rows wait for the sweep.
    """

    memory = models.OneToOneField(Memory, primary_key=True, on_delete=models.CASCADE,
                                  related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="+", db_index=False)
    interactive = models.BooleanField(default=False)
    queued_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["owner", "-interactive", "queued_at"],
                                name="pending_check_order")]


class CheckDrain(models.Model):
    """An owner whose task that drains PendingCheck rows is in the queue: one at a time."""

    owner = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True,
                                 on_delete=models.CASCADE, related_name="+")
    interactive = models.BooleanField(default=False)
    queued_at = models.DateTimeField(default=timezone.now)


class PurgeRecord(models.Model):
    """That a memory was removed for good, when and why: the audit trail of purges. It
    names ids only, never content (a purge may be for a leaked secret)."""

    memory_id = models.UUIDField()
    owner_id = models.IntegerField()  # kept as a number: the owner may be gone too
    forgotten_at = models.DateTimeField(null=True)
    purged_at = models.DateTimeField(default=timezone.now)
    reason = models.CharField(max_length=200)  # "erase" for an erase (services/erasing.py)

    class Meta:
        indexes = [models.Index(fields=["owner_id", "-purged_at"], name="purge_record_owner")]
