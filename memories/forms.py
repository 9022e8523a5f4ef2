"""Dashboard forms: each validates on the server and keeps what was typed on an error."""

import datetime as dt
import uuid

from django import forms
from django.utils import timezone

from .engine.context import FORMATS
from .models import (
    MAX_CONTENT_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    Kind,
    MemoryType,
    Status,
)
from .services import MAX_CONTEXT_TOKENS, MAX_SCOPE_LENGTH

ANY = [("", "any")]


class MemoryFilterForm(forms.Form):
    q = forms.CharField(label="Search", required=False, max_length=2000)
    memory_type = forms.ChoiceField(label="Type", required=False,
                                    choices=ANY + MemoryType.choices)
    kind = forms.ChoiceField(label="Kind", required=False, choices=ANY + Kind.choices)
    tag = forms.CharField(label="Tag", required=False, max_length=MAX_TAG_LENGTH)
    project = forms.CharField(label="Project", required=False, max_length=MAX_SCOPE_LENGTH)
    status = forms.ChoiceField(label="Status", required=False,
                               choices=[("", "active or archived"), *Status.choices])
    pinned = forms.ChoiceField(label="Pinned", required=False,
                               choices=[("", "any"), ("yes", "pinned"), ("no", "not pinned")])
    created_after = forms.DateField(label="Created from", required=False,
                                    widget=forms.DateInput(attrs={"type": "date"}))
    created_before = forms.DateField(label="Created until", required=False,
                                     widget=forms.DateInput(attrs={"type": "date"}))
    sort = forms.ChoiceField(label="Sort by", required=False, choices=[
        ("", "best first"), ("recent", "most recent"), ("importance", "importance"),
        ("used", "most used"), ("score", "score")])

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
            "pinned": pinned,
            "created_after": _day_start(data.get("created_after")),
            "created_before": _day_start(data.get("created_before"), days=1),
        }


def _day_start(day: dt.date | None, days: int = 0):
    if day is None:
        return None
    return timezone.make_aware(dt.datetime.combine(day + dt.timedelta(days=days), dt.time()))


def _parse_tags(raw: str) -> list[str]:
    return [t.strip() for t in (raw or "").split(",") if t.strip()]


class MemoryEditForm(forms.Form):
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6, "autofocus": True}),
        max_length=MAX_CONTENT_LENGTH,
        error_messages={"required": "Content is empty: give the text to remember."})
    importance = forms.FloatField(min_value=1, max_value=10,
                                  widget=forms.NumberInput(attrs={"step": "0.5"}))
    tags = forms.CharField(required=False, help_text="Comma-separated.",
                           widget=forms.TextInput(attrs={"autocomplete": "off"}))

    def clean_tags(self):
        tags = _parse_tags(self.cleaned_data["tags"])
        if len(tags) > MAX_TAGS:
            raise forms.ValidationError(f"At most {MAX_TAGS} tags.")
        too_long = [t for t in tags if len(t) > MAX_TAG_LENGTH]
        if too_long:
            raise forms.ValidationError(
                f"Tags are at most {MAX_TAG_LENGTH} characters: {too_long[0][:20]}…")
        return tags

    @classmethod
    def for_memory(cls, memory):
        return cls(initial={"content": memory.content, "importance": memory.importance,
                            "tags": ", ".join(memory.tags)})


BULK_ACTIONS = [("tag", "Add a tag"), ("archive", "Archive"), ("delete", "Delete"),
                ("reembed", "Re-embed")]


class BulkForm(forms.Form):
    ids = forms.CharField(required=False)  # read with getlist; see clean_ids
    action = forms.ChoiceField(choices=BULK_ACTIONS)
    tag = forms.CharField(required=False, max_length=MAX_TAG_LENGTH)

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        self.selected = data.getlist("ids") if data is not None else []

    def clean_ids(self):
        try:
            ids = [uuid.UUID(raw) for raw in self.selected]
        except ValueError:
            raise forms.ValidationError("The selection holds an unknown memory.") from None
        if not ids:
            raise forms.ValidationError("Select at least one memory.")
        return ids

    def clean(self):
        data = super().clean()
        if data.get("action") == "tag" and not (data.get("tag") or "").strip():
            self.add_error("tag", "Give the tag to add.")
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
