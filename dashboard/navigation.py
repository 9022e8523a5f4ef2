"""What every dashboard page may show in its navigation."""

from functools import cache

from memories.selectors import count_open_contradictions


def open_contradictions_count(request):
    """The number of open contradictions for the navigation's badge.

    A callable the template calls when (and only when) it shows the badge: one COUNT
    query per page at most, none for htmx partials that leave the navigation out, and
    none for visitors who are not signed in.
    """
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    @cache
    def count() -> int:
        return count_open_contradictions(user)

    return {"open_contradictions_count": count}
