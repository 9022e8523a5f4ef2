from django.contrib import admin

from .models import Memory, MemoryLink, MemoryVersion


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    list_display = ("content", "owner", "memory_type", "kind", "importance", "status",
                    "created_at")
    list_filter = ("memory_type", "kind", "status", "pinned")
    search_fields = ("content",)
    exclude = ("embedding",)

    # Edits go through services, which keep every version; the admin only looks.
    def has_change_permission(self, request, obj=None):
        return False


admin.site.register(MemoryLink)
admin.site.register(MemoryVersion)
