"""The API's rate limits (`throttle_scope` on a view, its rate in
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]), counted as a sliding-window counter.

The estimate of requests in the last `duration` seconds is this window's count plus the
previous window's, weighted by how much of it still lies within those seconds: no burst
of twice the limit across a window's edge, as a fixed window would allow, at the cost of
one row per client and scope. Refused requests count too, so a client that keeps
hammering stays refused until it slows down."""

from rest_framework.throttling import ScopedRateThrottle

from memories.services.throttling import count_request


class SlidingWindowThrottle(ScopedRateThrottle):
    def allow_request(self, request, view):
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.num_requests, self.duration = self.parse_rate(self.get_rate())
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        period, self.elapsed = divmod(self.timer(), self.duration)
        self.current, self.previous = count_request(key, int(period))
        return self.estimate() <= self.num_requests

    def estimate(self, later: float = 0.0) -> float:
        """Requests counted within the `duration` seconds before `later` seconds from now,
        as long as no window edge lies between."""
        share = max(0.0, 1 - (self.elapsed + later) / self.duration)
        return self.current + self.previous * share

    def wait(self):
        """Seconds until the next request would be allowed: once enough of the previous
        window has slid out of sight, or, when this window alone leaves no room, once
        enough of it has slid out of the next one."""
        rest_of_window = self.duration - self.elapsed
        room = self.num_requests - 1  # for the others, beside the next request itself
        if self.current > room:
            return rest_of_window + self.duration * (1 - max(room, 0) / self.current)
        if not self.previous:
            return rest_of_window
        return (self.estimate() - room) * self.duration / self.previous
