from django.contrib import admin

from .models import Insight, ReflectionState


@admin.register(Insight)
class InsightAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "status", "round", "reflected_by", "created_at")
    list_filter = ("status",)
    raw_id_fields = ("memory", "owner", "reviewed_by")


@admin.register(ReflectionState)
class ReflectionStateAdmin(admin.ModelAdmin):
    list_display = ("owner", "accumulated_importance", "observations_since",
                    "last_reflected_at", "last_reason")
