class ProviderError(Exception):
    """A provider failed. `retryable` says whether trying again later can help.

    Timeouts, rate limits, 5xx answers and refused connections are retryable; bad keys,
    unknown models and malformed answers are not.
    """

    def __init__(self, message: str, *, retryable: bool, provider: str = ""):
        super().__init__(message)
        self.retryable = retryable
        self.provider = provider
