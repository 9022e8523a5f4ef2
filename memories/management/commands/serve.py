import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import connection

# What serves the dashboard, the API and /mcp on one port. The image's web process
# (Dockerfile) runs the same: Django's WSGI app alone answers /mcp with a 404.
APPLICATION = "engram_site.asgi:application"
WORKER_CLASS = "uvicorn_worker.UvicornWorker"


class Command(BaseCommand):
    help = ("Serve the dashboard, the API and the MCP server (/mcp) on one port with "
            "gunicorn, and a Huey worker beside it.")

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--web-workers", type=int,
                            default=int(os.environ.get("WEB_CONCURRENCY", "2")))

    def handle(self, *args, port, host, web_workers, **options):
        # Fail fast, in one sentence, before starting anything. With the embedded server
        # this also holds it for the whole run, so it is not stopped and restarted as
        # children come and go; it stops after the last of them exits.
        connection.ensure_connection()
        python = sys.executable
        children = [
            # engram_site.asgi: /mcp for MCP clients, Django (in threads) for the rest.
            # From the checkout, as the worker: gunicorn imports the app from its working
            # folder, so `manage.py serve` run from any other folder found no engram_site.
            subprocess.Popen([
                python, "-m", "gunicorn", APPLICATION, "--bind",
                f"{host}:{port}", "--workers", str(web_workers),
                "--worker-class", WORKER_CLASS, "--access-logfile", "-",
                # Import the app and load the embedding model once, before forking
                # (engram_site/asgi.py): the workers share them copy-on-write.
                "--preload",
            ], cwd=settings.BASE_DIR, env={**os.environ, "ENGRAM_PRELOAD_MODEL": "1"}),
            subprocess.Popen([python, "manage.py", "run_huey"], cwd=settings.BASE_DIR),
        ]
        self.stdout.write(f"Engram is serving on http://{host}:{port}/ (Ctrl-C stops it)")

        def stop(signum, frame):
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGHUP, stop)  # the terminal closed: stop, as on Ctrl-C
        # If either child dies, stop the other: a half-running Engram is worse than none.
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        stop(None, None)
        failed = [code for code in (child.wait() for child in children) if code > 0]
        self.stdout.write("Engram stopped.")
        sys.exit(failed[0] if failed else 0)
