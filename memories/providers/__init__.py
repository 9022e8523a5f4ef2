"""The only code that talks to vendor SDKs, HTTP APIs and local model runtimes."""
