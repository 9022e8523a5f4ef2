import socket


def service_answers(port: int) -> bool:
    """Whether a server listens on this loopback port (for tests of a machine service)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
