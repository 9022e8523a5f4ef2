"""Dashboard forms: each validates on the server and keeps what was typed on an error."""

import datetime as dt
import hashlib
import json
import uuid

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.forms.renderers import TemplatesSetting
from django.utils import timezone

from memories.engine.context import FORMATS
from memories.jobs import active_job_of_kind, startable_job_kinds
from memories.models import (
    MAX_CONTENT_LENGTH,
    MAX_NOTE_LENGTH,
    MAX_PROJECT_NAME,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    Kind,
    MemoryType,
    Resolution,
    Role,
    Scope,
    Status,
    Validity,
)
from memories.services.api_keys import MAX_KEY_DAYS
from memories.services.context import MAX_CONTEXT_TOKENS
from memories.services.transfer import ENGRAM, MCP_MEMORY
from memories.services.validation import MAX_SCOPE_LENGTH, clean_tags

from .queries import writable_ids

ANY = [("", "any")]


class FieldRenderer(TemplatesSetting):
    """Forms render through the project's templates, each field by one template: its
    label, the input, its hint and its error (`dashboard/field.html`)."""

    field_template_name = "dashboard/field.html"


class SearchInput(forms.TextInput):
    input_type = "search"  # what "/" jumps to (engram.js)


class MemoryFilterForm(forms.Form):
    q = forms.CharField(label="Search by meaning and keywords", required=False, max_length=2000,
                        widget=SearchInput(attrs={"autocomplete": "off",
                                                  "placeholder": "what do I know about…"}))
    memory_type = forms.ChoiceField(label="Type", required=False,
                                    choices=ANY + MemoryType.choices)
    kind = forms.ChoiceField(label="Kind", required=False, choices=ANY + Kind.choices)
    tag = forms.CharField(label="Tag", required=False, max_length=MAX_TAG_LENGTH)
    project = forms.CharField(label="Project", required=False, max_length=MAX_SCOPE_LENGTH)
    # By id: two projects of one name (bob's "shop" beside alice's) are two choices.
    shared_with = forms.TypedChoiceField(label="Shared in project", required=False,
                                         coerce=uuid.UUID, empty_value=None)
    scope = forms.ChoiceField(label="Seen by", required=False, choices=[
        ("", "any"), (Scope.PRIVATE, "me alone (private)"),
        (Scope.PROJECT, "a project's members"), (Scope.SYSTEM, "everyone (system)")])
    status = forms.ChoiceField(label="Status", required=False,
                               choices=[("", "active or archived"), *Status.choices])
    validity = forms.ChoiceField(
        label="Holds", required=False,
        choices=[("", "now (current)"), *[c for c in Validity.choices if c[0] != "current"],
                 ("all", "any time")])
    pinned = forms.ChoiceField(label="Pinned", required=False,
                               choices=[("", "any"), ("yes", "pinned"), ("no", "not pinned")])
    created_after = forms.DateField(label="Created from", required=False,
                                    widget=forms.DateInput(attrs={"type": "date"}))
    created_before = forms.DateField(label="Created until", required=False,
                                     widget=forms.DateInput(attrs={"type": "date"}))
    sort = forms.ChoiceField(label="Sort by", required=False, choices=[
        ("", "best first"), ("recent", "most recent"), ("importance", "importance"),
        ("used", "most used"), ("score", "score")])

    def __init__(self, data=None, *, projects: dict, **kwargs):
        """`projects`: the person's projects by id, labelled (`queries.project_labels`)."""
        super().__init__(data, **kwargs)
        self.fields["shared_with"].choices = ANY + [(str(pk), label)
                                                    for pk, label in projects.items()]

    def clean(self):
        data = super().clean()
        after, before = data.get("created_after"), data.get("created_before")
        if after and before and after > before:
            self.add_error("created_before", "The end of the range is before its start.")
        return data

    def sort_order(self) -> str:
        """Search hits come by score unless told otherwise; the list, newest first."""
        data = self.cleaned_data
        return data.get("sort") or ("score" if data.get("q") else "recent")

    def selector_filters(self) -> dict:
        """The valid filters, as selectors.listed takes them (an invalid one is ignored
        and its error shown next to it)."""
        data = self.cleaned_data
        pinned = {"yes": True, "no": False}.get(data.get("pinned") or "")
        return {
            "memory_type": [data["memory_type"]] if data.get("memory_type") else (),
            "kind": [data["kind"]] if data.get("kind") else (),
            "status": [data["status"]] if data.get("status") else (),
            "tag": [data["tag"].strip().lower()] if (data.get("tag") or "").strip() else (),
            "project": data.get("project") or None,
            "shared_with": data.get("shared_with"),
            "pinned": pinned,
            "validity": data.get("validity") or Validity.CURRENT,
            "created_after": _day_start(data.get("created_after")),
            "created_before": _day_start(data.get("created_before"), days=1),
        }


def _day_start(day: dt.date | None, days: int = 0):
    if day is None:
        return None
    try:
        day += dt.timedelta(days=days)
    except OverflowError:  # the day after 9999-12-31: no bound at all
        return None
    return timezone.make_aware(dt.datetime.combine(day, dt.time()))


def _parse_tags(raw: str) -> list[str]:
    return [t.strip() for t in (raw or "").split(",") if t.strip()]


def _as_typed(text: str) -> str:
    return text.replace("\r\n", "\n").strip()


def _as_read(memory) -> str:
    """What the edit form changes, as stored: the mark of the state a person began from."""
    state = json.dumps([memory.content, memory.importance, sorted(memory.tags)])
    return hashlib.sha256(state.encode()).hexdigest()[:16]


class MemoryEditForm(forms.Form):
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6, "autofocus": True}),
        max_length=MAX_CONTENT_LENGTH,
        error_messages={"required": "Content is empty: give the text to remember."})
    importance = forms.FloatField(min_value=1, max_value=10,
                                  widget=forms.NumberInput(attrs={"step": "0.5"}))
    tags = forms.CharField(required=False, help_text="Comma-separated.",
                           widget=forms.TextInput(attrs={"autocomplete": "off"}))
    # The state the form was opened on (_as_read): saved over a change someone made
    # since, it would put the old text back in this person's name.
    read = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, memory=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.memory = memory

    def clean_content(self):
        """The text as stored when the person left it as it was: a browser sends a
        textarea's lines back ending in CRLF, and the field strips the ends."""
        content = self.cleaned_data["content"]
        if self.memory is not None and _as_typed(content) == _as_typed(self.memory.content):
            return self.memory.content
        return content

    def clean_tags(self):
        tags = _parse_tags(self.cleaned_data["tags"])
        if len(tags) > MAX_TAGS:
            raise forms.ValidationError(f"At most {MAX_TAGS} tags.")
        too_long = [t for t in tags if len(t) > MAX_TAG_LENGTH]
        if too_long:
            raise forms.ValidationError(
                f"Tags are at most {MAX_TAG_LENGTH} characters: {too_long[0][:20]}…")
        return tags

    def clean(self):
        data = super().clean()
        self.read = data.pop("read", "")
        if self.memory is not None:
            self.unchanged(self.memory)
        return data

    def unchanged(self, memory) -> None:
        """Refuse the save when `memory` is no longer the state the form was opened on.
        Checked when the form is read, and again by update_memory on the locked row, so
        a change saved between the two is not overwritten either."""
        if self.read and self.read != _as_read(memory):
            raise forms.ValidationError(
                "Someone changed this memory since you opened it. Copy what you typed, "
                "reload to see their change (the history has it), then edit again.")

    @classmethod
    def for_memory(cls, memory):
        return cls(initial={"content": memory.content, "importance": memory.importance,
                            "tags": ", ".join(memory.tags), "read": _as_read(memory)})


BULK_ACTIONS = [("tag", "Add a tag"), ("archive", "Archive"), ("delete", "Delete"),
                ("reembed", "Re-embed")]


class SelectionForm(forms.Form):
    """Memories ticked in the list, by id: all of them ones `user` may change, or none is
    touched (a selection holding a memory of a project they only read is refused whole)."""

    ids = forms.CharField(required=False)  # read with getlist; see clean_ids

    def __init__(self, data=None, *, user, **kwargs):
        super().__init__(data, **kwargs)
        self.user = user
        self.selected = data.getlist("ids") if data is not None else []

    def clean_ids(self):
        try:
            ids = {uuid.UUID(raw) for raw in self.selected}
        except ValueError:
            raise forms.ValidationError("The selection holds an unknown memory.") from None
        if not ids:
            raise forms.ValidationError("Select at least one memory.")
        if refused := len(ids - writable_ids(self.user, ids)):
            raise forms.ValidationError(
                f"You may not change {refused} of the {len(ids)} selected "
                f"{'memory' if len(ids) == 1 else 'memories'}: nothing was changed.")
        return list(ids)


class BulkForm(SelectionForm):
    action = forms.ChoiceField(choices=BULK_ACTIONS)
    tag = forms.CharField(required=False, max_length=MAX_TAG_LENGTH)

    def clean(self):
        data = super().clean()
        if data.get("action") != "tag":
            return data
        tag = data.get("tag", "")
        if not tag:
            self.add_error("tag", "Give the tag to add.")
        elif "," in tag:  # kept inside one tag, the edit form would later split it in two
            self.add_error("tag", "One tag at a time: a tag holds no comma.")
        else:
            data["tag"] = clean_tags([tag])[0]  # as stored, so the notice names it so
        return data


class ContextPreviewForm(forms.Form):
    prompt = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=10_000,
        help_text="What the agent is asked, as it would send it.",
        error_messages={"required": "Type the prompt to preview a context for."})
    budget = forms.IntegerField(label="Budget (tokens)", min_value=1,
                                max_value=MAX_CONTEXT_TOKENS, initial=500)
    format = forms.ChoiceField(choices=[(f, f) for f in FORMATS], initial="markdown")
    project = forms.CharField(required=False, max_length=MAX_SCOPE_LENGTH,
                              help_text="Empty: every project.")
    session_id = forms.CharField(label="Session", required=False, max_length=MAX_SCOPE_LENGTH,
                                 help_text="Memories this session has seen are skipped.")


RESOLUTIONS = [
    (Resolution.A_WINS, "A wins: keep A, close B"),
    (Resolution.B_WINS, "B wins: keep B, close A"),
    (Resolution.BOTH_VALID, "Both valid: change neither"),
    (Resolution.MERGED, "Merged: store the text below, close both"),
]


class ResolveForm(forms.Form):
    resolution = forms.ChoiceField(choices=RESOLUTIONS, widget=forms.RadioSelect)
    merged_content = forms.CharField(
        label="Merged text", required=False, strip=False, max_length=MAX_CONTENT_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Used only for a merge: both texts to start from; edit them into one.")
    note = forms.CharField(label="Note", required=False, max_length=MAX_NOTE_LENGTH,
                           widget=forms.Textarea(attrs={"rows": 2}),
                           help_text="Why, for whoever reads this later.")

    def clean(self):
        data = super().clean()
        if data.get("resolution") == Resolution.MERGED and not data.get(
                "merged_content", "").strip():
            self.add_error("merged_content", "A merge needs the merged text.")
        return data


class StartJobForm(forms.Form):
    kind = forms.ChoiceField(label="Job")
    dry_run = forms.BooleanField(label="Dry run: report what would change, change nothing",
                                 required=False)

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.owner = owner
        self.fields["kind"].choices = startable_job_kinds()

    def clean_kind(self):
        kind = self.cleaned_data["kind"]
        if active_job_of_kind(self.owner, kind):
            raise ValidationError("A job of this kind is already queued or running; "
                                  "wait for it to finish.")
        return kind


class ApiKeyForm(forms.Form):
    name = forms.CharField(label="Name", max_length=100,
                           help_text="Which agent or machine will use it, e.g. “laptop claude”.")
    expires_in_days = forms.IntegerField(
        label="Expires after (days)", required=False, min_value=1, max_value=MAX_KEY_DAYS,
        help_text="Leave empty for a key that does not expire.")
    project = forms.CharField(
        label="Project", required=False, max_length=MAX_SCOPE_LENGTH,
        help_text="Only this project's memories, read and written; empty: every project.")

    def clean_project(self):
        return self.cleaned_data["project"].strip()


IMPORT_FORMATS = [("", "Tell from the file"), (ENGRAM, "Engram JSONL (as exported)"),
                  (MCP_MEMORY, "MCP memory server knowledge graph")]


class ImportForm(forms.Form):
    file = forms.FileField(label="JSONL file",
                           help_text="One memory per line, as exported; or the MCP memory "
                                     "server's memory.jsonl.")
    format = forms.ChoiceField(label="Format", choices=IMPORT_FORMATS, required=False)
    project = forms.CharField(label="Project", required=False, max_length=MAX_SCOPE_LENGTH,
                              help_text="Empty: each memory keeps its own (none for the "
                                        "MCP graph).")
    skip_bad_lines = forms.BooleanField(
        label="Skip bad lines and import the rest", required=False,
        help_text="Unticked, a file with any bad line imports nothing. A large file runs "
                  "as a job, which always skips them.")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.ENGRAM_IMPORT_MAX_BYTES
        if upload.size > limit:
            raise ValidationError(f"The file is over {limit:,} bytes: split it into "
                                  "smaller files.")
        return upload


PERIODS = [(30, "30 days"), (90, "90 days"), (365, "a year")]


class PeriodForm(forms.Form):
    days = forms.TypedChoiceField(label="Period", choices=PERIODS, coerce=int, initial=90)


class ProjectForm(forms.Form):
    name = forms.CharField(
        label="Name", max_length=MAX_PROJECT_NAME,
        help_text="The hooks share a repository's memories with the project named like its "
                  "git remote, e.g. github.com/acme/shop.")


class MemberForm(forms.Form):
    username = forms.CharField(label="Username", max_length=150)
    role = forms.ChoiceField(
        label="Role", choices=Role.choices, initial=Role.EDITOR,
        help_text="Readers read; editors also change memories and resolve contradictions; "
                  "owners also manage the members.")
